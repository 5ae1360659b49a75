"""A long English book is segmented in two halves on two cores (`fabula.book._segment.segment`): the
sentences and tokens must be exactly those of segmenting it whole in one process; and the tokens, found
with arrays, are exactly the token pattern's matches."""

from __future__ import annotations

import random

import numpy as np
import pytest

from fabula.book import _segment
from fabula.book._decode import read_book_file
from fabula.book._segment import _EN_TOKEN, FORK_CHARACTERS, segment, split_sentences, tokenize
from fabula.book._spans import SpanLayer
from fabula.book._structure import find_body, find_paragraphs
from tests.conftest import pdnc_novel_dir


@pytest.mark.parametrize("novel", ["Emma", "TheSunAlsoRises"])
def test_halves_give_the_spans_of_the_whole(novel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = read_book_file(pdnc_novel_dir(novel) / "novel_text.txt").text
    paragraphs = find_paragraphs(text, find_body(text).body)
    assert paragraphs.ends[-1] - paragraphs.starts[0] >= FORK_CHARACTERS  # long enough to be split
    whole = (split_sentences(text, paragraphs, "en"), tokenize(text, paragraphs, "en"))
    # the split as `segment` makes it where it may fork (`fork_call` then computes the halves here: a test
    # process has threads, and `fork_call` itself is tested in tests/test_parallel.py)
    monkeypatch.setattr(_segment, "can_fork", lambda: True)
    halves = segment(text, paragraphs, "en")
    monkeypatch.setattr(_segment, "can_fork", lambda: False)
    sequential = segment(text, paragraphs, "en")
    for got in (halves, sequential):
        for mine, expected in zip(got, whole, strict=True):
            assert mine.starts.dtype == expected.starts.dtype == np.int64
            assert np.array_equal(mine.starts, expected.starts) and np.array_equal(mine.ends, expected.ends)


def _pattern_tokens(text: str, paragraphs: SpanLayer) -> tuple[list[int], list[int]]:
    """What `tokenize` computes as arrays: ``_EN_TOKEN.finditer`` over each paragraph."""
    matches = [m for start, end in paragraphs.pairs() for m in _EN_TOKEN.finditer(text, start, end)]
    return [m.start() for m in matches], [m.end() for m in matches]


def test_tokens_are_the_patterns_matches_on_a_novel() -> None:
    text = read_book_file(pdnc_novel_dir("TheSunAlsoRises") / "novel_text.txt").text
    paragraphs = find_paragraphs(text, find_body(text).body)
    tokens = tokenize(text, paragraphs, "en")
    assert (tokens.starts.tolist(), tokens.ends.tolist()) == _pattern_tokens(text, paragraphs)


@pytest.mark.parametrize("chunk", [7, 1 << 20])
def test_tokens_are_the_patterns_matches_on_awkward_text(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Joiners at edges and doubled, underscores, combining marks, digits of other scripts, odd spaces,
    a lone surrogate; paragraphs adjacent, empty, one character long; and arrays classed in small chunks."""
    monkeypatch.setattr(_segment, "_TOKEN_CHUNK", chunk)
    alphabet = list("ab-'’_ \n\t.,é\u0301ß1²Ⅻ中\u00a0\u2028\u200b\ud800Zz\"")
    rng = random.Random(7)
    for _ in range(1500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        cuts = sorted(set(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(0, 12)))))
        pairs = [(cuts[k], cuts[k + 1]) for k in range(0, len(cuts) - 1, rng.choice([1, 2]))]
        paragraphs = SpanLayer([a for a, _ in pairs], [b for _, b in pairs])
        tokens = tokenize(text, paragraphs, "en")
        assert (tokens.starts.tolist(), tokens.ends.tolist()) == _pattern_tokens(text, paragraphs), text
