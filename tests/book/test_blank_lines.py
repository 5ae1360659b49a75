"""Paragraphs of a text without carriage returns are found with the line-feed-only blank-line pattern
(`fabula.book._structure._BLANK_LINES_LF`): the same paragraphs as with the general pattern."""

from __future__ import annotations

import random

import pytest

from fabula.book import _structure
from fabula.book._decode import read_book_file
from fabula.book._spans import Span
from fabula.book._structure import find_body, find_paragraphs
from tests.conftest import pdnc_novel_dir


def _general(text: str, body: Span, monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    """`find_paragraphs` with the general pattern only."""
    with monkeypatch.context() as patch:
        patch.setattr(_structure, "_BLANK_LINES_LF", _structure._BLANK_LINES)
        found = find_paragraphs(text, body)
    return found.starts.tolist(), found.ends.tolist()


@pytest.mark.parametrize("novel", ["Emma", "TheSunAlsoRises"])
def test_same_paragraphs_on_a_novel(novel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = read_book_file(pdnc_novel_dir(novel) / "novel_text.txt").text
    body = find_body(text).body
    assert "\r" not in text[body.start : body.end]  # the fast pattern is the one that runs
    found = find_paragraphs(text, body)
    assert (found.starts.tolist(), found.ends.tolist()) == _general(text, body, monkeypatch)


def test_same_paragraphs_on_random_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Line feeds, carriage returns (inside and outside the body), tabs, form feeds, ideographic and
    no-break spaces, words; bodies cut anywhere."""
    pieces = [
        "\n",
        "\n",
        "\r",
        "\r\n",
        " ",
        "\t",
        "\f",
        "\v",
        "\u3000",
        "\u00a0",
        "\u2028",
        "word",
        "A.",
        "x",
    ]
    rng = random.Random(105)
    fast = 0
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        start = rng.randint(0, len(text))
        body = Span(start, rng.randint(start, len(text)))
        found = find_paragraphs(text, body)
        assert (found.starts.tolist(), found.ends.tolist()) == _general(text, body, monkeypatch), (text, body)
        fast += "\r" not in text[body.start : body.end]
    assert fast > 2_000
