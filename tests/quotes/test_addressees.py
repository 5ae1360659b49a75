"""Addressees on passages written for these tests: thoughts and self-talk address no one, an explicit
"to X" in the tag wins over the neighbouring speaker, and a line with nobody else present has none."""

from __future__ import annotations

from fabula.book import Book, Character, book_from_text
from fabula.characters import find_characters
from fabula.quotes import attribute_quotes, detect_quotes

CAST = [
    Character("alice", "Alice", gender="female", source="gold"),
    Character("turtle", "The Mock Turtle", {"Mock Turtle": 0}, gender="male", source="gold"),
    Character("gryphon", "The Gryphon", {"Gryphon": 0}, gender="male", source="gold"),
    Character("rabbit", "The White Rabbit", {"Rabbit": 0, "the Rabbit": 0}, gender="male", source="gold"),
]


def _addressees(text: str, method: str = "ranker") -> list[tuple[str | None, list[str]]]:
    book: Book = book_from_text(text)
    detect_quotes(book)
    find_characters(book, gold=CAST)
    return [(q.speaker_id, q.addressee_ids) for q in attribute_quotes(book, method=method).quotes]


def test_explicit_to_in_the_tag_wins_over_the_neighbour() -> None:
    text = (
        "Alice sat down beside the Mock Turtle and the Gryphon on the sand.\n\n"
        '"Will you tell me your history?" said Alice.\n\n'
        '"We went to school in the sea," said the Mock Turtle to the Gryphon.\n\n'
        '"So we did," said the Gryphon.\n'
    )
    for method in ("rules", "ranker"):
        result = _addressees(text, method)
        assert result[1] == ("turtle", ["gryphon"]), method  # not Alice, who spoke the turn before
        assert result[0] == ("alice", ["turtle"]), method


def test_thoughts_and_self_talk_address_no_one() -> None:
    text = (
        "Alice was considering whether the pleasure of making a daisy-chain would be worth the trouble, "
        "when a White Rabbit ran close by her.\n\n"
        "There was nothing so very remarkable in that; nor did Alice think it so very much out of the way "
        'to hear the Rabbit say to itself, "Oh dear! Oh dear! I shall be late!"\n\n'
        '"How very curious," thought Alice.\n\n'
        '"Where can he be going?" Alice asked.\n'
    )
    result = _addressees(text)
    assert result[0] == ("rabbit", [])  # said to itself
    assert result[1] == ("alice", [])  # a thought
    assert result[2][0] == "alice" and result[2][1] != ["rabbit"]  # the Rabbit is not talking with her


def test_a_line_with_nobody_else_present_has_no_addressee() -> None:
    narration = (
        "Nobody answered him, and the tide came in slowly over the sand, and the sun went down behind "
        "the long grey hills while he slept. "
    )
    text = (
        "The Gryphon sat alone on the rock and sang.\n\n"
        '"Beautiful soup, so rich and green!" said the Gryphon.\n\n'
        + narration * 8
        + '\n\n"Soup of the evening!" said the Gryphon.\n\n"Beau-ootiful soup!" he went on.\n'
    )
    assert _addressees(text) == [("gryphon", [])] * 3
