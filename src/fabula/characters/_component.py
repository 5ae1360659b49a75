"""The ``characters`` component of the annotation pipeline (`fabula.annotation`): the cast and its
mentions, gold or discovered, found after quote detection (discovery reads the quotes)."""

from __future__ import annotations

import re

from fabula.annotation import component
from fabula.book import Book, Character
from fabula.characters._find import find_characters


@component(
    "characters",
    requires={"quotes"},
    assigns={"characters", "mentions"},
    settings={"gold": None, "ner_model": None},
)
def characters_component(book: Book, gold: list[Character] | None, ner_model: str | None) -> list[Character]:
    """`find_characters` (``gold``: a character list to match, None: discover); on a book cut before its
    end (``book.partial``), then `hide_unseen_names`."""
    find_characters(book, gold=gold, ner_model=ner_model)
    if book.partial:
        hide_unseen_names(book)
    return book.characters


def hide_unseen_names(book: Book) -> None:
    """Spoiler safety for a truncated book: drop characters and aliases the visible text never shows.

    A gold character list knows every name in the novel, including ones a reader meets (or learns are the
    same person) only later; nothing of that may reach the outputs.
    """
    mentioned = {m.character_id for m in book.mentions if m.character_id}
    kept: list[Character] = []
    found: dict[str, bool] = {}  # name -> `_appears` (a character's name is mostly one of its aliases)
    text = book.text
    shown: dict[str, int] = {}  # a name mention's text -> where the first one starts: where to look first
    for mention in book.mentions:
        if mention.kind != "pronoun":
            shown.setdefault(text[mention.start : mention.end], mention.start)

    def appears(name: str) -> bool:
        seen = found.get(name)
        if seen is None:
            at = shown.get(name)
            seen = found[name] = (at is not None and _whole_words_at(text, name, at)) or _appears(text, name)
        return seen

    for character in book.characters:
        visible = {alias: n for alias, n in character.aliases.items() if appears(alias)}
        name_visible = appears(character.name)
        if not (name_visible or visible) and character.id not in mentioned:
            continue
        character.aliases = visible
        if not name_visible:
            character.name = max(visible, key=lambda a: (visible[a], a)) if visible else f"({character.id})"
        kept.append(character)
    ids = {c.id for c in kept}
    book.characters = kept
    for quote in book.quotes:
        if quote.speaker_id and quote.speaker_id not in ids:
            quote.speaker_id = None
        quote.addressee_ids = [a for a in quote.addressee_ids if a in ids]


_WORD_CHAR = re.compile(r"\w")


def _whole_words_at(text: str, name: str, at: int) -> bool:
    """Whether ``name``, written with single spaces, stands at ``at`` with no word character touching it:
    then `_appears` is true (its pattern matches there), read in constant time where `_appears` may scan
    much of the text (a name first met late in a long book)."""
    return (
        name != ""
        and name == " ".join(name.split())
        and text.startswith(name, at)
        and not (at and _WORD_CHAR.match(text, at - 1))
        and not _WORD_CHAR.match(text, at + len(name))
    )


def _appears(text: str, name: str) -> bool:
    """Whether ``name`` occurs in ``text`` as whole words (any white space between its words).

    The pattern starts with the first word itself and checks the character before it afterwards (a
    fixed-width look-behind over the word), so `re` scans for that literal instead of trying the
    look-behind at every offset: the same matches, about 50 times faster on a novel (this runs for every
    alias of every character at each reading position)."""
    parts = name.split()
    if not parts:
        return False
    # most names are written with single spaces somewhere: a plain substring search finds one (the
    # pattern below matches there when no word character touches it), several times faster than the
    # pattern when the first word is common ("Mr.", "the")
    literal = " ".join(parts)
    at = text.find(literal)
    if (
        at >= 0
        and not (at and _WORD_CHAR.match(text, at - 1))
        and not _WORD_CHAR.match(text, at + len(literal))
    ):
        return True
    first = parts[0]
    pattern = (
        re.escape(first)
        + rf"(?<!\w.{{{len(first)}}})"
        + "".join(r"\s+" + re.escape(part) for part in parts[1:])
        + r"(?!\w)"
    )
    return re.search(pattern, text, re.DOTALL) is not None
