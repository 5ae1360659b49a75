"""Front/back matter, paragraphs and chapters of a book's text, all as spans.

Project Gutenberg boilerplate is recognised by its START/END markers (and the older "SMALL PRINT" and
"End of the Project Gutenberg EBook" variants) and excluded as a span range; the text is never cut.
Paragraphs are runs of non-blank lines (hard-wrapped lines belong to one paragraph; \n, \r\n or \r).
Chapter headings are short paragraphs matching the usual forms (CHAPTER I, Chapter 1, CHAPTER THE
FIRST, roman numerals, "1." lines, BOOK/PART/VOLUME, 第一章, 第1回) whose numbers continue the
sequence, with a PROLOGUE before the first and an EPILOGUE after the last as chapters too; a table of contents is skipped; a book without headings gets synthetic sections so
per-chapter views still work. No library does heading detection for plain-text novels, hence this
module.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from fabula.book._model import Chapter
from fabula.book._spans import Span, SpanLayer, trim_span

# --- Project Gutenberg boilerplate ---------------------------------------------------------------
_PG_START = re.compile(
    r"^[ \t]*\*{3}[ \t]*START OF (?:THE |THIS )?PROJECT GUTENBERG[^\n]*$"
    r"|^[ \t]*\*END\*THE SMALL PRINT[^\n]*$",
    re.I | re.M,
)
_PG_END = re.compile(
    r"^[ \t]*\*{3}[ \t]*END OF (?:THE |THIS )?PROJECT GUTENBERG[^\n]*$"
    r"|^[ \t]*End of (?:the |this )?Project Gutenberg[^\n]*$",
    re.I | re.M,
)
_PG_HINT = re.compile(r"project gutenberg", re.I)
# credit lines right after the START marker ("Produced by ...", "E-text prepared by ...") and their
# continuation lines, up to the first blank line
_PRODUCED_BY = re.compile(
    r"\s*(?:(?:E-text |Etext |E-book |eBook )?(?:prepared|produced|transcribed|scanned)(?: from [^\n]*)?"
    r"\s*by\b[^\n]*\n(?:[ \t]*\S[^\n]*\n)*)",
    re.I,
)
_META_LINE = re.compile(r"^(Title|Author):[ \t]*(.+)$", re.M)
_PG_FIRST_LINE = re.compile(
    r"^\W*The Project Gutenberg (?:e-?book|etext|e-text)(?:\s+of)?\s+(.+?)(?:,?\s+by\s+(.+?))?\s*$",
    re.I | re.M,
)


@dataclass(slots=True)
class FrontMatter:
    body: Span
    gutenberg: bool
    title: str | None
    author: str | None


def find_body(text: str) -> FrontMatter:
    """Find the body of the book: the text between Project Gutenberg's START and END markers, if any."""
    start, end = 0, len(text)
    title = author = None
    gutenberg = False
    head = text[:30000]
    if _PG_HINT.search(head) or _PG_HINT.search(text[-40000:]):
        match = _PG_START.search(text, 0, min(len(text), 60000))
        if match:
            gutenberg = True
            header = text[: match.start()]
            for key, value in _META_LINE.findall(header):
                if key.lower() == "title" and title is None:
                    title = value.strip()
                elif key.lower() == "author" and author is None:
                    author = value.strip()
            first_line = _PG_FIRST_LINE.search(header[:500])
            if first_line:  # "The Project Gutenberg EBook of The Long Road, by A. Writer"
                title = title or first_line.group(1).strip()
                author = author or (first_line.group(2) or "").strip() or None
            start = _next_line(text, match.end())
            produced = _PRODUCED_BY.match(text, start)
            if produced:
                start = produced.end()
        tail_from = max(start, len(text) - 40000)
        ends = list(_PG_END.finditer(text, tail_from))
        if ends:
            gutenberg = True
            end = ends[0].start()
    return FrontMatter(Span(*trim_span(text, start, end)), gutenberg, title, author)


def _next_line(text: str, offset: int) -> int:
    newline = text.find("\n", offset)
    return len(text) if newline < 0 else newline + 1


