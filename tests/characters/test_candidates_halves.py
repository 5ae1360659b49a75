"""A long book's name candidates are found in two halves on two cores
(`fabula.characters._discover._candidates.candidates_and_lowercase`): the same occurrences and lowercase
counts as one scan of the whole body; and the candidates' exact shortcuts give what their patterns give."""

from __future__ import annotations

import pytest

import fabula.characters._discover._candidates as candidates_module
from fabula.annotation import annotate
from fabula.book import load_book
from fabula.characters._discover._candidates import (
    FORK_CHARACTERS,
    _candidates,
    candidates_and_lowercase,
    lowercase_words,
)
from fabula.characters._pronouns import pronoun_matches
from fabula.characters._text import dialogue_regions
from tests.conftest import pdnc_novel_dir


@pytest.mark.parametrize("novel", ["Emma", "TheSunAlsoRises"])
def test_halves_give_the_candidates_of_one_scan(novel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the split as it is made where forking is allowed (`fork_call` then computes the halves here: a test
    # process has threads, and `fork_call` itself is tested in tests/test_parallel.py)
    monkeypatch.setattr(candidates_module, "can_fork", lambda: True)
    book = load_book(pdnc_novel_dir(novel) / "novel_text.txt")
    assert book.body.end - book.body.start >= FORK_CHARACTERS
    annotate(book, {"quotes"})
    dialogue = dialogue_regions(book)
    occurrences, lowercase, pronouns = candidates_and_lowercase(book, dialogue)
    assert occurrences == _candidates(book, dialogue)
    assert list(lowercase.items()) == list(lowercase_words(book).items())
    # the halves' pronouns: the whole body's scan, for `find_characters`
    assert pronouns == pronoun_matches(book)


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


def test_the_word_before_a_name_is_the_pattern_s() -> None:
    """`_previous_word` reads backwards what ``_PREV_WORD.search`` finds: at every offset of a novel's body and
    on random text made of the characters that decide it (letters of and beyond ASCII, digits, underscores,
    line breaks, spaces, punctuation)."""
    import random

    from fabula.characters._discover._candidates import _PREV_WORD, _previous_word

    def check(text: str, start: int, end: int) -> None:
        match = _PREV_WORD.search(text, start, end)
        assert _previous_word(text, start, end) == (match and (match.start(1), match.group(1))), text[
            start:end
        ]

    text = load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt").text
    for offset in range(len(text)):
        check(text, max(0, offset - 30), offset)
    rng = random.Random(5)
    alphabet = list("abZ \n\t.,;'’\"_1é-—!?(ß")
    for _ in range(50_000):
        sample = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        start = rng.randint(0, len(sample))
        check(sample, start, rng.randint(start, len(sample)))
