"""Quote detection: find every quotation in a book as a `Quote` with sub-spans inside the marks.

Written here rather than taken from a library because no maintained package finds dialogue in whole
novels with the conventions PDNC annotates (spans exclude the marks; ``"Yes," said he, "I will."`` is one
quote with two spans) and with the failure modes of real e-texts (stray marks, apostrophes, quotes that run
over several paragraphs). The scan is one pass over paragraphs with a small state machine per style:

* double marks: straight ``"`` (toggled, with context checks) and curly ``“ ”``;
* British single-quote dialogue ``‘ ’`` / ``'`` (an apostrophe — ``don't``, ``'tis``, ``the boys' room``, a
  dropped letter's ``goin'`` before the speech's punctuated close — never opens or closes a quote;
  punctuation may follow the close, ``'No', said he``);
* guillemets ``« »``; Chinese ``“ ”`` / ``「 」`` (with ``『 』`` nested inside);
* em-dash dialogue (a paragraph that starts with a dash is speech; `` —said he— `` breaks it).

Nested quotes stay inside the outer one. A quote left open at the end of its paragraph continues into the
next paragraph only when that paragraph opens with a mark (the multi-paragraph convention); otherwise it is
closed at the paragraph end and flagged ``"unclosed"``, so one unbalanced mark never swallows the book.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

import numpy as np

from fabula._letters import LATIN_UPPER
from fabula.book import Book, PrefixLayers, Quote, Span, prefix_layers, prefix_stable, trim_span
from fabula.characters import ABBREVIATED_HONORIFICS, SPEECH_VERBS

MAX_SEGMENT_CHARS = 6000  # a longer open quote inside one paragraph is cut at a line end and flagged
MAX_CONTINUED_PARAGRAPHS = 30  # a multi-paragraph quote longer than this is treated as unbalanced marks
MERGE_GAP_CHARS = 130  # narration between two sub-quotes of one quote is at most this long ...

# Words that legitimately start with an apostrophe (elisions); a ' before them is never an opening quote.
_ELISIONS = frozenset(
    [
        "tis",
        "twas",
        "twere",
        "twill",
        "twould",
        "em",
        "im",
        "ere",
        "n",
        "cause",
        "cos",
        "bout",
        "til",
        "till",
        "un",
        "ave",
        "ow",
        "e",
        "er",
        "is",
        "s",
        "t",
        "d",
        "ll",
        "re",
        "ve",
        "m",
        "appen",
        "ope",
        "alf",
        "ome",
        "elp",
        "ead",
        "eard",
        "er",
        "im",
        "is",
        "self",
        "spose",
        "nuff",
        "gainst",
        "mongst",
        "neath",
        "round",
        "fore",
    ]
)
_DASHES = "—―"
_PUNCT_BEFORE_CLOSE = set(".,!?;:—–-…_)*")


@dataclass(slots=True)
class _Segment:
    start: int  # first character inside the marks
    end: int
    paragraph: int
    flags: list[str] = field(default_factory=list)
    continues: bool = False  # the quote goes on into the next paragraph


@dataclass(frozen=True, slots=True)
class QuoteStyle:
    """Which marks a book uses for dialogue."""

    kind: str  # "double", "single", "guillemet", "zh", "dash", "unmarked"

    @property
    def describe(self) -> str:
        return self.kind


#: a single mark opening a capitalised speech, at the text's start or after white space, "(", "[" or "—";
#: the mark itself is the match and the character before it is checked afterwards, so `re` skips to the
#: marks instead of trying every offset (as many matches as ``(?:^|[\s(\[—])[‘'](?=[A-Z])`` with any latin-script capital, one per mark)
_SINGLE_OPEN = re.compile(rf"[‘'](?<![^\s(\[—].)(?=[{LATIN_UPPER}])")
_DASH_LINE = re.compile(r"(?m)^[ \t]*(?:[—―]|--)")  # a line that opens with a dash


def detect_quote_style(book: Book) -> QuoteStyle:
    """Guess the dialogue convention from mark counts over the body."""
    text = book.text[book.body.start : book.body.end]
    if book.meta.language == "zh":
        corner = text.count("「")
        curly = text.count("“")
        return QuoteStyle("zh-corner" if corner > curly else "zh")
    return _style(text, len(_SINGLE_OPEN.findall(text)), len(_DASH_LINE.findall(text)))


def _style(text: str, single_open: int, dash_paragraphs: int) -> QuoteStyle:
    """The style of a body ``text`` (not Chinese) with these many `_SINGLE_OPEN` and `_DASH_LINE` matches."""
    double = text.count('"') + text.count("“") + text.count("”")
    guillemet = text.count("«") + text.count("»")
    counts = {
        "double": double / 2,
        "single": single_open,
        "guillemet": guillemet / 2,
        "dash": dash_paragraphs,
    }
    kind = max(counts, key=lambda k: counts[k])
    if sum(counts.values()) * _UNMARKED_SPAN < len(text):  # hardly a mark: dialogue with none at all?
        tags = sum(1 for tag in _INLINE_TAG.finditer(text) if _is_tag(text, tag))
        if tags >= _UNMARKED_MIN_TAGS and tags > sum(counts.values()):
            return QuoteStyle("unmarked")
    if counts[kind] == 0:
        kind = "double"
    return QuoteStyle(kind)


def detect_quotes(book: Book) -> list[Quote]:
    """Find the quotations of ``book``, set ``book.quotes`` (ids ``Q0``.. in text order) and return them."""
    layers = prefix_layers(book)
    if layers is not None and book.meta.language != "zh":
        segments = _prefix_segments(book, layers)
    else:
        segments = _scan(book, detect_quote_style(book))
    quotes = _group(book, segments)
    if book.until is not None:
        quotes = _drop_cut_quote(book, quotes)
    book.quotes = quotes
    return quotes


def _drop_cut_quote(book: Book, quotes: list[Quote]) -> list[Quote]:
    """In a book cut at a reading position, drop the last quote when the cut leaves it open: its rest
    lies beyond the position, and a fragment ("A wooden-legged ma") is not what the speaker said."""
    if not quotes or "unclosed" not in quotes[-1].flags:
        return quotes
    last_paragraph_start = int(book.paragraphs.starts[-1]) if len(book.paragraphs) else 0
    return quotes[:-1] if quotes[-1].end >= last_paragraph_start else quotes


# --- scanning ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _WholeScan:
    """The whole book's scan for `PrefixLayers`: its style, where its `_SINGLE_OPEN` and `_DASH_LINE`
    matches start and end (body offsets), and each paragraph's segments with the scan's state after it."""

    style: QuoteStyle
    singles: tuple[list[int], list[int]]
    dashes: tuple[list[int], list[int]]
    rows: list[tuple[list[_Segment], int]]


@prefix_stable("quotes.scan")
def _whole_scan(book: Book) -> _WholeScan:
    text = book.text[book.body.start : book.body.end]
    singles, dashes = list(_SINGLE_OPEN.finditer(text)), list(_DASH_LINE.finditer(text))
    style = _style(text, len(singles), len(dashes))
    rows: list[tuple[list[_Segment], int]] = []
    _scan(book, style, rows=rows)
    return _WholeScan(
        style,
        ([m.start() for m in singles], [m.end() for m in singles]),
        ([m.start() for m in dashes], [m.end() for m in dashes]),
        rows,
    )


def _prefix_segments(book: Book, layers: PrefixLayers) -> list[_Segment]:
    """`_scan` with `detect_quote_style` of a book cut through ``layers``, from the whole book's scan
    where it is settled (`PrefixLayers.settled`), the same segments. The style counts: a match of either
    pattern reads at most a line and the character around it. The scan: a paragraph's segments read
    its own text and the next paragraph's first 13 characters, and the scan carries only the count of
    paragraphs a quote has continued over; paragraphs whose next one starts before the settled offset
    are settled."""
    whole: _WholeScan = layers.layer("quotes.scan")
    settled = layers.settled(book) - book.body.start  # a body offset, as the style matches'
    text = book.text[book.body.start : book.body.end]
    counts = []
    for pattern, (starts, ends) in ((_SINGLE_OPEN, whole.singles), (_DASH_LINE, whole.dashes)):
        kept = bisect.bisect_left(starts, settled)
        resume = ends[kept - 1] if kept else 0  # a scan resumed on the same text: "^" only at its start
        counts.append(kept + len(pattern.findall(text, resume)))
    style = _style(text, counts[0], counts[1])
    if style != whole.style:  # the text so far reads as another convention: nothing carries over
        return _scan(book, style)
    done = min(_settled_paragraphs(book, settled + book.body.start), len(whole.rows))
    segments = [segment for found, _ in whole.rows[:done] for segment in found]
    continuing = whole.rows[done - 1][1] if done else 0
    return segments + _scan(book, style, start_at=done, continuing=continuing)


def _settled_paragraphs(book: Book, settled: int) -> int:
    """How many of the scan's paragraphs are settled: those whose next paragraph starts before the
    ``settled`` offset (the scan's first paragraph is the first to end after the body's start)."""
    first = int(np.searchsorted(book.paragraphs.ends, book.body.start, side="right"))
    ahead = int(np.searchsorted(book.paragraphs.starts, settled, side="left"))  # starting before it
    return max(0, ahead - 1 - first)


def _scan(
    book: Book,
    style: QuoteStyle,
    *,
    start_at: int = 0,
    continuing: int = 0,
    rows: list[tuple[list[_Segment], int]] | None = None,
) -> list[_Segment]:
    """The segments of the body's paragraphs, from the ``start_at``-th on with ``continuing`` paragraphs
    continued over so far; with ``rows``, each paragraph's segments and the count after it are appended."""
    text = book.text
    paragraphs = [
        (i, s, e)
        for i, (s, e) in enumerate(book.paragraphs.pairs())
        if e > book.body.start and s < book.body.end
    ]
    segments: list[_Segment] = []
    # continuing: the number of paragraphs the current quote has continued over
    for position in range(start_at, len(paragraphs)):
        index, start, end = paragraphs[position]
        if style.kind in ("dash", "unmarked"):
            found = (_dash_segments if style.kind == "dash" else _unmarked_segments)(text, start, end, index)
            segments.extend(found)
            if rows is not None:
                rows.append((found, continuing))
            continue
        found = _paragraph_segments(text, start, end, index, style)
        if found and found[-1].continues:
            next_para = paragraphs[position + 1] if position + 1 < len(paragraphs) else None
            if (
                next_para is not None
                and _opens_with_mark(text, next_para[1], style)
                and continuing < (MAX_CONTINUED_PARAGRAPHS)
            ):
                continuing += 1
            else:
                found[-1].continues = False
                found[-1].flags.append("unclosed")
                continuing = 0
        else:
            continuing = 0
        segments.extend(found)
        if rows is not None:
            rows.append((found, continuing))
    return segments