def line_feed_view(text: str) -> str:
    """``text`` with every line break a line feed, at the same offsets: a CRLF break reads " \n" (a space
    before it) and an old Mac CR "\n". Components whose patterns know line breaks as ``\n`` (name runs
    across a wrapped line, the word before a name) read this view of a CRLF or CR file, so a book's
    analysis does not depend on how its lines end; offsets, and so every span found, stay those of the
    untouched text."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", " \n").replace("\r", "\n")


#: the spaces other than " " and a tab that typeset text puts between words: no-break (an ebook's
#: "Mr.\u00a0Tressel" keeps the title on the name's line), thin, narrow no-break and the other fixed-width
#: spaces; not the ideographic space, which indents Chinese paragraphs
_TYPESET_SPACES = "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f"
_TYPESET_SPACE = re.compile(f"[{_TYPESET_SPACES}]")
_AS_PLAIN_SPACE = str.maketrans(dict.fromkeys(_TYPESET_SPACES, " "))


def plain_view(text: str) -> str:
    """`line_feed_view` of ``text`` with every typeset space (no-break, thin, ...) a plain space, at the
    same offsets: the patterns that find names know a space as " " (a title and its name, the words of
    a name), so "Mr.\u00a0Tressel" reads as "Mr. Tressel" and an ebook's cast is that of its plain copy."""
    text = line_feed_view(text)
    return text.translate(_AS_PLAIN_SPACE) if _TYPESET_SPACE.search(text) else text


# --- paragraphs ------------------------------------------------------------------------------------
# a blank line between paragraphs, whatever the line ends (\n, \r\n, or old Mac \r)
_BLANK_LINES = re.compile(r"(?:\r\n?+|\n)[ \t\f\v\u3000]*(?:\r\n?+|\n)\s*")
#: `_BLANK_LINES` for a text with no "\r" (each alternative is then "\n" alone): searched ~6x faster
_BLANK_LINES_LF = re.compile(r"\n[ \t\f\v\u3000]*\n\s*")


def find_paragraphs(text: str, body: Span) -> SpanLayer:
    """Paragraph spans inside ``body``: separated by blank lines, trimmed of surrounding white space.

    A block of lines between blank lines is one hard-wrapped paragraph, unless its lines are too long
    to be hard-wrapped or are indented with full-width spaces (Chinese layout): then every line is a
    paragraph. A long block (`_MIN_INDENTED_BLOCK` lines) with indented lines and unindented ones after
    its first (at least `_MIN_INDENTS` of each) is hard-wrapped paragraphs that start at the indented
    lines.
    """
    starts: list[int] = []
    ends: list[int] = []
    position = body.start
    blank_lines = _BLANK_LINES if text.find("\r", body.start, body.end) >= 0 else _BLANK_LINES_LF
    for match in blank_lines.finditer(text, body.start, body.end):
        _add_block(text, position, match.start(), starts, ends)
        position = match.end()
    _add_block(text, position, body.end, starts, ends)
    if len(starts) <= 3 and body.end - body.start > 20000:
        # Books with one paragraph per line and no blank lines: fall back to single line breaks.
        starts, ends = [], []
        _add_lines(text, body.start, body.end, starts, ends)
    return SpanLayer(starts, ends)


_LINE_BREAK = re.compile(r"(?:\r\n?|\n)\s*")
_MAX_WRAPPED_LINE = 120  # mean line length above which a block's lines are not hard-wrapped
#: a line break and the indent of the next line: where a paragraph starts in a book that marks its
#: paragraphs by indenting their first lines instead of by blank lines. Such indents are a tab or a few
#: spaces (up to 8); a longer run of spaces at a line's start is no paragraph indent (the blanked speech
#: tags of the training script's sparse-tag copies made 12 false paragraph starts in 3 novels with any width)
_FIRST_LINE_INDENT = re.compile(r"(?:\r\n?|\n)[ \t]{1,8}(?=\S)")
#: first-line indents, and unindented lines after the first, that make a block such paragraphs ...
_MIN_INDENTS = 3
_MIN_INDENTED_BLOCK = 20  # ... in a block of this many lines at least (a chapter, not a letter or a song)
#: a line this long is no hard-wrapped line (wrapping makes lines of 60-80 characters): a block with one is
#: a paragraph a line, however short its dialogue lines make the mean
_UNWRAPPED_LINE = 2 * _MAX_WRAPPED_LINE


