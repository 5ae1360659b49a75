"""Front/back matter, paragraphs and chapters of a book's text, all as spans.

Project Gutenberg boilerplate is recognised by its START/END markers (and the older "SMALL PRINT" and
"End of the Project Gutenberg EBook" variants) and excluded as a span range; the text is never cut.
Paragraphs are runs of non-blank lines (hard-wrapped lines belong to one paragraph). Chapter headings
are short paragraphs matching the usual forms (CHAPTER I, Chapter 1, roman numerals, BOOK/PART/VOLUME,
"1." lines, 第一章, 第1回); a book without any gets synthetic sections so per-chapter views still work.
No library does heading detection for plain-text novels, hence this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fabula.book._model import Chapter
from fabula.book._spans import Span, SpanLayer

# --- Project Gutenberg boilerplate ---------------------------------------------------------------
_PG_START = re.compile(
    r"^[ \t]*\*{3}[ \t]*START OF (?:THE |THIS )?PROJECT GUTENBERG[^\n]*$"
    r"|^[ \t]*\*END\*THE SMALL PRINT[^\n]*$"
    r"|^[ \t]*\*{3}[ \t]*START OF THE PROJECT GUTENBERG[^\n]*$",
    re.I | re.M,
)
_PG_END = re.compile(
    r"^[ \t]*\*{3}[ \t]*END OF (?:THE |THIS )?PROJECT GUTENBERG[^\n]*$"
    r"|^[ \t]*End of (?:the )?Project Gutenberg'?s?[^\n]*$"
    r"|^[ \t]*End of Project Gutenberg[^\n]*$",
    re.I | re.M,
)
_PG_HINT = re.compile(r"project gutenberg", re.I)
_PRODUCED_BY = re.compile(
    r"\A\s*(?:(?:E-text |Etext )?(?:prepared|produced|transcribed) by[^\n]*\n(?:[^\n]+\n)*)", re.I
)
_META_LINE = re.compile(r"^(Title|Author):[ \t]*(.+)$", re.M)


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
            start = _next_line(text, match.end())
            produced = _PRODUCED_BY.match(text, start)
            if produced:
                start = produced.end()
        tail_from = max(start, len(text) - 40000)
        ends = list(_PG_END.finditer(text, tail_from))
        if ends:
            gutenberg = True
            end = ends[0].start()
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return FrontMatter(Span(start, end), gutenberg, title, author)


def _next_line(text: str, offset: int) -> int:
    newline = text.find("\n", offset)
    return len(text) if newline < 0 else newline + 1


# --- paragraphs ------------------------------------------------------------------------------------
_BLANK_LINES = re.compile(r"\n[ \t\r\f\v\u3000]*\n\s*")


def find_paragraphs(text: str, body: Span) -> SpanLayer:
    """Paragraph spans inside ``body``: separated by blank lines, trimmed of surrounding white space."""
    starts: list[int] = []
    ends: list[int] = []
    position = body.start
    for match in _BLANK_LINES.finditer(text, body.start, body.end):
        _add_trimmed(text, position, match.start(), starts, ends)
        position = match.end()
    _add_trimmed(text, position, body.end, starts, ends)
    if len(starts) <= 3 and body.end - body.start > 20000:
        # Books with one paragraph per line and no blank lines: fall back to single line breaks.
        starts, ends = [], []
        position = body.start
        for match in re.finditer(r"\n\s*", text[body.start : body.end]):
            _add_trimmed(text, position, body.start + match.start(), starts, ends)
            position = body.start + match.end()
        _add_trimmed(text, position, body.end, starts, ends)
    return SpanLayer(starts, ends)


def _add_trimmed(text: str, start: int, end: int, starts: list[int], ends: list[int]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        starts.append(start)
        ends.append(end)


# --- chapters ------------------------------------------------------------------------------------
_ROMAN = r"[IVXLCDM]+"
_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
    r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|last"
)
_NUM = rf"(?:\d+|{_ROMAN}|(?:{_NUMBER_WORDS})(?:[- ](?:{_NUMBER_WORDS}))?)"
_CHAPTER_HEADING = re.compile(
    rf"^(?:chapter|chap\.|letter|stave|canto)\s+{_NUM}\b\.?(?:\s*[.:\-—–]?\s*.{{0,100}})?$", re.I | re.S
)
_PART_HEADING = re.compile(
    rf"^(?:book|part|volume|vol\.)\s+{_NUM}\b\.?(?:\s*[.:\-—–]?\s*.{{0,100}})?$", re.I | re.S
)
_BARE_ROMAN = re.compile(rf"^{_ROMAN}\.?(?:\s*[.:\-—–]\s*.{{0,80}}|\s+[A-Z][^\n]{{0,80}})?$")
_BARE_NUMBER = re.compile(r"^\d{1,3}\.?(?:\s+[A-Z][^\n]{0,80})?$")
_ZH_HEADING = re.compile(r"^第[0-9零〇一二三四五六七八九十百千两]+[章回节卷部集篇](?:\s*.{0,40})?$")
_MAX_HEADING_CHARS = 120


def find_chapters(text: str, paragraphs: SpanLayer, body: Span, *, language: str = "en") -> list[Chapter]:
    """Chapters from heading paragraphs; synthetic sections when the book has no recognisable headings."""
    headings: list[tuple[int, str]] = []  # (paragraph index, kind)
    pairs = paragraphs.pairs()
    for i, (start, end) in enumerate(pairs):
        if end - start > _MAX_HEADING_CHARS:
            continue
        line = " ".join(text[start:end].split())
        kind = _heading_kind(line, language)
        if kind:
            headings.append((i, kind))
    # Bare numerals ("I.", "12") count only when there are several and no explicit CHAPTER headings.
    explicit = [h for h in headings if h[1] == "chapter"]
    bare = [h for h in headings if h[1] == "bare"]
    chosen = explicit if len(explicit) >= 2 else (bare if len(bare) >= 3 else explicit)
    parts = [h for h in headings if h[1] == "part"]
    if not chosen and len(parts) >= 2:
        chosen = parts
    if not chosen:
        return synthetic_sections(paragraphs, body)
    chosen_indices = sorted({i for i, _ in chosen})
    chapters: list[Chapter] = []
    for n, index in enumerate(chosen_indices):
        start, _heading_end = pairs[index]
        title = _heading_title(text, pairs, index)
        # a PART/BOOK heading right before a chapter heading starts the chapter (it is part of its title)
        if index > 0 and (index - 1, "part") in parts and (n == 0 or chosen_indices[n - 1] < index - 1):
            start = pairs[index - 1][0]
        next_start = body.end
        if n + 1 < len(chosen_indices):
            next_index = chosen_indices[n + 1]
            next_start = pairs[next_index][0]
            if next_index > 0 and (next_index - 1, "part") in parts and next_index - 1 > index:
                next_start = pairs[next_index - 1][0]
        chapters.append(Chapter(n, start, _trim_end(text, start, next_start), title, Span(*pairs[index])))
    return chapters


def _heading_kind(line: str, language: str) -> str | None:
    if language == "zh":
        return "chapter" if _ZH_HEADING.match(line) else None
    if _CHAPTER_HEADING.match(line):
        return "chapter"
    if _PART_HEADING.match(line):
        return "part"
    if _BARE_ROMAN.match(line) and not re.match(r"^I\s+[a-z]", line) and len(line) <= 90:
        # "I" alone is a pronoun starting a sentence only when followed by lower-case words
        if line in {"I"} or re.match(rf"^{_ROMAN}\.?$", line) or re.match(rf"^{_ROMAN}\.?\s*[.:\-—–]", line):
            return "bare"
        if re.match(rf"^{_ROMAN}\s+[A-Z][A-Z ,'’\-]+$", line):  # "IV THE HUMAN CHESS BOARD"
            return "bare"
    if _BARE_NUMBER.match(line):
        return "bare"
    return None


def _heading_title(text: str, pairs: list[tuple[int, int]], index: int) -> str:
    start, end = pairs[index]
    title = " ".join(text[start:end].split())
    # "CHAPTER I" followed by a short title line ("The Bertolini") makes "CHAPTER I: The Bertolini"
    if index + 1 < len(pairs):
        nxt_start, nxt_end = pairs[index + 1]
        nxt = " ".join(text[nxt_start:nxt_end].split())
        if (
            len(nxt) <= 60
            and re.match(rf"^(?:chapter\s+)?{_NUM}\.?$", title, re.I)
            and not nxt.endswith((".", ",", ";", '"', "”", "?", "!"))
            and nxt[:1].isupper()
        ):
            title = f"{title}: {nxt}"
    return title


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