def _opens_with_mark(text: str, start: int, style: QuoteStyle) -> bool:
    first = text[start : start + 1]
    if style.kind == "double":
        return first in '"“'
    if style.kind == "single":
        return first in "'‘" and not _is_elision(text, start)
    if style.kind == "guillemet":
        return first in "«»"
    if style.kind == "zh-corner":
        return first == "「"
    return first == "“"


def _paragraph_segments(text: str, start: int, end: int, index: int, style: QuoteStyle) -> list[_Segment]:
    """Quoted stretches of one paragraph (a state machine over its marks)."""
    if style.kind == "double":
        marks = _double_marks(text, start, end)
    elif style.kind == "single":
        marks = _single_marks(text, start, end)
    elif style.kind == "guillemet":
        marks = [
            (m.start(), "open" if m.group() == "«" else "close") for m in re.finditer("[«»]", text[start:end])
        ]
        marks = [(start + p, kind) for p, kind in marks]
    else:
        opener, closer = ("「", "」") if style.kind == "zh-corner" else ("“", "”")
        marks = [
            (start + m.start(), "open" if m.group() == opener else "close")
            for m in re.finditer(f"[{opener}{closer}]", text[start:end])
        ]
    segments: list[_Segment] = []
    open_at: int | None = None
    for offset, kind in marks:
        if open_at is None:
            if kind in ("open", "either"):
                open_at = offset + 1
            # a lone closing mark with nothing open is ignored (a stray mark or a continued quote's end)
            continue
        if kind in ("close", "either"):
            if offset > open_at:
                segments.append(_Segment(open_at, offset, index))
            open_at = None
        # an "open" while open: a nested or stray opener; keep the outer quote going
    if open_at is not None and open_at < end:
        segment = _Segment(open_at, end, index, continues=True)
        segments.append(segment)
    return [_bounded(text, s) for s in segments]