def _add_block(text: str, start: int, end: int, starts: list[int], ends: list[int]) -> None:
    """Add the paragraph(s) of one block of non-blank lines."""
    breaks = text.count("\n", start, end) or text.count("\r", start, end)
    if breaks == 0:
        _add_trimmed(text, start, end, starts, ends)
        return
    long_lines = (end - start) / (breaks + 1) > _MAX_WRAPPED_LINE or _has_unwrapped_line(text, start, end)
    chinese_indent = text.count("\n\u3000", start, end) + text.count("\r\u3000", start, end) > 0
    if long_lines or chinese_indent:
        _add_lines(text, start, end, starts, ends)
        return
    indents = _first_line_indents(text, start, end) if breaks + 1 >= _MIN_INDENTED_BLOCK else []
    if len(indents) >= _MIN_INDENTS and breaks - len(indents) >= _MIN_INDENTS:
        # hard-wrapped paragraphs told apart by the indent of their first lines, with no blank line between
        # them (lines that go on unindented after an indented one); a letter indents all its lines after
        # the first, and a song is shorter than a chapter: each stays one paragraph
        for position, indent in zip([start, *indents], [*indents, end], strict=True):
            _add_trimmed(text, position, indent, starts, ends)
        return
    _add_trimmed(text, start, end, starts, ends)  # a hard-wrapped paragraph


def _first_line_indents(text: str, start: int, end: int) -> list[int]:
    """Where the indented lines of ``[start, end)`` start (their line breaks); the regex scans only a block
    that `str.find` shows to have an indented line at all."""
    if not any(text.find(mark, start, end) >= 0 for mark in ("\n ", "\n\t", "\r ", "\r\t")):
        return []
    return [m.start() for m in _FIRST_LINE_INDENT.finditer(text, start, end)]


def _has_unwrapped_line(text: str, start: int, end: int) -> bool:
    """Whether a line of ``[start, end)`` is longer than `_UNWRAPPED_LINE` (only a block that long can
    hold one; its line breaks are found with `str.find`, fast in C)."""
    if end - start <= _UNWRAPPED_LINE:
        return False
    position = start
    newline = "\n" if text.find("\n", start, end) >= 0 else "\r"  # an old Mac file breaks its lines with CR
    while True:
        brk = text.find(newline, position, end)
        if brk < 0:
            return end - position > _UNWRAPPED_LINE
        if brk - position > _UNWRAPPED_LINE:
            return True
        position = brk + 1


def _add_lines(text: str, start: int, end: int, starts: list[int], ends: list[int]) -> None:
    """Add every line of ``[start, end)`` as a paragraph."""
    position = start
    for match in _LINE_BREAK.finditer(text, start, end):
        _add_trimmed(text, position, match.start(), starts, ends)
        position = match.end()
    _add_trimmed(text, position, end, starts, ends)


def _add_trimmed(text: str, start: int, end: int, starts: list[int], ends: list[int]) -> None:
    start, end = trim_span(text, start, end)
    if end > start:
        starts.append(start)
        ends.append(end)


# --- chapters ------------------------------------------------------------------------------------
_ROMAN = r"[IVXLCDM]+"
_UNITS = [
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_ORDINALS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
]
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "twentieth": 20,
    "thirtieth": 30,
    "fortieth": 40,
    "fiftieth": 50,
}
_WORD_VALUES: dict[str, int] = {
    **{w: n for n, w in enumerate(_UNITS, 1)},
    **{w: n for n, w in enumerate(_ORDINALS, 1)},
    **_TENS,
}
_NUMBER_WORDS = "|".join(sorted([*_WORD_VALUES, "last"], key=len, reverse=True))
_NUM = rf"(?:\d+|{_ROMAN}|(?:{_NUMBER_WORDS})(?:[- ](?:{_NUMBER_WORDS}))?)"
# what may follow the number: nothing, a separator and a title, or a capitalised title ("Chapter I The Science")
_REST = r"(?P<rest>\s*[.:\-—–]\s*\S.*|\s+[A-Z\"'“‘(\[].*)?"
# keyword and number in any case; the title after them must start upper case ("Chapter two was found" is text)
_CHAPTER_HEADING = re.compile(
    rf"^(?i:chapter|chap\.|letter|stave|canto)\s+(?i:the\s+)?(?P<num>(?i:{_NUM}))\b\.?{_REST}$", re.S
)
_PART_HEADING = re.compile(
    rf"^(?i:book|part|volume|vol\.)\s+(?i:the\s+)?(?P<num>(?i:{_NUM}))\b\.?{_REST}$", re.S
)
#: a prologue or an epilogue: a chapter of the book before the first numbered one or after the last
_EDGE_HEADING = re.compile(
    r"^(?i:(?P<edge>prologue|epilogue))\b\.?(?P<rest>\s*[.:\-—–]\s*\S.*|\s+[A-Z\"'“‘(\[].*)?$", re.S
)
_BARE_ROMAN = re.compile(
    rf"^(?P<num>{_ROMAN})(?:\.|\s*[.:\-—–]\s*(?P<rest>\S.{{0,80}})|\s+(?P<caps>[A-Z][A-Z0-9 ,'’\-!?]+))?$"
)
_BARE_NUMBER = re.compile(r"^(?P<num>\d{1,3})\.?(?:\s+(?P<rest>[A-Z][^\n]{0,80}))?$")
_ZH_NUM = "0-9０-９零〇一二三四五六七八九十百千两"
_ZH_HEADING = re.compile(rf"^第(?P<num>[{_ZH_NUM}]+)(?P<unit>[章回节卷部集篇])(?:\s*.{{0,40}})?$")
_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_MAX_HEADING_CHARS = 120
_MAX_LONG_HEADING_CHARS = 320  # "Chapter VI: The Reverend Obadiah Tolland, ... Drive Them." (four lines)


