"""Copies of PDNC novels typeset as books from other sources are: the same words at the same offsets, so
PDNC's quote spans still hold and the standard evaluations run on them unchanged.

A novel users bring may come from an ebook or a scan rather than a hard-wrapped Project Gutenberg file.
Each variant changes one convention, character for character, so the length never changes:

- ``nbsp``: a no-break space after ``Mr``, ``Mrs``, ``Miss``, ``Dr``, ``Lady``, ``Sir``, ``Colonel`` and
  ``Captain`` before a capital (ebooks keep a title on its name's line);
- ``unwrap``: a paragraph a line, no blank line between paragraphs (a line break inside a paragraph
  becomes a space, a blank line a space and a line break);
- ``indent``: hard-wrapped, each paragraph's first line indented instead of a blank line before it;
- ``curly``: curly double quotes, paired within each paragraph, and curly apostrophes inside words;
- ``single``: British marks: speech in curly single quotes, quotes inside speech in curly doubles,
  every apostrophe curly (the closing mark's character, also after a dropped letter: ``goin’``);
- ``single-straight``: the same in straight marks (``'…'``, ``"…"`` inside, ``'`` apostrophes);
- ``ebook``: ``curly`` + ``nbsp`` + ``unwrap``;
- ``modern``: inverted speech tags after a speech put the speaker first, in the present tense where
  it has as many letters (``"…," said Emma`` -> ``"…," Emma says``), as novels of today write them;
- ``dash``: dialogue in em-dashes with no closing mark (``— Yes,  said he,  I will. ``), as
  translations and Irish novels write it;
- ``unmarked``: no marks at all, every double mark a space, as some novels of today write dialogue;
- ``present``: ``modern``, and the narration in the present tense where a verb's present is no longer
  than its past, padded with spaces (``Emma looked up`` -> ``Emma looks  up``).

    python scripts/format_variants.py ../shared/data/pdnc OUT --variant ebook [--novel NAME ...]
    fabula eval quotes --pdnc OUT/ebook --json R        # then as on the shipped novels

The annotations are linked, not copied (``quotation_info.csv``, ``character_info.csv``). Results:
docs/benchmarks.md, "novels typeset as other sources are".
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

_TITLE_SPACE = re.compile(r"\b(Mr|Mrs|Miss|Dr|Lady|Sir|Colonel|Captain)(\.?) (?=[A-Z])")
_PARAGRAPHS = re.compile(r"(?s)(?:(?!\n\s*\n).)+")


def _marks(text: str, mark: str) -> Iterator[tuple[re.Match[str], list[int]]]:
    """Each paragraph of ``text`` and the offsets of ``mark`` in it (opening, closing, opening, ...)."""
    for paragraph in _PARAGRAPHS.finditer(text):
        yield paragraph, [paragraph.start() + i for i, ch in enumerate(paragraph.group()) if ch == mark]


def _paired(text: str, mark: str, opening: str, closing: str) -> str:
    """``mark`` replaced by ``opening`` and ``closing`` in turn within each paragraph (an unclosed last
    one opens: a speech that goes on in the next paragraph)."""
    out = list(text)
    for _, marks in _marks(text, mark):
        for k, at in enumerate(marks):
            out[at] = opening if k % 2 == 0 else closing
    return "".join(out)


def nbsp(text: str) -> str:
    return _TITLE_SPACE.sub(lambda m: f"{m.group(1)}{m.group(2)}\u00a0", text)


def unwrap(text: str) -> str:
    return re.sub(r"\n\n", " \n", re.sub(r"(?<!\n)\n(?!\n)", " ", text))


def indent(text: str) -> str:
    return re.sub(r"\n\n(?=\S)", "\n ", text)


def curly(text: str) -> str:
    return _paired(re.sub(r"(?<=\w)'(?=\w)", "’", text), '"', "“", "”")


#: a quote inside a speech in single marks: it opens before a capital (not "'T ain't" or "'Tis") and closes
#: at the next mark after a letter or punctuation that no letter follows; any other mark is an apostrophe
_NESTED = re.compile(
    r"(?<![\w'])'(?=[A-Z])(?![A-Z] )(?!T(?:is|was|were|will|would)\b)"
    r"[^']*(?:'(?=\w)[^']*)*?(?<=[\w.,!?;:\u2014-])'(?!\w)"
)


def _british(text: str, opening: str, closing: str, inner: tuple[str, str], apostrophe: str) -> str:
    """Speech in ``opening``/``closing`` (the double marks paired within each paragraph), a quote inside
    a speech in the ``inner`` marks, and every other single mark the ``apostrophe``."""
    out = list(_paired(text, '"', opening, closing))
    for paragraph, marks in _marks(text, '"'):
        for k in range(0, len(marks), 2):  # each speech, to its close or the paragraph's end
            end = marks[k + 1] if k + 1 < len(marks) else paragraph.end()
            for nested in _NESTED.finditer(text, marks[k] + 1, end):
                out[nested.start()], out[nested.end() - 1] = inner
    return "".join(out).replace("'", apostrophe)


def single(text: str) -> str:
    """British curly marks: ``‘…’`` speech, ``“…”`` inside it, and every apostrophe ``’`` as typeset
    books print it, the closing mark's character (``don’t``, ``the boys’ room``, a dropped letter's
    ``goin’``, ``’em``)."""
    return _british(text, "‘", "’", ("“", "”"), "’")


def single_straight(text: str) -> str:
    """British straight marks: ``'…'`` speech, ``"…"`` inside it, apostrophes ``'`` as written."""
    return _british(text, "'", "'", ('"', '"'), "'")