def _bounded(text: str, segment: _Segment) -> _Segment:
    """Cut an implausibly long open quote at a line end (bad input: an unbalanced mark)."""
    if segment.end - segment.start <= MAX_SEGMENT_CHARS:
        return segment
    cut = text.rfind("\n", segment.start, segment.start + MAX_SEGMENT_CHARS)
    if cut <= segment.start:
        cut = segment.start + MAX_SEGMENT_CHARS
    return _Segment(segment.start, cut, segment.paragraph, [*segment.flags, "unclosed"], False)


def _double_marks(text: str, start: int, end: int) -> list[tuple[int, str]]:
    marks: list[tuple[int, str]] = []
    for match in re.finditer('["“”]', text[start:end]):
        offset = start + match.start()
        char = match.group()
        if char == "“":
            marks.append((offset, "open"))
        elif char == "”":
            marks.append((offset, "close"))
        else:
            marks.append((offset, "either"))
    return marks


def _single_marks(text: str, start: int, end: int) -> list[tuple[int, str]]:
    """Opening/closing single quotes of one paragraph, apostrophes left out."""
    marks: list[tuple[int, str]] = []
    is_open = False
    for match in re.finditer("['‘’]", text[start:end]):
        offset = start + match.start()
        before = text[offset - 1] if offset > start else " "
        after = text[offset + 1] if offset + 1 < end else " "
        if before.isalnum() and after.isalnum():
            continue  # don't, o'clock, Jack's
        if not is_open:
            if _may_open(before, after) and (
                not _is_elision(text, offset) or _resumes_speech(text, start, offset, marks)
            ):
                marks.append((offset, "open"))
                is_open = True
            continue
        if before.isspace() and not after.isspace():
            continue  # an opener (nested or elision) while open
        if before in _PUNCT_BEFORE_CLOSE or (
            (after in _PUNCT_AFTER_CLOSE or (after.isspace() and _closes_here(text, offset, end)))
            and not _word_end_elision(text, offset, end)
        ):
            marks.append((offset, "close"))
            is_open = False
    return marks


