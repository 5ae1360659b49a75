"""Character sheets: what ``fabula describe`` prints without an LLM, and what the report's panel shows.

A sheet is a character's profile (`build_profiles`: names, gender, counts, partners, characteristic lines)
plus an extractive description chosen by a `fabula.describe` method — k = 4 sentences for a description,
25 for an analysis, as in BookWorm. Everything comes from the (possibly truncated) analysed book, so a
sheet made with ``--until`` knows nothing after the reader's position.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from fabula.analysis import Analysis, CharacterProfile
from fabula.describe._extractive import K_BY_KIND, candidate_sentences, select_sentences
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
        out.append(f"  mentions: {self.mentions:,}; lines: {self.quotes:,} ({self.words_spoken:,} words)")
        if self.talks_most_with:
            partners = ", ".join(f"{p['name']} ({p['count']})" for p in self.talks_most_with)
            out.append(f"  talks most with: {partners}")
        if self.lines:
            out.append("  characteristic lines:")
            out.extend(f'    "{line}"' for line in self.lines)
        if self.description:
            out.append(f"  {self.kind} ({self.method}, {len(self.description)} sentences):")
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
        known = ", ".join(p.name for p in main_characters(analysis.characters)) or "none found"
        raise InputError(f"no character called {query!r} (main characters: {known})", "CHARACTER")
    return profile


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
        book, profile.id, k=size, method=method, seed=seed, candidates=candidate_sentences(book, profile.id)
    )
    description = []
    for sentence in chosen:
        chapter = book.chapter_at(sentence.start)
        description.append(
            SheetSentence(sentence.start, sentence.end, chapter.id + 1 if chapter else None, sentence.text)
        )
    aliases = sorted((a for a in profile.aliases if a != profile.name), key=lambda a: -profile.aliases[a])
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