@dataclass(slots=True)
class _Heading:
    index: int  # paragraph index
    kind: str  # "chapter", "bare" (a numeral alone), "part", "prologue" or "epilogue"
    number: int | None  # the chapter number, when it can be read
    part_line: str | None = None  # "BOOK THE FIRST" written in the chapter heading's own paragraph


def find_chapters(
    text: str,
    paragraphs: SpanLayer,
    body: Span,
    *,
    language: str = "en",
    known_headings: Sequence[int] = (),
) -> list[Chapter]:
    """Chapters from heading paragraphs; synthetic sections when the book has no recognisable headings.

    Bare numerals ("I.", "12") count only when there are several and no explicit CHAPTER headings, and
    only those that continue the numbering (which drops "M. Lemaire bowed." and stray numbers).
    BOOK/PART/VOLUME headings become each chapter's ``part`` and the first chapter of a part starts
    at the part heading, so the chapters tile the body from the first heading on.
    """
    pairs = paragraphs.pairs()
    headings: list[_Heading] = []
    for i, (start, end) in enumerate(pairs):
        if end - start > _MAX_LONG_HEADING_CHARS:
            continue
        line = " ".join(text[start:end].split())
        found = _classify(line, language, long=end - start > _MAX_HEADING_CHARS)
        inline = _part_and_chapter(text[start:end], language)
        if inline is not None:  # "BOOK THE FIRST\nCHAPTER I": a chapter heading naming its part
            headings.append(_Heading(i, "chapter", inline[1], part_line=inline[0]))
        elif found and not _is_contents_block(text[start:end], language):
            headings.append(_Heading(i, found[0], found[1]))
    explicit = _drop_contents_list([h for h in headings if h.kind == "chapter"], pairs)
    bare = _drop_contents_list([h for h in headings if h.kind == "bare"], pairs)
    parts = [h for h in headings if h.kind == "part"]
    chosen = _numbered_run(explicit, drop_leading=False) if len(explicit) >= 2 else []
    if not chosen:
        chosen = _numbered_run(bare, drop_leading=True) if len(bare) >= 3 else explicit
    if len(chosen) < 2 and known_headings:  # e.g. an EPUB's chapter files with unnumbered <h1> titles
        indices = sorted({i for i in map(paragraphs.index_at, known_headings) if i is not None})
        chosen = [_Heading(i, "chapter", None) for i in indices]
        parts = [h for h in parts if h.index not in indices]
    if len(chosen) < 2 and len(parts) >= 2:
        chosen = parts
        parts = []
    if not chosen:
        return synthetic_sections(paragraphs, body)
    # a prologue before the first chapter and an epilogue after the last are chapters of their own
    prologues = [h for h in headings if h.kind == "prologue" and h.index < chosen[0].index]
    epilogues = [h for h in headings if h.kind == "epilogue" and h.index > chosen[-1].index]
    chosen = prologues[-1:] + chosen + epilogues[:1]
    part_indices = [h.index for h in parts]
    chapters: list[Chapter] = []
    previous_index = -1
    starts: list[int] = []
    part_names: list[str | None] = []
    current_part: str | None = None
    for heading in chosen:
        between = [j for j in part_indices if previous_index < j < heading.index]
        if chapters or not between:
            first = between[0] if between else heading.index
        else:  # first chapter: only the part headings right before it
            first = heading.index
            while first - 1 in part_indices:
                first -= 1
        if between:
            current_part = " ".join(text[pairs[between[-1]][0] : pairs[between[-1]][1]].split())
        if heading.part_line is not None:
            current_part = heading.part_line
        starts.append(pairs[first][0])
        part_names.append(None if heading.kind in ("prologue", "epilogue") else current_part)
        previous_index = heading.index
        chapters.append(Chapter(len(chapters), 0, 0))
    for n, heading in enumerate(chosen):
        title, heading_span = _heading_title(text, pairs, heading.index)
        if heading.part_line is not None:
            title = title[len(heading.part_line) :].strip()
        end = starts[n + 1] if n + 1 < len(chosen) else body.end
        chapters[n] = Chapter(
            n, starts[n], _trim_end(text, starts[n], end), title, heading_span, part=part_names[n]
        )
    return chapters


