from __future__ import annotations

import itertools

import pytest

from fabula.book import Book, book_from_text
from fabula.errors import ConfigError
from fabula.retrieval import UnitSpec, make_units
from fabula.retrieval._units import _token_count


def _check_spans(book: Book, kind: str, **options: int) -> None:
    units = make_units(book, UnitSpec(kind, **options))  # type: ignore[arg-type]
    assert units, kind
    assert [u.id for u in units] == list(range(len(units)))
    for previous, unit in itertools.pairwise(units):
        assert previous.start <= unit.start and previous.end <= unit.end
    for unit in units:
        assert book.body.start <= unit.start < unit.end <= book.body.end
        assert unit.text == book.span_text(unit.span, normalize=True)
        if unit.start < book.chapters[0].start:  # front matter (title page) belongs to no chapter
            assert unit.chapter is None
        else:
            assert unit.chapter is not None and book.chapters[unit.chapter].span.contains(unit.start)


def test_every_unit_kind_keeps_spans_chapters_and_text(alice: Book) -> None:
    for kind in ("paragraph", "sentence", "window", "snippet"):
        _check_spans(alice, kind)
    _check_spans(alice, "window", max_tokens=50, stride=25)


def test_paragraphs_cover_the_body_and_long_ones_are_split(alice: Book) -> None:
    whole = make_units(alice, UnitSpec("paragraph", max_tokens=10_000))
    body = [p for p in alice.paragraphs if alice.body.start <= p.start and p.end <= alice.body.end]
    assert len(whole) == len(body)
    split = make_units(alice, UnitSpec("paragraph", max_tokens=40))
    assert len(split) > len(whole)
    assert max(_token_count(alice, u.start, u.end) for u in split) <= 40
    # splitting loses no text: the pieces of each paragraph cover its tokens
    assert sum(_token_count(alice, u.start, u.end) for u in split) == sum(
        _token_count(alice, u.start, u.end) for u in whole
    )


def test_windows_and_snippets_have_the_asked_sizes(alice: Book) -> None:
    windows = make_units(alice, UnitSpec("window", max_tokens=100))
    assert all(_token_count(alice, u.start, u.end) == 100 for u in windows[:-1])
    snippets = make_units(alice, UnitSpec("snippet", sentences=3))
    first = snippets[0]
    assert len(alice.sentences.within(first.start, first.end)) == 3


def test_one_paragraph_book_and_bad_specs() -> None:
    book = book_from_text("Only one paragraph here, about a cat.")
    assert [u.text for u in make_units(book)] == ["Only one paragraph here, about a cat."]
    with pytest.raises(ConfigError):
        UnitSpec("chapter")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        UnitSpec("window", max_tokens=0)
