"""Discovered entries the book shows as a person fewer than twice (an honorific, a speech tag, "he"/"she"
after it, a person verb, an address) rank after the entries it does show so; those it never once shows so
(a book, a place, a capitalised adjective) leave the cast for ``book.set_aside``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from fabula.annotation import annotate
from fabula.book import Character, book_from_text
from fabula.characters import find_characters
from fabula.characters._discover import discover_cast
from fabula.datasets import load_pdnc_novel
from tests.conftest import pdnc_novel_dir, run_cli_output

#: a book named seven times, mid-sentence, never with a person's evidence; two people named less often
READING = (
    "Perdita Vance came home late. She had been reading Quillmoor all afternoon in the garden.\n\n"
    '"Have you finished Quillmoor?" asked Tobias Pim.\n\n'
    '"Not yet," said Perdita. "Nobody reads Quillmoor quickly, and I like Quillmoor better than any book."\n\n'
    "Tobias laughed. He thought Quillmoor a dull book, but he said nothing of Quillmoor to her. "
    "Perdita put Quillmoor down and looked at him.\n\n"
    '"You never liked Quillmoor," said Perdita.\n\n'
    '"I like you," said Tobias.'
)


def test_a_book_named_more_often_than_the_people_ranks_after_them() -> None:
    cast = sorted(find_characters(book_from_text(READING)), key=lambda c: c.rank)
    names = [c.name for c in cast]
    assert names == ["Perdita", "Tobias", "Quillmoor"], names
    book = next(c for c in cast if c.name == "Quillmoor")
    tobias = next(c for c in cast if c.name == "Tobias")
    assert book.mention_count > tobias.mention_count  # more mentions, still in the cast, ranked after
    assert book.id == "C3" and tobias.id == "C2"  # ids follow the rank


def test_an_entry_never_shown_as_a_person_takes_no_pronoun_and_no_gender() -> None:
    book = book_from_text(READING)
    cast = {c.name: c for c in find_characters(book)}
    pronouns = {
        c: [m for m in book.mentions if m.character_id == cast[c].id and m.kind == "pronoun"] for c in cast
    }
    assert pronouns["Quillmoor"] == []  # "He thought Quillmoor a dull book, but he said": Tobias's
    assert cast["Quillmoor"].gender == "unknown"
    assert pronouns["Tobias"] and cast["Tobias"].gender == "male"


def test_an_entry_shown_as_a_person_once_takes_its_gender_from_a_clear_given_name() -> None:
    # "wrote Winifred" is her one piece of person evidence; the "he" after her name is Tobias's, and no
    # pronoun votes for such an entry, but a clear given name still says what the name does
    text = (
        READING
        + "\n\nA letter from Winifred lay on the table; Tobias read it, and he smiled. Winifred wrote of "
        'the weather and of Winifred\'s garden.\n\n"Tell Perdita I am well," wrote Winifred.'
    )
    found = discover_cast(book_from_text(text))
    assert {c.name for c in found.characters if c.id in found.unevidenced} == {"Winifred", "Quillmoor"}
    cast = {c.name: c for c in find_characters(book_from_text(text))}
    assert (cast["Winifred"].gender, cast["Winifred"].gender_confidence) == ("female", 0.5)
    assert cast["Quillmoor"].gender == "unknown"


def test_discovery_says_which_entries_lack_person_evidence() -> None:
    found = discover_cast(book_from_text(READING))
    by_id = {c.id: c.name for c in found.characters}
    assert {by_id[i] for i in found.unevidenced} == {"Quillmoor"}


def test_a_gold_list_ranks_by_mentions_alone() -> None:
    gold = [
        Character("1", "Perdita Vance", aliases={"Perdita": 0}),
        Character("2", "Tobias Pim", aliases={"Tobias": 0}),
        Character("3", "Quillmoor"),
    ]
    cast = find_characters(book_from_text(READING), gold=gold)
    assert min(cast, key=lambda c: c.rank).name == "Quillmoor"  # a list's entries are its people


def test_a_guidebook_named_often_leaves_the_head_of_a_real_cast() -> None:
    """A tuning novel names a travel guide some fifteen times, never as a person: it ranked 14th and
    now ranks after the 20 entries a reader sees first, still in the cast."""
    novel = load_pdnc_novel(pdnc_novel_dir("ARoomWithAView"))
    annotate(novel.book, {"characters"})
    cast = sorted(novel.book.characters, key=lambda c: c.rank)
    guide = [c for c in cast if c.name == "Baedeker"]
    assert guide, [c.name for c in cast[:30]]
    assert guide[0].rank > 20


#: the same scene, but the book is never once shown as a person (no "he" after it this time)
NEVER_A_PERSON = READING.replace(
    "Tobias laughed. He thought Quillmoor a dull book, but he said nothing of Quillmoor to her. ",
    "Tobias laughed: to him Quillmoor was a dull book. ",
)


def test_an_entry_never_shown_as_a_person_is_set_aside_not_cast() -> None:
    book = book_from_text(NEVER_A_PERSON)
    cast = find_characters(book)
    assert [c.name for c in sorted(cast, key=lambda c: c.rank)] == ["Perdita", "Tobias"]
    assert [(c.id, c.name, c.rank) for c in book.set_aside] == [("S1", "Quillmoor", 1)]
    assert book.set_aside[0].mention_count == NEVER_A_PERSON.count("Quillmoor")
    ids = {m.character_id for m in book.mentions}
    assert ids == {c.id for c in cast}  # no mention of the book, no pronoun for it


def test_the_set_aside_entries_reach_no_command_but_stay_inspectable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """analyze's outputs (characters.jsonl, the report, attribution's speakers) and the anonymiser read the
    cast without the entry; book.json and `fabula characters --json` list it with the reason."""
    from fabula.anonymize import anonymized_copy
    from fabula.book import load_book_json
    from fabula.corpus import write_outputs
    from fabula.pipeline import analyze_book

    analysis = analyze_book(book_from_text(NEVER_A_PERSON))
    assert "Quillmoor" not in {c.name for c in analysis.book.characters}
    assert {q.speaker_id for q in analysis.book.quotes} <= {c.id for c in analysis.book.characters} | {None}
    write_outputs(analysis, tmp_path)
    lines = (tmp_path / "characters.jsonl").read_bytes().splitlines()
    assert [orjson.loads(line)["name"] for line in lines] == ["Perdita", "Tobias"]
    report = (tmp_path / "report.html").read_bytes()
    assert b'"name":"Tobias"' in report and b'"name":"Quillmoor"' not in report  # the report's cast
    assert [c.name for c in load_book_json(tmp_path / "book.json").set_aside] == ["Quillmoor"]
    renamed = anonymized_copy(book_from_text(NEVER_A_PERSON)).book.text
    assert "Perdita" not in renamed and "Quillmoor" in renamed  # a book's title is no name to hide
    path = tmp_path / "novel.txt"
    path.write_text(NEVER_A_PERSON, encoding="utf-8")
    code, out, err = run_cli_output(["characters", path, "--json"], capsys)
    assert code == 0, err
    payload = orjson.loads(out)
    assert [c["name"] for c in payload["characters"]] == ["Perdita", "Tobias"]
    assert [c["name"] for c in payload["set_aside"]] == ["Quillmoor"]
    assert "never shown as a person" in payload["set_aside"][0]["reason"]
    code, out, err = run_cli_output(["characters", path], capsys)
    assert code == 0 and "Set aside, named but never shown as a person" in out and "Quillmoor (" in out


def test_a_real_novel_sets_a_place_aside_and_keeps_minor_people() -> None:
    """A tuning novel names a city eight times, never as a person (hand-labelled ``not``): it leaves the
    cast. A man named six times whom the narration shows once as a person (hand-labelled ``person``), and a
    gold-listed minor character who speaks three times, stay in it."""
    novel = load_pdnc_novel(pdnc_novel_dir("ARoomWithAView"))
    annotate(novel.book, {"characters"})
    cast = {c.name for c in novel.book.characters}
    aside = {c.name for c in novel.book.set_aside}
    assert "Athens" in aside and "Athens" not in cast
    assert {"Albert", "Powell"} <= cast and not {"Albert", "Powell"} & aside
    assert not {c.name for c in novel.book.characters} & aside


def test_a_set_aside_name_is_explained_where_a_user_looks_for_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Asked for by name (describe, a mentions search), a set-aside entry is said to be set aside and
    why, not "no character called"; the report names it beside how the characters were found."""
    from fabula.corpus import write_outputs
    from fabula.pipeline import analyze_book

    path = tmp_path / "novel.txt"
    path.write_text(NEVER_A_PERSON, encoding="utf-8")
    for args in (["describe", path, "Quillmoor"], ["search", path, "Quillmoor", "--retriever", "mentions"]):
        code, _out, err = run_cli_output(args, capsys)
        assert code != 0 and "'Quillmoor' is set aside, not in the cast: named but never shown" in err, err
    code, _out, err = run_cli_output(["describe", path, "Zebulon"], capsys)
    assert code != 0 and "no character called 'Zebulon'" in err and "set aside" not in err
    write_outputs(analyze_book(book_from_text(NEVER_A_PERSON)), tmp_path / "out")
    report = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "<th>set aside</th><td>Quillmoor (7): named but never shown as a person" in report


def test_a_book_json_from_before_set_aside_still_loads(tmp_path: Path) -> None:
    from fabula.book import load_book_json, save_book

    book = book_from_text(NEVER_A_PERSON)
    find_characters(book)
    save_book(book, tmp_path / "book.json")
    data = orjson.loads((tmp_path / "book.json").read_bytes())
    del data["set_aside"]
    (tmp_path / "old.json").write_bytes(orjson.dumps(data))
    old = load_book_json(tmp_path / "old.json")
    assert old.set_aside == [] and [c.name for c in old.characters] == ["Perdita", "Tobias"]