def _part_and_chapter(paragraph: str, language: str) -> tuple[str, int | None] | None:
    """("BOOK THE FIRST", 1) for a paragraph of two lines, a part heading and a chapter heading."""
    lines = [" ".join(line.split()) for line in paragraph.splitlines() if line.strip()]
    if len(lines) != 2:
        return None
    first, second = _classify(lines[0], language), _classify(lines[1], language)
    if first is None or second is None or first[0] != "part" or second[0] != "chapter":
        return None
    return lines[0], second[1]


def is_heading_line(line: str, language: str = "en") -> bool:
    """Whether ``line`` reads as a chapter, part, prologue or epilogue heading (never a book's title)."""
    return _classify(" ".join(line.split()), language) is not None


def _is_contents_block(paragraph: str, language: str) -> bool:
    """A table of contents kept as one block: several of its lines are headings themselves."""
    lines = [line.strip() for line in paragraph.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    kinds = [found[0] for found in map(lambda line: _classify(line, language), lines) if found]
    # "CHAPTER I.\nI GO TO STYLES" is one heading with its title, not two entries
    return len(kinds) - kinds.count("bare") >= 2 or len(kinds) >= 3


_CONTENTS_GAP = 300  # characters from one contents entry to the next


def _drop_contents_list(headings: list[_Heading], pairs: list[tuple[int, int]]) -> list[_Heading]:
    """Drop a table of contents written as one heading per paragraph before the real chapters.

    It shows as a run of headings with (almost) no text between them, after which the numbering
    starts again ("CHAPTER I. ... CHAPTER XII." in the contents, then the real "CHAPTER I.").
    """
    for k in range(1, len(headings)):
        previous, current = headings[k - 1].number, headings[k].number
        if previous is not None and current is not None and current <= previous:
            run = headings[:k]
            tight = all(
                pairs[b.index][0] - pairs[a.index][0] < _CONTENTS_GAP for a, b in itertools.pairwise(run)
            )
            return headings[k:] if k >= 2 and tight else headings
    return headings


def _classify(line: str, language: str, *, long: bool = False) -> tuple[str, int | None] | None:
    """The kind of heading ``line`` is (and its number), or None for ordinary text."""
    if language == "zh":
        match = _ZH_HEADING.match(line)
        if not match or long:
            return None
        kind = {"章": "chapter", "回": "chapter", "节": "bare"}.get(match.group("unit"), "part")
        return kind, _zh_number(match.group("num"))
    match = _CHAPTER_HEADING.match(line)
    if match and (not long or _title_like(match.group("rest") or "")):
        return "chapter", _number(match.group("num"))
    if long:
        return None
    match = _EDGE_HEADING.match(line)
    if match:
        return match.group("edge").lower(), None
    match = _PART_HEADING.match(line)
    if match:
        return "part", _number(match.group("num"))
    match = _BARE_ROMAN.match(line)
    if match and len(line) <= 90 and not _sentence_like(match.group("rest") or ""):
        return "bare", _roman_value(match.group("num"))
    match = _BARE_NUMBER.match(line)
    if match and not _sentence_like(match.group("rest") or ""):
        return "bare", int(match.group("num"))
    return None


def _title_like(rest: str) -> bool:
    """A long heading's title is in title case: few words start lower case (articles, prepositions)."""
    words = re.findall(r"[^\W\d_][\w'’-]*", rest)
    lower = sum(1 for w in words if w[0].islower())
    return bool(words) and lower <= max(2, len(words) // 3)


def _sentence_like(rest: str) -> bool:
    """ "Lemaire bowed and drew back a step." is a sentence, not a chapter title."""
    words = rest.split()
    lower = sum(1 for w in words if w[:1].islower())
    return len(words) >= 3 and rest.rstrip().endswith((".", "!", "?", ",", ";")) and lower * 2 > len(words)


def _numbered_run(headings: list[_Heading], *, drop_leading: bool) -> list[_Heading]:
    """Keep the headings that continue the numbering (n+1, a small gap, or a restart at 1 per part)."""
    if drop_leading:  # a bare "XIV." before the first "I." is a false alarm (or a list in the front matter)
        first_one = next((k for k, h in enumerate(headings) if h.number in (None, 1)), 0)
        headings = headings[first_one:]
    kept: list[_Heading] = []
    last: int | None = None
    for heading in headings:
        number = heading.number
        if last is None or number is None or number == 1 or last < number <= last + 3:
            kept.append(heading)
            if number is not None:
                last = number
    return kept


def _number(token: str) -> int | None:
    token = token.strip().lower()
    if token.isdigit():
        return int(token)
    if re.fullmatch(r"[ivxlcdm]+", token):
        return _roman_value(token)
    total = 0
    for word in re.split(r"[- ]", token):
        if word == "last":
            return None
        total += _WORD_VALUES.get(word, 0)
    return total or None


def _roman_value(token: str) -> int:
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    total = 0
    digits = [values[ch] for ch in token.lower()]
    for k, value in enumerate(digits):
        total += -value if k + 1 < len(digits) and digits[k + 1] > value else value
    return total


def _zh_number(token: str) -> int | None:
    token = token.translate(str.maketrans("０１２３４５６７８９", "0123456789"))
    if token.isdigit():
        return int(token)
    total, current = 0, 0
    for ch in token:
        if ch in _ZH_DIGITS:
            current = _ZH_DIGITS[ch]
        elif ch in "十百千":
            total += (current or 1) * {"十": 10, "百": 100, "千": 1000}[ch]
            current = 0
    return total + current or None


def _heading_title(text: str, pairs: list[tuple[int, int]], index: int) -> tuple[str, Span]:
    """The heading's text; a bare "CHAPTER I" followed by a short title line takes that line too."""
    start, end = pairs[index]
    title = " ".join(text[start:end].split())
    if index + 1 < len(pairs):
        nxt_start, nxt_end = pairs[index + 1]
        nxt = " ".join(text[nxt_start:nxt_end].split())
        if (
            len(nxt) <= 60
            and re.match(rf"^(?:chapter\s+)?(?:the\s+)?{_NUM}\.?$", title, re.I)
            and not nxt.endswith((".", ",", ";", '"', "”", "?", "!"))
            and nxt[:1].isupper()
            and _classify(nxt, "en") is None
        ):
            separator = " " if title.endswith(".") else ": "
            return f"{title}{separator}{nxt}", Span(start, nxt_end)
    return title, Span(start, end)


def _trim_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def synthetic_sections(paragraphs: SpanLayer, body: Span, *, target_chars: int = 30000) -> list[Chapter]:
    """Cut a book with no headings into sections of roughly ``target_chars`` at paragraph breaks."""
    if len(paragraphs) == 0:
        return [Chapter(0, body.start, body.end, "Whole text", None, synthetic=True)]
    sections: list[Chapter] = []
    section_start = int(paragraphs.starts[0])
    for i in range(len(paragraphs)):
        end = int(paragraphs.ends[i])
        if end - section_start >= target_chars and i + 1 < len(paragraphs):
            sections.append(
                Chapter(len(sections), section_start, end, f"Section {len(sections) + 1}", None, True)
            )
            section_start = int(paragraphs.starts[i + 1])
    sections.append(
        Chapter(
            len(sections), section_start, int(paragraphs.ends[-1]), f"Section {len(sections) + 1}", None, True
        )
    )
    if len(sections) == 1:
        sections[0].title = "Whole text"
    return sections
