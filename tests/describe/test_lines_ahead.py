"""The characteristic lines with every quote's line read ahead (`read_lines_ahead`, as ``fabula analyze`` starts
it in a forked child) are the lines read in the profiles themselves, and a quote the child did not read (its
text changed) is read there."""

from __future__ import annotations

from typing import Any

import pytest

from fabula.describe import _lines
from fabula.pipeline import analyze_book
from tests.conftest import pdnc_novel_dir


def test_lines_read_ahead_are_the_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    book = analyze_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt").book
    assert len(book.quotes) >= 500
    expected = _lines.characteristic_lines(book)
    assert sum(map(len, expected.values())) > 20

    kept: dict[Any, Any] = {}
    # the child's work done here (a test process has threads: it never forks), its result taken as a fork's
    monkeypatch.setattr(_lines, "start_ahead", lambda key, fn: kept.setdefault(key, fn()) is not None)
    monkeypatch.setattr(_lines, "take_ahead", lambda key: (key in kept, kept.pop(key, None)))
    monkeypatch.setattr(_lines, "AHEAD_QUOTES", 0)
    monkeypatch.setattr(_lines, "can_fork", lambda: True)
    for clear in (_lines._line, _lines._content):
        clear.cache_clear()
    assert _lines.read_lines_ahead(book)
    lines_of, content_of = kept[_lines._ahead_key(book)]
    assert len(lines_of) == len({tuple(book.text[s.start : s.end] for s in q.spans) for q in book.quotes})
    assert _lines._line.cache_info().currsize == len(lines_of)
    assert _lines.characteristic_lines(book) == expected
    assert not kept  # taken once

    # a quote the child did not read (its text changed meanwhile), and no content words at all: read here
    assert _lines.read_lines_ahead(book)
    lines_of, content_of = kept[_lines._ahead_key(book)]
    quote = next(q for q in book.quotes if q.speaker_id == next(iter(expected)))
    del lines_of[tuple(book.text[s.start : s.end] for s in quote.spans)]
    content_of.clear()
    assert _lines.characteristic_lines(book) == expected
    assert not kept