#: an inverted tag after a speech's closing mark ('," said Mr. Ashdown'): the verb and its speaker
_INVERTED_TAG = re.compile(
    r"(?<=[,!?\u2014-]\" )(said|cried|replied|asked|returned|answered|exclaimed)(\s+)"
    r"((?:(?:Mr|Mrs|Dr|St|Mlle|Mme|M|Messrs)\.[ \n])?(?!(?:Mr|Mrs|Dr|St|Mlle|Mme|M|Messrs)\.)"
    r"(?:[A-Z][a-z'-]+[ \n])*[A-Z][a-z'-]+|he|she|I)\b"
    # the whole name: up to a mark or a lowercase word that is no particle of it ("said Mr. van der X")
    r"(?=[,.;:!?\u2014-]|[ \n]+(?!(?:van|von|de|der|du|la|le|di|da|del|ten|ter)\b)[a-z])"
)
#: the present tense of the verbs whose present has as many letters
_PRESENT = {"said": "says", "cried": "cries", "replied": "replies"}


def modern(text: str) -> str:
    """'"…," said Emma' -> '"…," Emma says': the speaker first and the present tense, as many novels
    of today tag their speeches."""

    def swap(m: re.Match[str]) -> str:
        verb = m.group(1) if m.group(3) == "I" else _PRESENT.get(m.group(1), m.group(1))  # not "I says"
        return f"{m.group(3)}{m.group(2)}{verb}"

    return _INVERTED_TAG.sub(swap, text)


#: narration's past-tense verbs whose present tense is no longer (padded with spaces to the same length)
_PRESENT_NARRATION = {
    **{"looked": "looks", "smiled": "smiles", "laughed": "laughs", "walked": "walks", "seemed": "seems"},
    **{"hoped": "hopes", "feared": "fears", "loved": "loves", "liked": "likes", "turned": "turns"},
    **{"listened": "listens", "answered": "answers", "asked": "asks", "nodded": "nods", "said": "says"},
    **{"cried": "cries", "replied": "replies", "was": "is", "had": "has", "wished": "wishes"},
    **{"sighed": "sighs", "stared": "stares", "shrugged": "shrugs", "frowned": "frowns"},
    **{"glanced": "glances", "watched": "watches"},
}
_AUXILIARY = frozenset(("had", "has", "have", "was", "were", "been", "being", "be", "is", "are"))
_PAST_WORD = re.compile(r"\b(" + "|".join(sorted(_PRESENT_NARRATION, key=len, reverse=True)) + r")\b")


