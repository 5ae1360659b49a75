"""Matching a given character list in the text: longest match, honorifics, shared surnames, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula.book import Character, book_from_text
from fabula.characters import find_characters, load_character_list, resolve_name
from fabula.errors import InputError

PASSAGE = (
    'Mr. Bennet was reading when Mrs. Bennet came in. "My dear," said Mrs. Bennet, "Mr. Darcy is here."\n\n'
    "Darcy bowed. Jane Bennet smiled at him, and Elizabeth laughed. Bennet said nothing; he went on reading.\n\n"
    "Lady Catherine arrived later. Catherine, the youngest but one, hid from her."
)


def _gold() -> list[Character]:
    return [
        Character("1", "Mr. Bennet", gender="male", source="gold"),
        Character("2", "Mrs. Bennet", gender="female", source="gold"),
        Character("3", "Mr. Darcy", {"Darcy": 0, "Fitzwilliam Darcy": 0}, gender="male", source="gold"),
        Character("4", "Jane", {"Jane Bennet": 0, "Miss Bennet": 0}, gender="female", source="gold"),
        Character("5", "Elizabeth", {"Lizzy": 0}, gender="female", source="gold"),
        Character("6", "Lady Catherine", gender="female", source="gold"),
        Character("7", "Kitty", {"Catherine": 0}, gender="female", source="gold"),
    ]


def _names(book_text: str, gold: list[Character]) -> list[tuple[str, str | None]]:
    book = book_from_text(book_text)
    find_characters(book, gold=gold)
    return [(book.text[m.start : m.end], m.character_id) for m in book.mentions if m.kind != "pronoun"]


def test_longest_match_and_honorifics_keep_people_apart() -> None:
    names = _names(PASSAGE, _gold())
    assert ("Mr. Bennet", "1") in names
    assert ("Mrs. Bennet", "2") in names
    assert ("Mr. Darcy", "3") in names and ("Darcy", "3") in names
    assert ("Jane Bennet", "4") in names
    assert ("Lady Catherine", "6") in names
    assert ("Catherine", "7") in names  # not Lady Catherine: the longer form is matched first
    # the bare surname is derived from "Mr. Bennet" (a man's before a woman's)
    assert ("Bennet", "1") in names


def test_gold_characters_keep_ids_counts_and_ranks() -> None:
    book = book_from_text(PASSAGE)
    cast = find_characters(book, gold=_gold())
    by_id = {c.id: c for c in cast}
    assert set(by_id) == {str(i) for i in range(1, 8)}
    assert by_id["3"].aliases["Darcy"] == 1
    assert by_id["2"].first is not None and by_id["2"].first < by_id["3"].first  # type: ignore[operator]
    assert sorted(c.rank for c in cast) == list(range(1, 8))
    assert all(c.source == "gold" for c in cast)
    # "he went on reading" after "Bennet said nothing" is Mr. Bennet
    he = [m for m in book.mentions if m.kind == "pronoun" and book.text[m.start : m.end] == "he"]
    assert he and he[-1].character_id == "1"


def test_truncated_book_sees_only_visible_text() -> None:
    book = book_from_text(PASSAGE)
    cut = book.truncated(PASSAGE.index("Lady Catherine"))
    cast = find_characters(cut, gold=_gold())
    by_id = {c.id: c for c in cast}
    assert by_id["6"].mention_count == 0 and by_id["6"].first is None
    assert all(m.end <= cut.until for m in cut.mentions)  # type: ignore[operator]


def test_resolve_name() -> None:
    book = book_from_text(PASSAGE)
    cast = find_characters(book, gold=_gold())
    assert resolve_name(cast, "Mr. Darcy").id == "3"  # type: ignore[union-attr]
    assert resolve_name(cast, "mr darcy").id == "3"  # type: ignore[union-attr]
    assert resolve_name(cast, "Fitzwilliam").id == "3"  # type: ignore[union-attr]
    assert resolve_name(cast, "Lizzy").id == "5"  # type: ignore[union-attr]
    assert resolve_name(cast, "Nobody Known") is None
    assert resolve_name(cast, "Bennet").id == "1"  # type: ignore[union-attr]  # the text's "Bennet"
    smiths = [Character("a", "Mr. Smith"), Character("b", "Mrs. Smith"), Character("c", "Harriet Smith")]
    assert resolve_name(smiths, "Smith") is None  # ambiguous
    assert resolve_name(smiths, "Harriet").id == "c"  # type: ignore[union-attr]
    assert resolve_name(smiths, "MRS SMITH").id == "b"  # type: ignore[union-attr]


def test_malformed_gold_file_names_the_row(tmp_path: Path) -> None:
    bad = tmp_path / "chars.csv"
    bad.write_text("Character ID,Main Name,Aliases\n0,Emma,{'Miss Woodhouse'}\n1,Harriet,{'Miss Smith'\n")
    with pytest.raises(InputError, match="row 3"):
        load_character_list(bad)


def test_particles_match_whatever_their_case() -> None:
    gold = [Character("1", "Mrs. Van Der Luyden", gender="female", source="gold")]
    text = "Mrs. van der Luyden received them. Everyone feared Mrs. van der\nLuyden a little."
    names = _names(text, gold)
    assert names.count(("Mrs. van der Luyden", "1")) == 1
    assert ("Mrs. van der\nLuyden", "1") in names


def test_first_name_of_an_unprinted_full_name_is_not_matched() -> None:
    gold = [
        Character("1", "Mr. Woodhouse", {"Henry Woodhouse": 0}, gender="male", source="gold"),
        Character("2", "Miss Woodhouse", {"Emma Woodhouse": 0}, gender="female", source="gold"),
    ]
    text = (
        "Emma Woodhouse sat with Mr. Woodhouse. Little Henry ran in, and Emma laughed. "
        "Henry was her sister's boy. Woodhouse smiled."
    )
    book = book_from_text(text)
    find_characters(book, gold=gold)
    found = {book.text[m.start : m.end]: m for m in book.mentions if m.kind != "pronoun"}
    assert "Henry" not in found  # "Henry Woodhouse" is never printed: this Henry is the boy
    assert found["Woodhouse"].character_id == "1"
    # a first name taken from a printed full name is matched, with a lower confidence than listed names
    emma = [m for m in book.mentions if book.text[m.start : m.end] == "Emma"]
    assert emma and all(m.character_id == "2" and m.confidence < 1.0 for m in emma)
