"""A long book's name candidates are found in two halves on two cores
(`fabula.characters._discover._candidates.candidates_and_lowercase`): the same occurrences and lowercase
counts as one scan of the whole body."""

from __future__ import annotations

import pytest

from fabula.annotation import annotate
from fabula.book import load_book
from fabula.characters._discover._candidates import (
    FORK_CHARACTERS,
    _candidates,
    candidates_and_lowercase,
    lowercase_words,
)
from fabula.characters._text import dialogue_regions
from tests.conftest import pdnc_novel_dir


@pytest.mark.parametrize("novel", ["Emma", "TheSunAlsoRises"])
def test_halves_give_the_candidates_of_one_scan(novel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABULA_FORK", "1")  # forking is opt-in
    book = load_book(pdnc_novel_dir(novel) / "novel_text.txt")
    assert book.body.end - book.body.start >= FORK_CHARACTERS
    annotate(book, {"quotes"})
    dialogue = dialogue_regions(book)
    occurrences, lowercase = candidates_and_lowercase(book, dialogue)
    assert occurrences == _candidates(book, dialogue)
    assert list(lowercase.items()) == list(lowercase_words(book).items())


def test_a_copied_occurrence_keeps_every_field() -> None:
    """`_copy` (used when `PrefixLayers` reuse the whole book's occurrences) passes the fields by position: a
    field added out of order once swapped three flags of every reused occurrence."""
    import dataclasses

    from fabula.characters._discover._candidates import _copy, _Occurrence

    fields = dataclasses.fields(_Occurrence)
    # every field a value no other field has, so any swap shows
    values = {f.name: (f.name,) if f.name == "words" else f"{f.name}-value" for f in fields}
    occurrence = _Occurrence(**values)  # type: ignore[arg-type]
    assert dataclasses.asdict(_copy(occurrence)) == dataclasses.asdict(occurrence)
