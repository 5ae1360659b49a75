"""Character sheets: what ``fabula describe`` prints without an LLM, and what the report's panel shows.

A sheet is a character's profile (`build_profiles`: names, gender, counts, partners, characteristic lines)
plus an extractive description chosen by a `fabula.describe` method — k = 4 sentences for a description,
25 for an analysis, as in BookWorm. Everything comes from the (possibly truncated) analysed book, so a
sheet made with ``--until`` knows nothing after the reader's position.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from fabula._words import counted
from fabula.analysis import Analysis, CharacterProfile
from fabula.book import Book, Mention
from fabula.describe._extractive import K_BY_KIND, Candidate, candidate_sentences, select_sentences
from fabula.errors import InputError

MAIN_SHARE = 0.02  # a main character has at least this share of all character mentions ...
MAX_MAIN = 12  # ... and is among the most important of them


@dataclass(slots=True)
class SheetSentence:
    """A sentence of the extractive description, with where it is in the book."""

    start: int
    end: int
    chapter: int | None  # numbered from 1, as everywhere users see chapters
    text: str


@dataclass(slots=True)
class CharacterSheet:
    """One character's sheet (JSON-ready with `to_dict`)."""

    id: str
    name: str
    aliases: list[str]
    gender: str
    first_chapter: int | None
    first_offset: int | None
    mentions: int
    quotes: int
    words_spoken: int
    talks_most_with: list[dict[str, Any]]
    lines: list[str]
    kind: str
    method: str
    description: list[SheetSentence] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def text(self) -> str:
        """The sheet as plain text for a terminal."""
        out = [self.name]
        if self.aliases:
            out.append(f"  also: {', '.join(self.aliases)}")
        out.append(f"  gender: {self.gender}")
        if self.first_chapter is not None:
            out.append(f"  first appears: chapter {self.first_chapter}")
        out.append(
            f"  mentions: {self.mentions:,}; lines: {self.quotes:,} ({counted(self.words_spoken, 'word')})"
        )
        if self.talks_most_with:
            partners = ", ".join(f"{p['name']} ({p['count']})" for p in self.talks_most_with)
            out.append(f"  talks most with: {partners}")
        if self.lines:
            out.append("  characteristic lines:")
            out.extend(f'    "{line}"' for line in self.lines)
        if self.description:
            out.append(f"  {self.kind} ({self.method}, {counted(len(self.description), 'sentence')}):")
            out.extend(f"    {s.text}" for s in self.description)
        return "\n".join(out)


def main_characters(profiles: list[CharacterProfile]) -> list[CharacterProfile]:
    """The main characters: gold 'major' ones when the list says so, else the most important ones with at
    least ``MAIN_SHARE`` of all mentions (at most ``MAX_MAIN``; never none when anyone is mentioned)."""
    majors = [p for p in profiles if (p.category or "").lower() == "major"]
    if majors:
        return majors
    total = sum(p.mention_count for p in profiles) or 1
    main = [p for p in profiles if p.mention_count / total >= MAIN_SHARE][:MAX_MAIN]
    return main or profiles[:1]


def find_profile(analysis: Analysis, query: str) -> CharacterProfile:
    """The profile a name, alias or id names (InputError listing main characters when none does)."""
    from fabula.characters import resolve_name

    profile = analysis.character(query)
    if profile is None:
        character = resolve_name(analysis.book.characters, query)
        profile = analysis.character(character.id) if character is not None else None
    if profile is None:
        from fabula.characters import set_aside_message

        aside = set_aside_message(analysis.book, query)
        if aside is not None:  # named in the book, but never as a person: not "no such name"
            raise InputError(aside, "CHARACTER")
        known = ", ".join(p.name for p in main_characters(analysis.characters)) or "none found"
        if analysis.book.partial:  # a reading position: the character may come later, not be absent
            raise InputError(
                f"no character called {query!r} in the text up to the reading position "
                f"(main characters so far: {known})",
                "CHARACTER",
            )
        raise InputError(f"no character called {query!r} (main characters: {known})", "CHARACTER")
    return profile


_QUOTED = re.compile(r'"[^"]*"|\u201c[^\u201d]*\u201d')
_WORD = re.compile(r"[^\W\d_]+")
NARRATION_WORDS = 5  # fewer words outside quotation marks: a dialogue tag ("said she"), not a statement


