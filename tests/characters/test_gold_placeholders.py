"""Gold lists in the wild: placeholder entries beside the full entry they name, and one person split
into two entries on purpose. Hand-written lists and passages."""

from __future__ import annotations

from fabula.book import Character, book_from_text
from fabula.characters import find_characters, name_key
from fabula.quotes import attribute_quotes, detect_quotes

PASSAGE = (
    "Mr. Bounderby stood before the fire. Mrs. Sparsit watched him.\n\n"
    '"I was born in a ditch," said Bounderby.\n\n'
    '"Indeed, sir," said Mrs. Sparsit.\n\n'
    '"Ay, in a ditch," said Bounderby, "and I am proud of it."\n'
)


def _placeholder_list(category: str | None = "minor", gender: str = "unknown") -> list[Character]:
    return [
        Character(
            "0", "Josiah Bounderby", {"Mr. Bounderby": 0}, gender="male", source="gold", category="major"
        ),
        Character("1", "Mrs. Sparsit", gender="female", source="gold", category="intermediate"),
        Character("2", "Bounderby", gender=gender, source="gold", category=category),  # type: ignore[arg-type]
    ]


def _mentions(gold: list[Character]) -> list[tuple[str, str | None]]:
    book = book_from_text(PASSAGE)
    find_characters(book, gold=gold)
    return [(book.text[m.start : m.end], m.character_id) for m in book.mentions if m.kind != "pronoun"]


def test_a_placeholder_surname_goes_to_the_full_entry() -> None:
    names = _mentions(_placeholder_list())
    assert names.count(("Bounderby", "0")) == 2
    assert ("Bounderby", "2") not in names
    assert ("Mr. Bounderby", "0") in names


def test_quotes_tagged_with_the_placeholder_name_go_to_the_full_entry() -> None:
    book = book_from_text(PASSAGE)
    detect_quotes(book)
    find_characters(book, gold=_placeholder_list(category=None))
    speakers = [q.speaker_id for q in attribute_quotes(book).quotes]
    assert speakers == ["0", "1", "0"]


def test_an_entry_with_known_gender_or_a_major_category_is_no_placeholder() -> None:
    # the annotator knows something about the bare-surname entry: it keeps its listed name
    assert ("Bounderby", "2") in _mentions(_placeholder_list(gender="male"))
    assert ("Bounderby", "2") in _mentions(_placeholder_list(category="intermediate"))


def test_a_bare_name_that_only_one_entry_holds_stays_its_own() -> None:
    gold = [
        Character("0", "Mrs. Sparsit", gender="female", source="gold", category="major"),
        Character("1", "Bounderby", source="gold", category="minor"),
    ]
    assert ("Bounderby", "1") in _mentions(gold)


def test_one_person_split_into_two_entries_is_counted_once_per_mention() -> None:
    # a list may split a frame-story narrator from the same man inside the story: both hold "Bounderby"
    gold = [
        Character("0", "Josiah Bounderby", {"Bounderby": 0}, gender="male", source="gold", category="major"),
        Character("1", "Bounderby", {"Mr. Bounderby": 0}, gender="male", source="gold", category="major"),
        Character("2", "Mrs. Sparsit", gender="female", source="gold", category="intermediate"),
    ]
    book = book_from_text(PASSAGE)
    detect_quotes(book)
    cast = find_characters(book, gold=gold)
    assert {c.id for c in cast} == {"0", "1", "2"}
    bounderby = [
        m for m in book.mentions if m.kind != "pronoun" and "Bounderby" in book.text[m.start : m.end]
    ]
    assert len(bounderby) == 3  # one mention per occurrence, never one per entry
    assert all(m.character_id in ("0", "1") for m in bounderby)
    speakers = [q.speaker_id for q in attribute_quotes(book).quotes]
    assert speakers[1] == "2" and speakers[0] in ("0", "1") and speakers[2] in ("0", "1")


def test_entries_told_apart_by_a_qualifier_match_their_name() -> None:
    # "Name - Story" / "Name - External": the annotator's qualifier is not in the text
    gold = [
        Character("0", "Josiah Bounderby - Story", gender="male", source="gold", category="major"),
        Character("1", "Mrs. Sparsit", gender="female", source="gold", category="intermediate"),
        Character("2", "Josiah Bounderby - External", gender="male", source="gold", category="minor"),
    ]
    names = _mentions(gold)
    bounderby = [cid for name, cid in names if "Bounderby" in name]
    assert len(bounderby) == 3 and set(bounderby) <= {"0", "2"}


def test_a_qualifier_is_no_part_of_a_name_key() -> None:
    assert name_key("Josiah Bounderby - Story") == name_key("Josiah Bounderby")
    assert name_key("Mary-Ann") == "mary-ann"


def test_a_placeholder_of_gender_x_goes_to_the_full_entry() -> None:
    # PDNC marks a gender nobody knows "X" (read as "neutral"): such an entry is a placeholder too
    names = _mentions(_placeholder_list(gender="neutral"))
    assert names.count(("Bounderby", "0")) == 2
    assert ("Bounderby", "2") not in names
