"""Ranks written lowercase ("said the general") as mentions of the one character who bears the rank."""

from __future__ import annotations

import pytest

from fabula.book import Character, book_from_text
from fabula.characters import find_characters
from fabula.characters._ranks import rank_holders
from fabula.quotes import attribute_quotes, detect_quotes

PASSAGE = (
    "Eleanor and Henry walked with General Vance. There was a pause.\n\n"
    '"It is late," said the general, with a look at Eleanor. The general pause was long.\n\n'
    '"Yes," said Eleanor.\n\nThe general\'s carriage was at the door, and the general smiled.\n'
)
CAST = [
    Character("g", "General Vance", gender="male", source="gold"),
    Character("e", "Eleanor Vance", {"Eleanor": 0}, gender="female", source="gold"),
    Character("h", "Henry Vance", {"Henry": 0}, gender="male", source="gold"),
]


def _ranks(text: str, gold: list[Character] | None) -> list[tuple[int, str | None]]:
    book = book_from_text(text)
    detect_quotes(book)
    find_characters(book, gold=gold)
    return [
        (m.start, m.character_id)
        for m in book.mentions
        if book.text[m.start : m.end].lower() == "the general"
    ]


@pytest.mark.parametrize("gold", [CAST, None], ids=["gold list", "discovered"])
def test_the_rank_in_lowercase_names_its_one_holder(gold: list[Character] | None) -> None:
    found = _ranks(PASSAGE, gold)
    starts = [PASSAGE.index(s) for s in ("the general,", "The general'", "the general smiled")]
    assert [start for start, _ in found] == starts  # not "The general pause": a noun of the book follows
    assert len({who for _, who in found}) == 1 and found[0][1] != "e"
    book = book_from_text(PASSAGE)
    detect_quotes(book)
    find_characters(book, gold=gold)
    general = found[0][1]
    assert attribute_quotes(book).quotes[0].speaker_id == general


def test_a_rank_two_characters_hold_goes_to_the_one_the_book_names_most() -> None:
    cast = [*CAST, Character("q", "General Quill", gender="male", source="gold")]
    assert rank_holders(cast) == {}  # named equally often (not at all): no one's
    assert {who for _, who in _ranks(PASSAGE, cast)} == {"g"}  # General Vance named, General Quill never
    both = PASSAGE.replace("There was a pause.", "General Quill was there. There was a pause.")
    assert _ranks(both, cast) == []  # once each: no clear holder
    twice = both.replace("General Vance.", "General Vance. General Vance bowed.")
    assert {who for _, who in _ranks(twice, cast)} == {"g"}  # twice against once


def test_rank_holders_read_abbreviations_and_a_listed_rank_alone() -> None:
    cast = [
        Character("d", "Dr. Quill", gender="male", source="gold"),
        Character("c", "The Count", gender="male", source="gold"),
        Character("m", "Mr. Vance", gender="male", source="gold"),
    ]
    assert rank_holders(cast) == {"doctor": "d", "count": "c"}