#: what a speech tag ends in before the speech goes on (``'Pride,' observed Mary, 'is …'``)
_TAG_ENDS = (",", ":", ";", "-", "—")


def _may_open(before: str, after: str) -> bool:
    """A single mark between these two characters can open a speech (or begin an elided word): white
    space, a bracket, a dash or a double mark before it, a character after it."""
    return (before.isspace() or before in '([—-"“') and not after.isspace()


#: punctuation right after a closing single mark that follows a letter: British logical punctuation
#: (``'I don't know', said Tom``) or an elided letter before the speech's own punctuation (``goin',``)
_PUNCT_AFTER_CLOSE = frozenset(".,;:!?—–-…)")


def _word_end_elision(text: str, offset: int, end: int) -> bool:
    """A mark after a word's last letter inside an open speech is an elided letter (``goin'``, ``an'``,
    ``o'``), not the speech's close, when the paragraph closes a speech after punctuation later on
    (``'I'm goin' down,' said he``) before any mark opens one: a capitalised speech, or one resumed after
    a tag's comma (``'Hush' said Mary, 'the baby'``). A lowercase word after a mark inside a speech is
    elided (``'tention``, ``'long``), as a quote inside a single-marked speech takes double marks. Read
    from the paragraph alone: a close after a letter (``'Hush' he said``, British ``'No', said he``) has
    no punctuated close after it before the next speech opens."""
    for match in re.finditer("['‘’]", text[offset + 1 : end]):
        at = offset + 1 + match.start()
        before, after = text[at - 1], text[at + 1] if at + 1 < end else " "
        if before.isalnum() and after.isalnum():
            continue  # inside a word
        if _may_open(before, after):
            if not _is_elision(text, at) and (
                after.isupper() or _interrupts(text[offset + 1 : at]) or _resuming_word(text, at)
            ):
                return False  # a speech opens first: the mark closed the one before it
            continue  # an elided word ('tention) inside the speech
        if before in _PUNCT_BEFORE_CLOSE:
            return True
    return False


