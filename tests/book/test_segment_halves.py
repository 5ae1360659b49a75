"""A long English book is segmented in two halves on two cores (`fabula.book._segment.segment`): the
sentences and tokens must be exactly those of segmenting it whole in one process."""

from __future__ import annotations

import numpy as np
import pytest

from fabula.book._decode import read_book_file
from fabula.book._segment import FORK_CHARACTERS, segment, split_sentences, tokenize
from fabula.book._structure import find_body, find_paragraphs
from tests.conftest import pdnc_novel_dir


@pytest.mark.parametrize("novel", ["Emma", "TheSunAlsoRises"])
def test_halves_give_the_spans_of_the_whole(novel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = read_book_file(pdnc_novel_dir(novel) / "novel_text.txt").text
    paragraphs = find_paragraphs(text, find_body(text).body)
    assert paragraphs.ends[-1] - paragraphs.starts[0] >= FORK_CHARACTERS  # long enough to be split
    whole = (split_sentences(text, paragraphs, "en"), tokenize(text, paragraphs, "en"))
    halves = segment(text, paragraphs, "en")
    monkeypatch.setenv("FABULA_FORK", "0")
    sequential = segment(text, paragraphs, "en")
    for got in (halves, sequential):
        for mine, expected in zip(got, whole, strict=True):
            assert mine.starts.dtype == expected.starts.dtype == np.int64
            assert np.array_equal(mine.starts, expected.starts) and np.array_equal(mine.ends, expected.ends)
