"""Gold lists written to other conventions than PDNC's: a name listed without the title the speech tags
use ("Ashdown" for Mr. Ashdown, "Harriet Penrose" for Miss Penrose), a rank whose holder the text calls
by it alone ("the Professor"). Hand-written lists and passages."""

from __future__ import annotations

from fabula.book import Character, book_from_text
from fabula.characters import find_characters
from fabula.characters._book_forms import _relative, _styles, book_forms
from fabula.characters._gold_match import _build_forms, match_gold_names
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


def test_a_titled_full_name_implies_the_title_with_the_given_name() -> None:
    text = "Sir Roland Ashdown, Lady Honoria de Brocq and Mrs. Kit Penrose. Roland Ashdown bowed."
    gold = _gold(
        ("Sir Roland Ashdown", "male", "minor"),
        ("Sir", "male", "minor"),  # a servant's "Sir" the list keeps as an entry
        ("Lady Honoria de Brocq", "female", "intermediate"),
        ("Mrs. Kit Penrose", "female", "minor"),
    )
    owners = _owners(gold, text)
    assert owners["Sir Roland"] == owners["Roland"] == ("0",)
    assert "Sir Ashdown" not in owners  # a baronet is Sir and his given name
    assert owners["Lady Honoria"] == owners["Lady de Brocq"] == ("2",)
    assert "Mrs. Kit" not in owners and "Kit" not in owners  # a wife styled by her husband's name
    said = (
        'Sir Roland came in with Nora.\n\n"Good day," said Sir Roland.\n\n"Is it?" said Lady Honoria.\n\n'
        '"It is," said Sir Roland.\n'
    )
    assert _speakers(said, gold) == ["0", "2", "0"]


def test_a_title_the_book_prints_before_a_listed_full_name_is_the_entrys() -> None:
    text = (
        "Sir Roland Ashdown came in. Roland Perrin followed him, and Mrs. Roland Perrin, and Colonel Kit\n"
        "Holloway, and Miss Nora Penrose.\n\n"
    )
    gold = _gold(
        ("Roland Ashdown", "male", "major"),
        ("Roland Perrin", "male", "major"),
        ("Kit Holloway", "male", "minor"),
        ("Nora Penrose", "female", "minor"),
    )
    owners = _owners(gold, text)
    assert owners["Sir Roland"] == ("0",)  # the list writes no title; the book does
    assert owners["Colonel Holloway"] == ("2",)  # a rank goes with the surname
    assert owners["Miss Nora"] == ("3",)
    # a book writes "Miss Nora Penrose" in full to tell her from the family's "Miss Penrose": not taken
    # from it; and "Mrs. Roland Perrin" is his wife, who gives him no form
    assert "Mrs. Roland" not in owners and owners.get("Mrs. Perrin") != ("1",)
    assert "Sir Roland" not in _owners(gold)  # without the text, nothing is read
    said = text + '"Good day," said Sir Roland.\n'
    # the bare "Roland" inside "Sir Roland" would go to the one named last
    assert _speakers(said, gold) == ["0"]


def test_a_surname_two_entries_share_goes_where_discovery_reads_it() -> None:
    # the list gives the brothers no title; the book calls the elder "Mr. Ashdown" and "Ashdown", the
    # younger "Kit": the bare surname just after the younger is named is still the elder's
    text = (
        "Mr. Roland Ashdown owned the mill. Roland Ashdown was a hard man, and Ashdown's workers feared him.\n\n"
        "His brother Kit Ashdown lived in town. Kit was kind. Mr. Ashdown never visited Kit.\n\n"
        "One day Ashdown walked to the river. Ashdown looked at the water and frowned.\n\n"
        "Kit Ashdown came up the path behind him.\n\n"
        '"You are late," said Ashdown.\n\n'
        '"I came as fast as I could," said Kit.\n'
    )
    gold = _gold(("Roland Ashdown", "male", "major"), ("Kit Ashdown", "male", "major"))
    assert _speakers(text, gold) == ["0", "1"]
    book = book_from_text(text)
    # without the book's reading, the holder named last takes it
    find_characters(book, gold=gold, gold_book_forms=False)
    tagged = text.index("said Ashdown") + len("said ")
    assert next(m.character_id for m in book.mentions if m.start == tagged) == "1"


def test_a_pet_form_the_book_writes_as_a_name_is_its_given_names() -> None:
    gold = _gold(("Eleanor Penrose", "female", "major"), ("Patrick Ashdown", "male", "major"))
    text = "Nell laughed. Nell ran. Patrick Ashdown gave the dog a pat; Pat did pat it. A pat, a pat."
    owners = _owners(gold, text)
    assert owners["Nell"] == ("0",)
    assert "Pat" not in owners  # the noun and the verb far more often than a name here
    # a pet form two entries' given names share, or one a list gives someone, is the list's to say
    both = _gold(("Eleanor Penrose", "female", "major"), ("Helen Quill", "female", "major"))
    assert "Nell" not in _owners(both, text)
    listed = [*gold, Character("9", "Nell", gender="female", source="gold", category="minor")]
    assert _owners(listed, text)["Nell"] == ("9",)


def test_the_names_the_book_joins_to_an_entry_are_its_own() -> None:
    text = (
        "Nora Penrose lived at the mill with her father. Nora was nineteen. Kit Ashdown came every day.\n\n"
        '"You are early," said Nora.\n\n"I am always early," said Kit Ashdown.\n\n'
        '"Not always," said Nora.\n\nNora Penrose laughed, and Nora went in.\n'
    )
    gold = _gold(("Miss Penrose", "female", "major"), ("Kit Ashdown", "male", "major"))
    book = book_from_text(text)
    find_characters(book, gold=gold)
    nora = [m.character_id for m in book.mentions if m.kind == "name" and text[m.start : m.end] == "Nora"]
    assert nora == ["0"] * 6  # "Nora" six times alone
    assert book.characters[0].aliases.get("Nora", 0) == 6  # the output shows the name the book uses
    plain = book_from_text(text)
    find_characters(plain, gold=gold, gold_book_forms=False)
    assert "Nora" not in plain.characters[0].aliases  # the list as it is written, on request


def test_a_titled_name_of_the_entrys_family_under_another_title_is_a_relative() -> None:
    mother = Character("0", "Mrs. Penrose", aliases={"Lady de Brocq": 0}, gender="female")
    styles = _styles(mother)
    assert _relative("Miss Penrose", styles) and _relative("Miss de Brocq", styles)
    assert not _relative("Mrs. Penrose", styles) and not _relative("Miss Ashdown", styles)
    assert not _relative("Nora", styles)


def test_a_real_novels_heroine_listed_by_her_title_is_found_under_her_given_name() -> None:
    from fabula.datasets import load_pdnc_novel
    from tests.conftest import pdnc_novel_dir

    novel = load_pdnc_novel(pdnc_novel_dir("ARoomWithAView"))
    main_only = [
        Character(c.id, c.name, gender=c.gender, source="gold", category=c.category) for c in novel.characters
    ]
    heroine = next(c for c in main_only if c.name == "Miss Honeychurch")
    book = novel.book
    names = match_gold_names(book, main_only)
    forms = book_forms(book, main_only, names)
    assert forms["Lucy"] == heroine.id
    assert "Honeychurch" not in forms  # listed forms and their parts are the list's own
