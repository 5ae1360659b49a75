"""The sentence repairs' fast paths (`fabula.book._segment`: `_after_abbreviation` without a regular
expression, `_split_missed` skipping paragraphs where neither pattern matches) give exactly what the
plain versions below give, on every paragraph of two novels and on random text."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from fabula.book import _segment
from fabula.book._decode import read_book_file
from fabula.book._segment import _BEFORE_TITLE, _INTERRUPTED, _after_abbreviation, _split_missed
from fabula.book._structure import find_body, find_paragraphs
from tests.conftest import pdnc_novel_dir


def _after_abbreviation_plain(text: str, period: int) -> bool:
    """`_after_abbreviation` as it was: a pattern searched over the 20 characters before the period."""
    word = re.search(r"([A-Za-z][A-Za-z.]*)$", text[max(0, period - 20) : period])
    if not word:
        return False
    token = word.group(1).lower().rstrip(".")
    return token in _segment._ABBREVIATIONS or (len(token) == 1 and word.group(1).isupper())


def _split_missed_plain(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """`_split_missed` searching every sentence of every paragraph."""
    out: list[tuple[int, int]] = []
    for start, end in spans:
        cuts = [m.end() for m in _INTERRUPTED.finditer(text, start, end)]
        cuts += [
            m.end()
            for m in _BEFORE_TITLE.finditer(text, start, end)
            if not _after_abbreviation_plain(text, m.start())
        ]
        for cut in sorted(set(cuts)):
            if start < cut < end:
                out.append((start, cut))
                start = cut
        out.append((start, end))
    return out


def _random_text(rng: random.Random) -> str:
    pieces = ["Mr.", "Mrs.", "St.", "Dr", "J.", "e.g.", "No.", "a.m.", "etc.", "--", "—", "–", '"', "”", "’", "'",
              " ", "  ", "\n", "\n\n", ".", "!", "?", "...", "She", "he", "Lt.", "x", "A", "ab.c", ")", "]"]  # fmt: skip
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))


def test_after_abbreviation_on_random_text() -> None:
    rng = random.Random(28)
    for _ in range(5_000):
        text = _random_text(rng)
        for period in range(len(text) + 1):
            assert _after_abbreviation(text, period) == _after_abbreviation_plain(text, period), (
                text,
                period,
            )


def test_split_missed_on_random_text() -> None:
    rng = random.Random(29)
    split = 0
    for _ in range(20_000):
        text = _random_text(rng)
        cuts = sorted(set(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(0, 6)))))
        bounds = [0, *cuts, len(text)]
        spans = [(a, b) for a, b in itertools.pairwise(bounds) if b > a]
        expected = _split_missed_plain(spans, text)
        assert _split_missed(spans, text) == expected, (text, spans)
        split += expected != spans
    assert split > 500  # texts where a sentence is split: the comparison covers both patterns' matches


@pytest.mark.parametrize("novel", ["Emma", "TheSunAlsoRises"])
def test_sentence_repairs_on_a_novel(novel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every paragraph's sentences, and every period's abbreviation test, as with the plain versions."""
    text = read_book_file(pdnc_novel_dir(novel) / "novel_text.txt").text
    paragraphs = find_paragraphs(text, find_body(text).body)
    periods = [m.start() for m in re.finditer(r"\.", text)]
    assert [_after_abbreviation(text, p) for p in periods] == [
        _after_abbreviation_plain(text, p) for p in periods
    ]
    fast = _segment.split_sentences(text, paragraphs, "en")
    monkeypatch.setattr(_segment, "_split_missed", _split_missed_plain)
    monkeypatch.setattr(_segment, "_after_abbreviation", _after_abbreviation_plain)
    plain = _segment.split_sentences(text, paragraphs, "en")
    assert fast.starts.tolist() == plain.starts.tolist() and fast.ends.tolist() == plain.ends.tolist()
