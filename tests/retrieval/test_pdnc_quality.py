"""Retrieval sanity on real novels (PDNC, gold characters): mention retrieval and BM25 on names."""

from __future__ import annotations

import re

import pytest

from fabula.characters import HONORIFICS, find_characters
from fabula.datasets import load_pdnc_novel
from fabula.retrieval import index_book
from tests.conftest import pdnc_novel_dir

NOVELS = ["PrideAndPrejudice", "Emma", "TheSignOfTheFour", "AnneOfGreenGables", "TheAgeOfInnocence"]


def _mentions_any(text: str, names: set[str]) -> bool:
    return any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) for name in names if name)


def _has_words(text: str, name: str) -> bool:
    """Every word of ``name`` but honorifics is in ``text`` (BM25 is a bag of words, case-insensitive)."""
    words = set(re.findall(r"\w+", text.casefold()))
    return all(w in words for w in re.findall(r"\w+", name.casefold()) if w not in HONORIFICS)


@pytest.mark.parametrize("name", NOVELS)
def test_mention_and_name_retrieval_find_the_character(name: str) -> None:
    novel = load_pdnc_novel(pdnc_novel_dir(name))
    book = novel.book
    find_characters(book, gold=novel.characters)
    mentions = index_book(book, "mentions", cache=False, gold=novel.characters)
    bm25 = index_book(book, "bm25", cache=False)
    speakers = [c for c in novel.characters if c.id in novel.scored_speakers(min_quotes=10)]
    assert len(speakers) >= 3
    failures: list[str] = []
    # Every scored speaker: the top min(10, N) mention hits all name them by a gold alias, where N is the
    # number of paragraphs naming them so (a character named in 4 paragraphs cannot fill a top 10).
    named_units: dict[str, set[int]] = {}
    aliases = {c.id: {n.casefold() for n in c.all_names()} for c in novel.characters}
    for m in book.mentions:
        if m.character_id and book.text[m.start : m.end].casefold() in aliases.get(m.character_id, ()):
            unit = next((u.id for u in mentions.units if u.start <= m.start and m.end <= u.end), None)
            named_units.setdefault(m.character_id, set()).add(unit if unit is not None else -1)
    found = [c for c in speakers if named_units.get(c.id)]
    # missing alias matches are the characters module's business; nearly every speaker must be named
    assert len(found) >= 0.9 * len(speakers), sorted(c.name for c in speakers if c not in found)
    for character in found:
        names = character.all_names()
        hits = mentions.search(character.id, k=min(10, len(named_units[character.id])))
        failures += [
            f"mentions {character.name}: #{h.rank} {h.unit.text[:80]!r}"
            for h in hits
            if not _mentions_any(book.text[h.unit.start : h.unit.end], names)
        ]
        top = bm25.search(character.name, k=1)
        # BM25 is a bag of words: the top paragraph must hold the name's words, or a gold alias
        if not top or not (
            _has_words(top[0].unit.text, character.name) or _mentions_any(top[0].unit.text, names)
        ):
            failures.append(f"bm25 {character.name}: {top[0].unit.text[:80] if top else None!r}")
    assert not failures, "\n".join(failures)