def present(text: str) -> str:
    """``modern``, and the narration outside the speeches in the present tense where a verb's present
    is no longer than its past ("Nora looked up" -> "Nora looks  up"), as novels of today are often
    told: the evidence of a person that discovery reads after a name must not depend on the tense."""
    text = modern(text)
    out = list(text)
    for paragraph, marks in _marks(text, '"'):
        bounds = [paragraph.start(), *marks, paragraph.end()]
        for k in range(0, len(bounds) - 1, 2):  # the stretches outside the speeches
            for m in _PAST_WORD.finditer(text, bounds[k], bounds[k + 1]):
                before = text[max(0, m.start() - 7) : m.start()].split()
                if before and before[-1].lower() in _AUXILIARY:  # a participle: "had looked" stays
                    continue
                word = _PRESENT_NARRATION[m.group(1)]
                out[m.start() : m.end()] = list(word.ljust(m.end() - m.start()))
    return "".join(out)


def dash(text: str) -> str:
    """Dialogue in dashes with no closing mark, as translations and Irish novels write it: a speech's
    opening mark becomes an em-dash, except one reopening a speech after a tag that ends in a comma
    (``"Yes," said he, "I will."`` -> ``— Yes,  said he,  I will. ``), and every closing mark a space."""
    out = list(text)
    for _, marks in _marks(text, '"'):
        for k, at in enumerate(marks):
            if k % 2:
                out[at] = " "
            elif k == 0 or not text[marks[k - 1] + 1 : at].rstrip().endswith(","):
                out[at] = "—"
            else:
                out[at] = " "
    return "".join(out)


def unmarked(text: str) -> str:
    """Dialogue with no marks at all (``"Yes," said he.`` -> `` Yes,  said he.``), as some novels of
    today write it: every double mark a space."""
    return text.replace('"', " ")


def ebook(text: str) -> str:
    return unwrap(nbsp(curly(text)))


VARIANTS: dict[str, Callable[[str], str]] = {
    "nbsp": nbsp,
    "unwrap": unwrap,
    "indent": indent,
    "curly": curly,
    "single": single,
    "single-straight": single_straight,
    "ebook": ebook,
    "modern": modern,
    "present": present,
    "dash": dash,
    "unmarked": unmarked,
}


def write_copy(folder: Path, text: str, target: Path) -> None:
    """A PDNC novel folder at ``target`` with ``text`` as its novel and ``folder``'s other files (the
    annotations) linked, absolute links, so the folder can move."""
    target.mkdir(parents=True, exist_ok=True)
    (target / "novel_text.txt").write_text(text, encoding="utf-8")
    for other in folder.iterdir():
        link = target / other.name
        if other.name != "novel_text.txt" and not link.exists():
            link.symlink_to(other.resolve())


def write_variant(pdnc: Path, out: Path, variant: str, novels: list[str] | None = None) -> int:
    """Write ``out/variant/NOVEL/`` for each novel folder of ``pdnc`` (or the named ones); the number
    written."""
    convert = VARIANTS[variant]
    written = 0
    for folder in sorted(p for p in pdnc.iterdir() if (p / "novel_text.txt").is_file()):
        if novels and folder.name not in novels:
            continue
        text = (folder / "novel_text.txt").read_text(encoding="utf-8")
        copy = convert(text)
        if len(copy) != len(text):  # the offsets would no longer hold
            raise AssertionError(f"{folder.name}: the {variant} copy changed the length")
        write_copy(folder, copy, out / variant / folder.name)
        written += 1
    for extra in pdnc.glob("*.csv"):  # PDNC-Novel-Index.csv
        shutil.copy(extra, out / variant / extra.name)
    return written


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdnc", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--variant", choices=sorted(VARIANTS), action="append", required=True)
    parser.add_argument("--novel", action="append")
    args = parser.parse_args(argv)
    for variant in args.variant:
        n = write_variant(args.pdnc, args.out, variant, args.novel)
        print(f"{variant}: {n} novels -> {args.out / variant}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
