"""Map a free-text name (a user's query, an LLM's answer) to one character of a cast."""

from __future__ import annotations

from fabula.book import Character
from fabula.characters._choice import DOMINANCE, clear_winner
from fabula.characters._lexicon import HONORIFICS, NICKNAMES
from fabula.characters._text import name_key

_LEADING_WORDS = frozenset(HONORIFICS) | {"the", "a", "an", "my", "dear", "old", "young"}


def _strip_honorifics(key: str) -> str:
    words = key.split()
    while len(words) > 1 and words[0] in _LEADING_WORDS:
        words = words[1:]
    return " ".join(words)


def resolve_name(characters: list[Character], name: str) -> Character | None:
    """The character ``name`` refers to: exact alias, then case/honorific-insensitive, then a unique
    first-name/surname (or nickname) match; None when unknown or ambiguous."""
    name = " ".join(name.split()).strip(" \"'“”‘’.,;:!?")
    if not name:
        return None
    exact = [c for c in characters if name in c.all_names() or name == c.id]
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        return _most_mentioned(exact)
    key = name_key(name)
    by_key = [c for c in characters if key in {name_key(n) for n in c.all_names()}]
    if len(by_key) == 1:
        return by_key[0]
    bare = _strip_honorifics(key)
    by_bare = [c for c in characters if bare in {_strip_honorifics(name_key(n)) for n in c.all_names()}]
    if len(by_bare) == 1:
        return by_bare[0]
    if len(by_bare) > 1:
        return None
    words = bare.split()
    if not words:
        return None
    wanted = {words[0], words[-1], *NICKNAMES.get(words[0], ())}
    partial = [
        c
        for c in characters
        if any(
            wanted & {parts[0], parts[-1]}
            for parts in (_strip_honorifics(name_key(n)).split() for n in c.all_names())
            if parts
        )
    ]
    return partial[0] if len(partial) == 1 else None


def _most_mentioned(candidates: list[Character]) -> Character | None:
    """Several characters list the same alias: the clearly most mentioned one, else None."""
    # twice the runner-up, and at least twice when the runner-up is never mentioned
    return clear_winner([(c, c.mention_count) for c in candidates], at_least=2, factor=DOMINANCE)
