"""Gold lists written to other conventions than PDNC's: a name listed without the title the speech tags
use ("Ashdown" for Mr. Ashdown, "Harriet Penrose" for Miss Penrose), a rank whose holder the text calls
by it alone ("the Professor"). Hand-written lists and passages."""

from __future__ import annotations

from fabula.book import Character, book_from_text
from fabula.characters import find_characters
from fabula.characters._gold_match import _build_forms
from fabula.quotes import attribute_quotes, detect_quotes


def _gold(*entries: tuple[str, str, str]) -> list[Character]:
    return [
        Character(str(i), name, gender=gender, source="gold", category=category)  # type: ignore[arg-type]
        for i, (name, gender, category) in enumerate(entries)
    ]


def _speakers(text: str, gold: list[Character]) -> list[str | None]:
    book = book_from_text(text)
    detect_quotes(book)
    find_characters(book, gold=gold)
    return [q.speaker_id for q in attribute_quotes(book).quotes]


def _owners(gold: list[Character], text: str = "") -> dict[str, tuple[str, ...]]:
    return {spelling: form.owners for spelling, form in _build_forms(gold, text).items()}


def test_a_man_listed_by_his_surname_alone_is_mr_surname() -> None:
    text = (
        'Mr. Ashdown looked up. Nora was at the door.\n\n"It is late," said Mr. Ashdown.\n\n'
        '"Not so late," said Nora.\n\n"Late enough," said Mr. Ashdown.\n'
    )
    gold = _gold(
        ("Ashdown", "male", "major"), ("Nora", "female", "major"), ("Mr. Kit Ashdown", "male", "minor")
    )
    # the brother listed with his given name does not take the plain "Mr. Ashdown" from the one listed without
    assert _speakers(text, gold) == ["0", "1", "0"]
    assert _owners(gold)["Mr. Ashdown"] == ("0",)
    assert _owners(gold)["Mr Ashdown"] == ("0",)


def test_a_lone_surname_of_a_woman_is_miss_or_mrs() -> None:
    owners = _owners(_gold(("Fenwick", "female", "major")))
    assert owners["Miss Fenwick"] == owners["Mrs. Fenwick"] == ("0",)


def test_a_lone_given_name_or_a_role_takes_no_title() -> None:
    owners = _owners(
        _gold(("Griselda", "female", "major"), ("The Cook", "female", "minor"), ("Colonel", "male", "minor"))
    )
    assert not {"Miss Griselda", "Mrs. Griselda", "Miss Cook", "Mr. Colonel"} & set(owners)


def test_a_title_the_list_writes_wins_over_one_it_implies() -> None:
    gold = _gold(("Henry Vance", "male", "major"), ("Mr. Vance", "male", "intermediate"))
    assert _owners(gold)["Mr. Vance"] == ("1",)  # the father listed as "Mr. Vance", not his son


def test_a_woman_listed_by_full_name_is_the_miss_or_mrs_the_book_prints() -> None:
    gold = _gold(("Harriet Penrose", "female", "major"))
    assert _owners(gold, "Miss Penrose came in.").get("Miss Penrose") == ("0",)
    assert "Mrs. Penrose" not in _owners(gold, "Miss Penrose came in.")
    assert _owners(gold, "Mrs. Penrose came in.").get("Mrs. Penrose") == ("0",)
    both = _owners(gold, "Miss Penrose and Mrs. Penrose came in.")  # a daughter and her mother
    assert "Miss Penrose" not in both and "Mrs. Penrose" not in both


def test_a_man_listed_by_full_name_is_mr_surname_when_no_entry_is() -> None:
    assert _owners(_gold(("Henry Vance", "male", "major")))["Mr. Vance"] == ("0",)
    assert "Mr. Vance" not in _owners(_gold(("Henry Vance", "neutral", "major")))  # gender unknown: none


def test_the_one_holder_of_a_rank_is_the_rank_alone() -> None:
    text = (
        'The Professor sat down. Nora watched him.\n\n"We begin," said the Professor.\n\n'
        '"Do we?" said Nora.\n\n"At once," said the Professor.\n'
    )
    gold = _gold(("Professor Vance", "male", "major"), ("Nora", "female", "major"))
    assert _speakers(text, gold) == ["0", "1", "0"]
    owners = _owners(_gold(("Dr. Quill", "male", "major"), ("The King of Spades", "male", "minor")))
    assert owners["the Doctor"] == ("0",) and owners["The King"] == ("1",)


def test_a_rank_two_entries_hold_and_a_lowercase_rank_are_no_one() -> None:
    owners = _owners(_gold(("Captain Vance", "male", "major"), ("Captain Quill", "male", "major")))
    assert "the Captain" not in owners  # any of the two
    owners = _owners(_gold(("General Quill", "male", "major")))
    assert "the General" in owners and "the general" not in owners  # "the general pause"
