"""Name replacement: consistent, reversible, gender-matched, never a word of the book, common words kept."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from fabula.anonymize import NameMapping, anonymize_book, plan_mapping, remaining_names
from fabula.book import Character, load_book
from fabula.characters._lexicon import given_name_gender
from fabula.recognition import load_questions
from tests.conftest import run_cli
from tests.recognition.conftest import STORY

WITH_COMMON_WORDS = [
    Character("darcy", "Mr. Darcy", {"Darcy": 0}, gender="male"),
    Character("hope", "Hope", {}, gender="female"),  # "Hope" is a name here, but the book says "hope" too
    Character("long", "Mrs. Long", {}, gender="female"),
]


def test_the_same_name_gets_the_same_replacement_possessive_and_plural_kept(
    story_path: Path, cast: list[Character]
) -> None:
    book = load_book(story_path)
    text, mapping = anonymize_book(book, [*cast, *WITH_COMMON_WORDS], seed=3)
    new = mapping.names["Darcy"]
    assert f"{new}'s hat" in text and f"seen {new} for" in text and f"the {new}s had" in text
    assert "Darcy" not in text[book.body.start :]
    thornton, margaret = mapping.names["Thornton"], mapping.names["Margaret"]
    assert text.count(f"Mr. {thornton}") == 3 and f"{margaret} {mapping.names['Hale']}" in text
    assert re.search(r"\bMrs\. \w+ baked", text) and "Dr. " in text  # honorifics stay


def test_common_words_that_are_not_names_stay(story_path: Path, cast: list[Character]) -> None:
    book = load_book(story_path)
    text, mapping = anonymize_book(book, [*cast, *WITH_COMMON_WORDS], seed=0)
    # also lower-case words of the book: replaced only where they name a person, never at a sentence start
    assert mapping.contextual == {"Hope": True, "Long": True}
    assert "Hope was a word" in text and "the long road" in text and "in hope" in text
    assert "the cotton mill" in text and "CHAPTER II." in text


def test_replacements_never_occur_in_the_book_and_match_gender(
    story_path: Path, cast: list[Character]
) -> None:
    book = load_book(story_path)
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", STORY)}
    for seed in range(5):
        mapping = plan_mapping(book, cast, seed=seed)
        assert not {r.lower() for r in mapping.names.values()} & words
        assert len(set(mapping.names.values())) == len(mapping.names)
        assert given_name_gender(mapping.names["Margaret"]) == "female"
        assert given_name_gender(mapping.names["John"]) == "male"
        assert mapping.roles["Thornton"] == "last" and mapping.roles["Margaret"] == "first"


def test_round_trip_through_the_mapping(story_path: Path, cast: list[Character], tmp_path: Path) -> None:
    book = load_book(story_path)
    text, mapping = anonymize_book(book, [*cast, *WITH_COMMON_WORDS], seed=11)
    mapping.save(tmp_path / "m.json")
    again = NameMapping.load(tmp_path / "m.json")
    assert again.names == mapping.names
    assert again.inverse().apply(text) == book.text
    assert (
        mapping.apply("DARCY and Darcy's")
        == f"{mapping.names['Darcy'].upper()} and {mapping.names['Darcy']}'s"
    )


def test_cli_writes_the_book_the_mapping_and_mapped_questions(story_path: Path, tmp_path: Path) -> None:
    characters = tmp_path / "cast.json"
    characters.write_text(
        orjson.dumps(
            [
                {"name": "Mr. Thornton", "aliases": ["Thornton"], "gender": "male"},
                {"name": "Margaret Hale", "aliases": ["Margaret"], "gender": "female"},
            ]
        ).decode()
    )
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        orjson.dumps(
            {
                "id": "1",
                "book": "story.txt",
                "direction": "desc2name",
                "description": "Margaret's friend.",
                "options": ["Mr. Thornton", "Margaret Hale"],
                "answer": 0,
            }
        ).decode()
        + "\n"
    )
    out = tmp_path / "anon"
    assert (
        run_cli(
            "anonymize",
            story_path,
            "-o",
            out,
            "--characters",
            characters,
            "--questions",
            questions,
            "--seed",
            "2",
        )
        == 0
    )
    mapping = NameMapping.load(out / "story.mapping.json")
    assert (out / "story.txt").read_text(encoding="utf-8").count(mapping.names["Thornton"]) == 3
    (mapped,) = load_questions(out / "q.jsonl")
    assert mapped.book == (out / "story.txt").resolve()
    assert mapped.options == (
        f"Mr. {mapping.names['Thornton']}",
        f"{mapping.names['Margaret']} {mapping.names['Hale']}",
    )
    assert mapped.query == f"{mapping.names['Margaret']}'s friend."


def test_an_all_caps_name_is_a_whole_word_never_the_start_of_another() -> None:
    """ "Jo" is "JO" in a heading, but "JOURNAL" is no name: before, the ALL-CAPS form matched the start of
    any capitalised word (so TheSportOfTheGods' "A YELLOW JOURNAL" did not round-trip)."""
    mapping = NameMapping({"Jo": "Claire", "Bennet": "Howard"})
    assert mapping.apply("A YELLOW JOURNAL for JO and the BENNETS; Jo's") == (
        "A YELLOW JOURNAL for CLAIRE and the HOWARDS; Claire's"
    )


def test_rep_mode_shuffles_the_cast_s_own_first_names_and_surnames_separately(
    story_path: Path, cast: list[Character]
) -> None:
    """GANDALF's -Rep: every first name becomes another character's first name, every surname another's
    surname; the rewrite still inverts exactly."""
    book = load_book(story_path)
    text, mapping = anonymize_book(book, cast, seed=2, mode="rep")
    firsts = {w for w, r in mapping.roles.items() if r == "first"}
    lasts = {w for w, r in mapping.roles.items() if r == "last"}
    assert len(firsts) >= 2 and len(lasts) >= 2
    assert {mapping.names[w] for w in firsts} == firsts and {mapping.names[w] for w in lasts} == lasts
    assert all(mapping.names[w] != w for w in firsts | lasts)
    assert mapping.mode == "rep" and mapping.inverse().apply(text) == book.text


def test_probe_modes_swap_or_fix_the_gender_of_given_names(story_path: Path, cast: list[Character]) -> None:
    book = load_book(story_path)
    swapped = plan_mapping(book, cast, seed=1, mode="swap-gender")
    assert given_name_gender(swapped.names["Margaret"]) == "male"
    assert given_name_gender(swapped.names["John"]) == "female"
    female = plan_mapping(book, cast, seed=1, mode="all-female")
    assert given_name_gender(female.names["John"]) == "female"
    assert swapped.roles["Thornton"] == "last"  # surnames are drawn as in census mode


def test_titles_ranks_and_lone_surnames_are_read_and_common_words_kept() -> None:
    """A surname that is also a common word ("Fox") is replaced after a rank or title, with a possessive,
    and standing alone inside a sentence; the rank itself and the common word are kept."""
    text = (
        "CHAPTER I.\n\nAgent Fox came in. Ms. Fox's coat was wet, and the fox by the gate barked. "
        "Nobody trusted Fox that winter. Dana Fox laughed. Fox hunting was over.\n"
    )
    cast = [Character("fox", "Agent Dana Fox", {"Fox": 0, "Dana": 0}, gender="female")]
    mapping = plan_mapping(text, cast, seed=1)
    new = mapping.apply(text)
    fox, dana = mapping.names["Fox"], mapping.names["Dana"]
    assert "Agent" not in mapping.names and mapping.contextual == {"Fox": True}
    assert f"Agent {fox} came" in new and f"Ms. {fox}'s coat" in new and f"trusted {fox} that" in new
    assert f"{dana} {fox} laughed" in new and "the fox by the gate" in new and "Fox hunting" in new
    assert given_name_gender(dana) == "female"
    assert not remaining_names(new, cast) and remaining_names(text, cast) == {"Fox": 4, "Dana": 1}
    assert mapping.inverse().apply(new) == text


def test_a_place_the_cast_took_for_a_person_is_not_renamed() -> None:
    text = (
        "They lived in Dunmere. At Dunmere the rain fell; the road into Dunmere was long, and Dunmere "
        "was dull. Mr. Dunmere owned the mill.\n"
    )
    cast = [Character("d", "Dunmere", {}, gender="unknown")]
    mapping = plan_mapping(text, cast, seed=0)
    new = mapping.apply(text)
    assert mapping.contextual == {"Dunmere": False}
    assert new.count("Dunmere") == 4 and f"Mr. {mapping.names['Dunmere']} owned" in new
    assert mapping.inverse().apply(new) == text


def test_the_cli_fails_when_a_cast_name_remains_and_writes_nothing(story_path: Path, tmp_path: Path) -> None:
    text = story_path.read_text(encoding="utf-8") + "\nMr. TJ called, and TJ left.\n"
    book = tmp_path / "book.txt"
    book.write_text(text, encoding="utf-8")
    cast = tmp_path / "cast.json"
    cast.write_text(orjson.dumps([{"name": "Mr. TJ", "gender": "male"}]).decode())
    out = tmp_path / "anon"
    assert run_cli("anonymize", book, "-o", out, "--characters", cast) != 0
    assert not out.exists() or not any(out.iterdir())
    assert run_cli("anonymize", book, "-o", out, "--characters", cast, "--allow-remaining") == 0
    assert "TJ" in (out / "book.txt").read_text(encoding="utf-8")


PLACES = {
    "PrideAndPrejudice": [
        "Pemberley",
        "Netherfield",
        "Longbourn",
        "Meryton",
        "Derbyshire",
        "Brighton",
        "Hunsford",
    ],
    "TheMysteriousAffairAtStyles": ["Tadminster", "Styles", "Essex", "London"],
    "Emma": ["Highbury", "Hartfield", "Randalls", "Donwell", "London", "Richmond", "Ford's"],
}


@pytest.mark.slow
@pytest.mark.parametrize("novel", sorted(PLACES))
@pytest.mark.parametrize("characters", ["discovered", "gold"])
def test_shared_novels_keep_no_cast_name_rename_no_place_and_round_trip(novel: str, characters: str) -> None:
    from fabula.characters import find_characters, load_character_list
    from tests.conftest import SHARED_DATA

    folder = SHARED_DATA / "pdnc" / novel
    if not folder.is_dir():
        pytest.skip(f"PDNC novel not found at {folder} (the shared data directory is absent)")
    book = load_book(folder / "novel_text.txt")
    if characters == "gold":
        cast = load_character_list(folder / "character_info.csv")
    else:
        find_characters(book)
        cast = book.characters
    text, mapping = anonymize_book(book, cast, seed=7)
    end = book.body.end + len(text) - len(book.text)
    assert remaining_names(text, cast, book.body.start, end) == {}
    assert remaining_names(book.text, cast, book.body.start, book.body.end)  # the check can fail
    for place in PLACES[novel]:  # where the book uses it as a place ("Lady X" may be a person)
        where = re.compile(rf"\b(?:in|at|to|into|from|near|of|by)\s+{re.escape(place)}")
        assert len(where.findall(text)) == len(where.findall(book.text)) > 0, place
    assert mapping.inverse().apply(text) == book.text


def test_a_name_that_a_book_word_ends_in_s_or_es_is_never_drawn() -> None:
    """The mapping keeps a plural ending, so a drawn "Hugh" would read a book's "Hughs" as "Hugh" + "s"
    on the way back; such names are out of the pool."""
    from fabula.anonymize import free_names

    text = "Arthur met Mr. Hughs, and the Roberts family."
    mapping = NameMapping({"Arthur": "Hugh"})
    assert mapping.inverse().apply(mapping.apply(text)) != text  # what the pool rule prevents
    assert "Hugh" in free_names("Arthur met nobody.", "male")
    assert "Hugh" not in free_names(text, "male") and "Robert" not in free_names(text, "male")


def test_a_name_at_the_start_of_a_wrapped_line_is_inside_its_sentence() -> None:
    """A hard-wrapped book (Project Gutenberg's) breaks lines inside sentences: "It was the White\\nRabbit
    returning" became "the Perry Rabbit returning" in Alice, and the remaining-names check passed it."""
    text = (
        "CHAPTER I.\n\nShe dried her eyes. It was the Fox\nrabbit, and the fox by the gate was Dana\n"
        "Fox herself.\n\nFox hunting was over. Nobody trusted\nFox that winter.\n"
    )
    cast = [Character("fox", "Dana Fox", {"Fox": 0, "Dana": 0}, gender="female")]
    mapping = plan_mapping(text, cast, seed=1)
    assert mapping.contextual == {"Fox": True}
    assert remaining_names(text, cast) == {"Fox": 3, "Dana": 1}
    new = mapping.apply(text)
    fox = mapping.names["Fox"]
    assert f"trusted\n{fox} that" in new and f"{mapping.names['Dana']}\n{fox} herself" in new
    assert "\n\nFox hunting" in new and "the fox by the gate" in new  # a paragraph's first word stays
    assert not remaining_names(new, cast)
    assert mapping.inverse().apply(new) == text


def test_names_with_letters_past_ascii_are_replaced_too() -> None:
    from fabula.book import book_from_text

    text = "".join(
        f"Zoë Łukasiewicz came {x}. Zoë smiled, and Mr. Łukasiewicz bowed.\n\n" for x in ["early", "late"]
    )
    book = book_from_text(text)
    cast = [
        Character("zoe", "Zoë Łukasiewicz", {"Zoë": 0}, gender="female"),
        Character("luk", "Mr. Łukasiewicz", {}, gender="male"),
    ]
    new_text, mapping = anonymize_book(book, cast, seed=0)
    assert "Zoë" in mapping.names and "Łukasiewicz" in mapping.names
    assert "Zoë" not in new_text and "Łukasiewicz" not in new_text
    assert f"Mr. {mapping.names['Łukasiewicz']} bowed" in new_text


def test_a_name_with_a_capital_and_an_apostrophe_before_it_is_replaced() -> None:
    from fabula.book import book_from_text

    text = "".join(
        f"Nora O'Dowd came {x}. Nora smiled, and Mrs. O'Dowd sat down.\n\n" for x in ["early", "late"]
    )
    cast = [Character("nora", "Nora O'Dowd", {"Nora": 0}, gender="female")]
    new_text, mapping = anonymize_book(book_from_text(text), cast, seed=0)
    assert "O'Dowd" in mapping.names and "O'Dowd" not in new_text
    new = mapping.names["O'Dowd"]
    assert f"Mrs. {new} sat" in new_text