#: function words that open a clause: a speech resumed in lowercase after an interruption starts with one
#: (``'You see' she tapped the book 'we don't …'``), while a lowercase word that an elision clipped does
#: not (``'tention``, ``'specially``, ``'long``; ``'at`` for "that" is why ``at`` is left out)
# fmt: off
_RESUMING_WORDS = frozenset([
    "a", "an", "and", "as", "but", "for", "he", "her", "his", "how", "i", "if", "in", "it", "my", "no",
    "nor", "not", "now", "of", "on", "or", "our", "she", "so", "that", "the", "their", "then", "there",
    "they", "this", "though", "to", "we", "what", "when", "where", "which", "who", "why", "with", "yet",
    "you", "your",
])
# fmt: on


def _resuming_word(text: str, at: int) -> bool:
    match = re.match(r"[a-z]+\b", text[at + 1 : at + 16])
    return match is not None and match.group() in _RESUMING_WORDS


def _interrupts(gap: str) -> bool:
    """Whether the narration ``gap`` between two single marks sets off a speech resumed in lowercase: it
    ends in a tag's comma or a dash (``'Hush' said Mary, 'the baby'``), or a dash or the run of spaces a
    text leaves where it dropped the dashes opens or closes it (``'I should say'   the doctor went on
    'that …'``). A lone space around a lowercase word after a mark is an elided word's (``much 'tention``)."""
    stripped = gap.rstrip()
    return stripped.endswith(_TAG_ENDS) or gap.startswith(("  ", "—", "-")) or gap.endswith("  ")


def _resumes_speech(text: str, start: int, offset: int, marks: list[tuple[int, str]]) -> bool:
    """A mark after a speech tag's comma or dash, once a quote of the paragraph has closed, reopens the
    speech even before a word that could be an elision: ``'Pride,' observed Mary, 'is a failing'``."""
    if not marks or marks[-1][1] != "close":
        return False
    return text[start:offset].rstrip().endswith(_TAG_ENDS)


def _closes_here(text: str, offset: int, end: int) -> bool:
    """A letter + quote + space: a closing quote unless it reads as a plural possessive (``boys' room``)."""
    rest = text[offset + 1 : min(end, offset + 40)].lstrip()
    if not rest:
        return True
    return not (text[offset - 1] in "sS" and rest[0].islower())


#: elisions that are written capitalised at the start of a sentence ("'Tis true"), and the older "'T is",
#: "'T ain't" (a lone ``T`` before a space); a capitalised word after a mark is otherwise the first word
#: of a speech ("'Is he married?'", "'T. Smith,' he read")
_CAPITALISED_ELISIONS = frozenset(["tis", "twas", "twere", "twill", "twould"])


def _is_elision(text: str, offset: int) -> bool:
    match = re.match(r"([A-Za-z]+)( ?)", text[offset + 1 : offset + 12])
    if match is None:
        return False
    word, space = match.groups()
    if word[0].isupper():
        return word.lower() in _CAPITALISED_ELISIONS or (word == "T" and bool(space))
    return word in _ELISIONS


_SPOKEN_TO = re.compile(r"\b[Yy]ou(?:rs?|rself|rselves)?\b")  # "you", "your", "yourself"
_UNMARKED_SPAN = 2000  # characters: a text with fewer marks than one per this many may have none for speech
_UNMARKED_MIN_TAGS = 10  # ... and is read as unmarked dialogue with at least this many tags (`_INLINE_TAG`)
_DASH_START = re.compile(r"\s*(?:[—―]|--)\s*")
_DASH_BREAK = re.compile(r"\s+(?:[—―]|--)|(?:[—―]|--)(?=[\s.,;:]|$)")


