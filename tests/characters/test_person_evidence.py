"""Discovered entries the book never shows as people (no honorific, speech tag, "he"/"she", person
verb or address) rank after the entries it does show so: a book, a place, a capitalised adjective
named often stays in the cast but out of its head."""

from __future__ import annotations

from fabula.annotation import annotate
from fabula.book import Character, book_from_text
from fabula.characters import find_characters
from fabula.characters._discover import discover_cast
from fabula.datasets import load_pdnc_novel
from tests.conftest import pdnc_novel_dir

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