def about_character(
    book: Book, candidate: Candidate, mentions: Sequence[Mention], quoted: Sequence[tuple[int, int]] = ()
) -> bool:
    """Whether a sentence is *about* the character, for a sheet's description: not a heading, not dialogue
    or a bare dialogue tag (at least 5 words of narration outside quotations, naming the character
    there), and not naming them only as someone's relation ("X's mother": possessive mentions only).
    ``mentions``: the character's mentions sorted by offset; ``quoted``: the book's quotation spans, sorted
    (quotation marks in the sentence are used as well)."""
    if any(
        c.heading is not None and c.heading.start < candidate.end and candidate.start < c.heading.end
        for c in book.chapters
    ):
        return False
    spans = _quoted_spans(book.text, candidate, quoted)
    outside = [
        w for w in _WORD.finditer(book.text, candidate.start, candidate.end) if not _inside(spans, w.start())
    ]
    if len(outside) < NARRATION_WORDS:
        return False
    first = bisect.bisect_left(mentions, candidate.start, key=lambda m: m.start)
    inside = list(itertools.takewhile(lambda m: m.start < candidate.end, mentions[first:]))
    narrated = [m for m in inside if not _inside(spans, m.start)]
    if inside and not narrated:
        return False
    named = [m for m in narrated if m.kind != "pronoun"] or narrated
    return not named or not all(_possessive(book.text, m.end) for m in named)


def _quoted_spans(
    text: str, candidate: Candidate, quoted: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Quotation spans overlapping the sentence: the book's quotations and any marked in the sentence."""
    first = max(0, bisect.bisect_left(quoted, (candidate.start,)) - 1)
    # sorted by start: the spans starting before the sentence's end run from ``first`` to ``stop``
    stop = bisect.bisect_left(quoted, (candidate.end,), lo=first)
    spans = [q for q in quoted[first:stop] if candidate.start < q[1]]
    marked = _QUOTED.finditer(text, candidate.start, candidate.end)
    return spans + [(m.start(), m.end()) for m in marked]


def _inside(spans: Sequence[tuple[int, int]], offset: int) -> bool:
    return any(start <= offset < end for start, end in spans)


def _possessive(text: str, end: int) -> bool:
    return text[end : end + 2] in ("'s", "\u2019s")


def sheet_candidates(book: Book, character_id: str, k: int, *, first: bool = False) -> list[Candidate]:
    """The sentences a sheet's description picks from: those `about_character`, or all naming the
    character when fewer than ``k`` are. ``first``: only the first ``k`` of those about the character
    are needed (the ``lead`` method), so the rest are not examined (a main character has hundreds)."""
    pool = candidate_sentences(book, character_id)
    mentions = sorted((m for m in book.mentions if m.character_id == character_id), key=lambda m: m.start)
    quoted = sorted((span.start, span.end) for q in book.quotes for span in q.spans)
    about = (c for c in pool if about_character(book, c, mentions, quoted))
    chosen = list(itertools.islice(about, k)) if first else list(about)
    return chosen if len(chosen) >= k else pool


def character_sheet(
    analysis: Analysis,
    profile: CharacterProfile,
    *,
    kind: str = "description",
    method: str = "lead",
    k: int | None = None,
    seed: int = 0,
) -> CharacterSheet:
    """The sheet of one analysed character with a ``kind``-sized extractive description by ``method``."""
    book = analysis.book
    size = k or K_BY_KIND[kind]
    chosen = select_sentences(
        book,
        profile.id,
        k=size,
        method=method,
        seed=seed,
        candidates=sheet_candidates(book, profile.id, size, first=method == "lead"),
    )
    description = []
    for sentence in chosen:
        chapter = book.chapter_at(sentence.start)
        description.append(
            SheetSentence(sentence.start, sentence.end, chapter.id + 1 if chapter else None, sentence.text)
        )
    from fabula.characters import shown_aliases

    aliases = shown_aliases(profile.name, profile.aliases)
    return CharacterSheet(
        id=profile.id,
        name=profile.name,
        aliases=aliases,
        gender=profile.gender,
        first_chapter=profile.first_chapter,
        first_offset=profile.first_offset,
        mentions=profile.mention_count,
        quotes=profile.quote_count,
        words_spoken=profile.words_spoken,
        talks_most_with=[{"id": p.id, "name": p.name, "count": p.count} for p in profile.partners[:3]],
        lines=list(profile.lines),
        kind=kind,
        method=method,
        description=description,
    )