#: a name (up to four capitalised words, a period only after a title or an initial: "said Nora. With Tom"
#: is a tag and a new sentence), a subject pronoun, or "the" and a noun: a speech tag's speaker
_ABBREVIATED = "|".join(sorted((h.capitalize() for h in ABBREVIATED_HONORIFICS), key=len, reverse=True))
_NAME_WORD = rf"(?:(?:{_ABBREVIATED})\.|[A-Z]\.|[A-Z][\w'’-]*)"
_TAG_SPEAKER = rf"(?:{_NAME_WORD}(?:[ \t]+{_NAME_WORD}){{0,3}}|he|she|I|they|we|the[ \t]+[a-z]+)"
#: a speech tag set off inside a dash speech by a comma, "?" or "!" and no dash ("— Too late, said Kit.",
#: "— Too late, Nora answered, and …"): the verb first (a word may stand before the speaker: "thought poor
#: Nora"; more words after: "asked Kit of Nora as they parted") or the speaker first (then at most one
#: word: "Kit said quietly"), up to the clause's end
_INLINE_TAG = re.compile(
    rf"(?<=[,!?])[ \t\n]+(?:(?P<verb_first>[a-z]+)[ \t\n]+(?:[a-z]+[ \t]+)?{_TAG_SPEAKER}"
    rf"(?:[ \t\n]+[\w'’-]+){{0,12}}"
    rf"|{_TAG_SPEAKER}[ \t\n]+(?P<verb_after>[a-z]+)(?:[ \t\n]+[a-z]+)?)[ \t]*(?P<stop>[.,;:]|(?=\s*$))"
)
#: a dash that opens a speech inside a paragraph of narration: after a colon or a sentence's end, or
#: after a speech verb and its comma ("Nora replied, — I will not", "a voice came: — My dear",
#: "She turned. — I tell you"), before a capital
_DASH_OPENING = re.compile(rf"(?:[:.!?]|\b(?P<verb>[a-z]+),)[ \t\n]*(?:[—―]|--)[ \t\n]*(?=[{LATIN_UPPER}])")
_SENTENCE_END = re.compile(r"[.!?]")


def _is_tag(text: str, tag: re.Match[str]) -> bool:
    """Whether an `_INLINE_TAG` match is a speech tag: its verb is a speech verb, or it follows "!" or
    "?" verb first (a lowercase word there goes on no sentence: "Ashore! cried the boatman")."""
    return (tag["verb_first"] or tag["verb_after"]) in SPEECH_VERBS or bool(
        tag["verb_first"] and text[tag.start() - 1] in "!?"
    )


def _inline_tag(text: str, start: int, end: int) -> re.Match[str] | None:
    """The first speech tag (`_is_tag`) that `_INLINE_TAG` finds in ``text[start:end]``."""
    for tag in _INLINE_TAG.finditer(text, start, end):
        if _is_tag(text, tag):
            return tag
    return None


def _unmarked_segments(text: str, start: int, end: int, index: int) -> list[_Segment]:
    """Dialogue with no marks at all (``Are you coming? he said.``, as some novels of today write it): a
    paragraph with a speech tag (`_inline_tag`) is speech from its start to the tag, and after a tag
    ending in a comma on to the next tag or the paragraph's end; after one ending the sentence the rest
    is narration. A paragraph with no tag is speech when it speaks to someone or asks or exclaims
    (`_SPOKEN_TO`: "you", or a closing "?" or "!"; on the 14 tuning novels without their marks 93 % of such
    paragraphs hold a speech), narration otherwise."""
    tag = _inline_tag(text, start, end)
    if tag is None:
        spoken = _SPOKEN_TO.search(text, start, end) or text[start:end].rstrip(" \t\r\n'’)_").endswith(
            ("?", "!")
        )
        return [_Segment(start, end, index)] if spoken else []
    segments: list[_Segment] = []
    position = start
    while tag is not None:
        segments.append(_Segment(position, tag.start(), index))
        if tag["stop"] != ",":
            return segments
        position = tag.end()
        tag = _inline_tag(text, position, end)
    if position < end:
        segments.append(_Segment(position, end, index))
    return segments


def _speech_opening(text: str, start: int, end: int) -> int | None:
    """Where a paragraph of narration opens a dash speech (`_DASH_OPENING`), if it does."""
    for opening in _DASH_OPENING.finditer(text, start, end):
        if opening["verb"] is None or opening["verb"] in SPEECH_VERBS:
            return opening.end()
    return None


