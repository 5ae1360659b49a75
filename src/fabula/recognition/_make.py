"""Which characters of a book can be distractors: the book's most-mentioned characters, read from a
character list beside it (PDNC's ``character_info.csv``) or given, else discovered by fabula."""

from __future__ import annotations

import re
from pathlib import Path

from fabula.annotation import annotate
from fabula.book import Book, Character, load_book
from fabula.characters import is_pseudo_name, load_character_list

DEFAULT_CANDIDATES = 20
_DESCRIPTIVE = re.compile(r"^(the|a|an)\s|'s\b|\s(of|in)\s", re.IGNORECASE)


def sibling_character_list(book_path: Path) -> Path | None:
    """``character_info.csv`` in the book's folder (the PDNC layout), if there is one."""
    candidate = book_path.parent / "character_info.csv"
    return candidate if candidate.is_file() else None


def candidate_names(
    book: Book | Path, characters: list[Character] | None = None, *, limit: int | None = DEFAULT_CANDIDATES
) -> list[str]:
    """The names of the book's ``limit`` most-mentioned characters that read as names ("Mr. Ashdown",
    not "The Waiter" or "_group"), for drawing distractors (a path is loaded; a `Book` may be one
    cut at a reading position). ``limit=None``: every such character the book mentions, GANDALF's
    population ("randomly selecting names ... for other characters from the same book", described or not)."""
    if not isinstance(book, Book):
        book = load_book(book)
    if characters is None and book.meta.source is not None:
        listed = sibling_character_list(Path(book.meta.source))
        characters = load_character_list(listed) if listed is not None else None
    cast = annotate(book, {"characters"}, gold=characters).characters
    ranked = sorted(cast, key=lambda c: -c.mention_count)
    names = [c.name for c in ranked if c.mention_count > 0 and _reads_as_name(c.name)]
    return names if limit is None else names[:limit]


def _reads_as_name(name: str) -> bool:
    return (
        not is_pseudo_name(name)
        and not _DESCRIPTIVE.search(name)
        and name[:1].isupper()
        and name.lower()
        not in {
            "sir",
            "madam",
            "narrator",
        }
    )
