"""How the entries discovery sets aside (``book.set_aside``: named, never once shown as a person; see
`fabula.characters.find_characters`) are shown wherever a user looks for a character: the reason, a one-line
list, and the message for a name the user gives that is one of them rather than a character."""

from __future__ import annotations

from fabula.book import Book
from fabula.characters._resolve import resolve_name

#: why a discovered entry is in ``book.set_aside`` rather than the cast (`fabula.characters`' discovery)
SET_ASIDE_REASON = (
    "named but never shown as a person (no honorific, speech tag, he/she after it, person verb or address)"
)


def set_aside_list(book: Book, limit: int = 8) -> str:
    """The set-aside names with their name mentions, most named first: ``Lisbon (4), Paris (3) and 2 more``
    (empty when there are none)."""
    shown = ", ".join(f"{c.name} ({c.mention_count})" for c in book.set_aside[:limit])
    more = f" and {len(book.set_aside) - limit} more" if len(book.set_aside) > limit else ""
    return shown + more


def set_aside_message(book: Book, name: str) -> str | None:
    """For a name the user gave that names no character: why, when it names a set-aside entry (so "no such
    character" does not read as a name the book never uses); None otherwise."""
    entry = resolve_name(book.set_aside, name)
    if entry is None:
        return None
    given = " ".join(name.split())
    called = "" if given == entry.name else f" (as {entry.name!r})"
    return (
        f"{given!r} is set aside{called}, not in the cast: {SET_ASIDE_REASON}; "
        "`fabula characters` lists the names set aside"
    )