def _dash_segments(text: str, start: int, end: int, index: int) -> list[_Segment]:
    """Em-dash dialogue: a paragraph opens with a dash (or its narration opens one after a colon, a
    sentence or a speech verb: ``Nora replied, — I will not``); `` —said he— `` interrupts the speech, and so does a
    tag set off by a comma alone (``— Too late, said Kit.``, as translations and Irish novels write it).
    After a tag ending in a comma the speech goes on unless a dash opens it again before the sentence
    ends (``— Oh, cried Kit, warmly. — It is madness.``); after one that ends the sentence the
    narration goes on until a dash opens speech again."""
    head = _DASH_START.match(text, start, end)
    position = head.end() if head is not None else _speech_opening(text, start, end)
    if position is None:
        return []
    segments: list[_Segment] = []
    speaking = True
    while position < end:
        brk = _DASH_BREAK.search(text, position, end)
        stop = brk.start() if brk else end
        tag = _inline_tag(text, position, stop) if speaking else None
        if tag is not None:
            segments.append(_Segment(position, tag.start(), index))
            position = tag.end()
            speaking = tag["stop"] == ","
            close = _SENTENCE_END.search(text, position, end)
            if speaking and brk is not None and (close is None or brk.start() <= close.end()):
                position = brk.end()  # the tag's clause runs on to the dash that opens the speech again
                while position < end and text[position].isspace():
                    position += 1
            continue
        if speaking and stop > position:
            segments.append(_Segment(position, stop, index))
        if brk is None:
            break
        position = brk.end()
        while position < end and (text[position].isspace() or (not speaking and text[position] in ".,;:")):
            position += 1
        speaking = not speaking
    return segments


# --- grouping sub-quotes into quotes -----------------------------------------------------------------


def _group(book: Book, segments: list[_Segment]) -> list[Quote]:
    """Join sub-quotes interrupted by a short narration (``"Yes," said he, "I will."``) into one quote."""
    text = book.text
    groups: list[list[_Segment]] = []
    for segment in segments:
        segment = _trimmed(text, segment)
        if segment.end <= segment.start:
            continue
        if groups and _same_quote(text, groups[-1][-1], segment):
            groups[-1].append(segment)
        else:
            if groups and groups[-1][-1].continues:
                segment.flags.append("continuation")  # the same speech, one paragraph on
            groups.append([segment])
    groups = [g for g in groups if not _is_mention_quote(text, g)]
    quotes = []
    for i, group in enumerate(groups):
        flags = sorted({f for s in group for f in s.flags})
        if group[-1].continues:
            flags.append("continues")  # the speech goes on in the next quote (next paragraph)
        quotes.append(Quote(id=f"Q{i}", spans=[Span(s.start, s.end) for s in group], flags=flags))
    return quotes


def _same_quote(text: str, previous: _Segment, segment: _Segment) -> bool:
    if previous.continues:
        return False  # PDNC counts each paragraph of a long speech as its own quote
    if previous.paragraph != segment.paragraph:
        return False
    gap = text[previous.end : segment.start]
    narration = gap.strip(" \t\r\n\"'“”‘’«»「」")  # \r: a CRLF file's line breaks too
    if len(narration) >= MERGE_GAP_CHARS or narration.endswith(":"):
        return False  # a long narration, or one introducing a new utterance
    said = text[previous.start : previous.end].rstrip(" \"'”’»」")
    # A sub-quote that ends a sentence starts a new quote after the narration (PDNC's convention).
    return not said.endswith(".") and not (
        narration.endswith(("-", "—")) and not said.endswith((",", "!", "?"))
    )


def _is_mention_quote(text: str, group: list[_Segment]) -> bool:
    """A short quoted phrase inside a running sentence (``the word "clever"``) is not an utterance."""
    if len(group) > 1:
        return False
    start, end = group[0].start, group[0].end
    before = text[max(0, start - 12) : start - 1].rstrip()
    if not before or not before[-1].isalpha():
        return False
    words = len(text[start:end].split())
    return words <= 3 or (words <= 6 and text[end - 1] not in ".!?,")


def _trimmed(text: str, segment: _Segment) -> _Segment:
    start, end = trim_span(text, segment.start, segment.end)
    return _Segment(start, end, segment.paragraph, list(segment.flags), segment.continues)
