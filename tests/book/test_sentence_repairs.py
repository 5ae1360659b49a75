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
from fabula.book._segment import (
    _BEFORE_TITLE,
    _DASH_QUOTES,
    _INTERRUPTED,
    _PARAGRAPH_SEPARATOR,
    _after_abbreviation,
    _paragraphs_before_title,
    _paragraphs_holding,
    _split_missed,
)
from fabula.book._structure import find_body, find_paragraphs
from tests.conftest import pdnc_novel_dir


def _after_abbreviation_plain(text: str, period: int) -> bool:
    """`_after_abbreviation` as it was: a pattern searched over the 20 characters before the period."""
    word = re.search(r"([A-Za-z][A-Za-z.]*)$", text[max(0, period - 20) : period])
    if not word:
        return False
    token = word.group(1).lower().rstrip(".")
    return token in _segment._ABBREVIATIONS or (len(token) == 1 and word.group(1).isupper())


def _split_missed_plain(spans: list[tuple[int, int]], text: str, **_hints: bool) -> list[tuple[int, int]]:
    """`_split_missed` searching every sentence of every paragraph (the hints of a batch's search ignored)."""
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


def test_paragraphs_holding_and_before_title_on_random_batches() -> None:
    """The batch's searches find every paragraph that asking each paragraph finds (`in` for the dash and quote
    pairs: exactly those; `_BEFORE_TITLE`: those and perhaps a paragraph whose match looks into the next one), on
    random batches of random paragraphs, and `_en_sentences_batch` splits them as without the batch's hints."""
    rng = random.Random(30)
    hits = extra = 0
    for _ in range(3_000):
        flats = [_random_text(rng).replace("\n", " ") for _ in range(rng.randint(1, 8))]
        bounds = list(itertools.accumulate((len(f) + 1 for f in flats[:-1]), initial=0))
        titled = {i for i, f in enumerate(flats) if _BEFORE_TITLE.search(f)}
        dashed = {i for i, f in enumerate(flats) if any(pair in f for pair in _DASH_QUOTES)}
        for separator in ("\n", _PARAGRAPH_SEPARATOR):
            joined = separator.join(flats)
            found = _paragraphs_before_title(joined, bounds)
            assert found >= titled, flats
            extra += len(found - titled)
            assert _paragraphs_holding(joined, bounds, _DASH_QUOTES) == dashed, flats
        hits += len(titled) + len(dashed)
    assert hits > 1_000 and extra > 0


def test_sentences_of_random_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_en_sentences_batch` with the batch's hints gives what `_split_missed` gives asking each paragraph."""
    rng = random.Random(31)
    batches = [[_random_text(rng) for _ in range(rng.randint(1, 8))] for _ in range(1_500)]
    fast = [_segment._en_sentences_batch(batch) for batch in batches]

    def unhinted(spans: list[tuple[int, int]], text: str, **_hints: bool) -> list[tuple[int, int]]:
        return _split_missed(spans, text)

    monkeypatch.setattr(_segment, "_split_missed", unhinted)
    assert [_segment._en_sentences_batch(batch) for batch in batches] == fast
