"""Exact fast paths of the eleventh speed session: `text_kinds` (one classing of a book's characters for
`prose_problem` and `Book.word_count`), `SpanLayer.overlapping_each`, and `CharacterProfile.to_dict`, each
against the plain version it replaced."""

from __future__ import annotations

import dataclasses
import random
import unicodedata
from collections.abc import Callable

import numpy as np

from fabula.analysis import CharacterProfile, Partner
from fabula.book import book_from_text, load_book, prose_problem
from fabula.book._model import ALNUM, ALPHA, PUNCTUATION, char_classes, text_kinds
from fabula.book._spans import SpanLayer
from tests.conftest import ROOT, pdnc_novel_dir

_SYMBOLS = "#[]{}\\/@&%"


def char_flags(text: str, test: Callable[[str], bool]) -> np.ndarray:
    """``test(c)`` of every character of ``text`` as a boolean array: what `prose_problem` and
    `Book.word_count` read before `text_kinds` (three of these a book)."""
    return char_classes(text, test, bool)


def _punctuation_plain(char: str) -> bool:
    return char not in _SYMBOLS and unicodedata.category(char).startswith("P")


def _prose_counts_plain(book) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """The counted tokens and words `prose_problem` judged by before, one `char_flags` per test."""
    starts, ends = book.tokens.starts, book.tokens.ends
    punctuation = char_flags(book.text, _punctuation_plain)
    letters = np.concatenate(([0], np.cumsum(char_flags(book.text, str.isalpha))))
    skipped = ((ends - starts) == 1) & punctuation[starts]
    return int(len(starts) - np.count_nonzero(skipped)), int(
        np.count_nonzero((letters[ends] > letters[starts]) & ~skipped)
    )


def test_text_kinds_on_every_code_point() -> None:
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    kinds = text_kinds(text)
    assert text_kinds(text) is kinds  # the last text's array is kept
    assert ((kinds & ALPHA) != 0).tolist() == [c.isalpha() for c in text]
    assert ((kinds & ALNUM) != 0).tolist() == [c.isalnum() for c in text]
    assert ((kinds & PUNCTUATION) != 0).tolist() == [_punctuation_plain(c) for c in text]


def test_prose_problem_and_word_count_as_before() -> None:
    """The same word counts and the same verdicts on a novel, code, configuration and random texts."""
    rng = random.Random(11)
    alphabet = "ab Zé1 .,;!?'\"-—#[]{}\\/@&%\n\t_"
    texts = [
        (pdnc_novel_dir("DaisyMiller") / "novel_text.txt").read_text(encoding="utf-8"),
        (ROOT / "pyproject.toml").read_text(encoding="utf-8"),
        (ROOT / "src" / "fabula" / "book" / "_model.py").read_text(encoding="utf-8"),
        *("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3_000))) for _ in range(40)),
    ]
    verdicts = set()
    for text in texts:
        book = book_from_text(text)
        counted, words = _prose_counts_plain(book)
        plain = None if counted < 200 or words / counted >= 0.9 else round(100 * (1 - words / counted))
        problem = prose_problem(book)
        assert (problem is None) == (plain is None)
        if problem is not None:
            assert f"{plain:.0f}% of its {counted:,} tokens" in problem
        alnum = char_flags(book.text, str.isalnum)
        expected = (
            int(np.count_nonzero(alnum[book.tokens.starts] | alnum[book.tokens.ends - 1]))
            if len(book.tokens)
            else 0
        )
        assert book.word_count == expected
        verdicts.add(problem is None)
    assert verdicts == {True, False}


def test_overlapping_each_is_overlapping() -> None:
    book = load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt")
    rng = random.Random(12)
    size = len(book.text)
    ranges = [(a, a + rng.randint(0, 400)) for a in (rng.randint(-5, size + 5) for _ in range(5_000))]
    ranges += [(0, 0), (size, size), (0, size)]
    starts, ends = [a for a, _ in ranges], [b for _, b in ranges]
    for layer in (
        book.tokens,
        book.sentences,
        SpanLayer(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)),
    ):
        assert layer.overlapping_each(starts, ends) == [layer.overlapping(a, b) for a, b in ranges]
    assert book.tokens.overlapping_each([], []) == []


def test_profile_to_dict_is_asdict() -> None:
    """Every field, in order, with containers of its own."""
    profile = CharacterProfile(
        id="C1",
        name="Daisy Miller",
        aliases={"Daisy": 12, "Miss Miller": 3},
        gender="female",
        gender_confidence=0.97,
        rank=1,
        source="predicted",
        category=None,
        mention_count=40,
        quote_count=7,
        words_spoken=300,
        first_offset=12,
        first_chapter=1,
        presence=[3, 0, 5],
        partners=[Partner("C2", "Winterbourne", 4)],
        profile=["A sentence."],
        lines=["A line.", "Another."],
        description="described",
    )
    as_dict = profile.to_dict()
    assert as_dict == dataclasses.asdict(profile)
    assert list(as_dict) == [f.name for f in dataclasses.fields(CharacterProfile)]
    for name in ("aliases", "presence", "partners", "profile", "lines"):
        assert as_dict[name] is not getattr(profile, name)
