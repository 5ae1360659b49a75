"""The `Analysis` types: what `fabula.pipeline.analyze_book` returns and what `fabula.report` renders.

They sit below both the pipeline and the report (each imports them, neither imports the other), beside
`fabula.book` whose `Book` they wrap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabula.book import GENERIC_FILE_STEMS, Book


@dataclass(slots=True)
class Partner:
    """A conversation partner of a character and how many lines passed between them."""

    id: str
    name: str
    count: int  # quotes either of them addressed to the other (explicitly or by turn-taking)


@dataclass(slots=True)
class CharacterProfile:
    """Everything the report shows about one character; computed without an LLM.

    ``description`` is left empty here: the abstractive description task fills it later.
    """

    id: str
    name: str
    aliases: dict[str, int]
    gender: str
    gender_confidence: float
    rank: int
    source: str
    category: str | None
    mention_count: int
    quote_count: int
    words_spoken: int
    first_offset: int | None
    first_chapter: int | None  # 1-based position in ``book.chapters``
    presence: list[int]  # mentions per chapter, one entry per chapter of the (visible) book
    partners: list[Partner]
    profile: list[str]  # extractive description: the first sentences that name the character (lead-k)
    lines: list[str] = field(default_factory=list)  # most characteristic attributed lines
    description: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """`dataclasses.asdict` of the profile written out: the same keys in the same order, with fresh
        containers. ``characters.jsonl`` is one of these per character, and asdict's generic recursion (a
        deep copy of every value) was about a sixth of writing the data files of a novel."""
        return {
            "id": self.id,
            "name": self.name,
            "aliases": dict(self.aliases),
            "gender": self.gender,
            "gender_confidence": self.gender_confidence,
            "rank": self.rank,
            "source": self.source,
            "category": self.category,
            "mention_count": self.mention_count,
            "quote_count": self.quote_count,
            "words_spoken": self.words_spoken,
            "first_offset": self.first_offset,
            "first_chapter": self.first_chapter,
            "presence": list(self.presence),
            "partners": [{"id": p.id, "name": p.name, "count": p.count} for p in self.partners],
            "profile": list(self.profile),
            "lines": list(self.lines),
            "description": self.description,
        }


@dataclass(slots=True)
class Analysis:
    """A whole analysed book: the `Book` (with characters, mentions, attributed quotes) and per-character stats."""

    book: Book
    characters: list[CharacterProfile]
    conversations: dict[tuple[str, str], int]  # unordered pair (sorted ids) -> lines exchanged
    settings: dict[str, Any]
    timings: dict[str, float] = field(default_factory=dict)  # stage -> seconds
    _summary: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    def character(self, character_id: str) -> CharacterProfile | None:
        for profile in self.characters:
            if profile.id == character_id:
                return profile
        return None

    def summary(self) -> dict[str, Any]:
        """A small JSON-ready summary (for manifests, index pages and the CLI's summary line); computed once."""
        if self._summary is not None:
            return self._summary
        quotes = self.book.quotes
        attributed = sum(1 for q in quotes if q.speaker_id)
        self._summary = {
            "title": self.book.meta.title,
            "author": self.book.meta.author,
            "words": self.book.word_count,
            "chapters": len(self.book.chapters),
            "characters": len(self.characters),
            "quotes": len(quotes),
            "attributed": attributed,
            "top_characters": [c.name for c in self.characters[:5]],
            "until": self.book.until,
        }
        return self._summary


__all__ = ["GENERIC_FILE_STEMS", "Analysis", "CharacterProfile", "Partner"]
