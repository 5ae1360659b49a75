"""Property tests of the segmenters on generated texts (letters, quotes, punctuation, line breaks, CJK).

Every layer's spans are non-empty, in bounds, sorted and non-overlapping; sentences and tokens lie
inside paragraphs; sentences and tokens cover every non-space character of their paragraph;
paragraphs cover every non-space character of the body; chapters tile the body from the first heading.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabula.book import Book, SpanLayer, book_from_text

PIECES = [
    "Mr.", "Mrs.", "Dr.", "St.", "J.", "R.", "No.", "etc.", "3.5", "1.", "I.", "II", "Emma", "said", "she",
    "the", "house", "asked", "Hello", "world", "it's", "well-known", "...", "\u2026", "--", "\u2014", ".",
    ",", ";", ":", "!", "?", "?!", '"', "'", "\u201c", "\u201d", "\u2018", "\u2019", "(", ")", "[", "]",
    " ", " ", " ", "  ", "\t", "\n", "\n", "\n\n", "\n\n\n", "\r\n", "\r\n\r\n", "\u3000", "\u00a0",
    "CHAPTER I", "Chapter 2", "PART ONE", "BOOK II", "VOLUME I", "\n\nCHAPTER III.\n\n", "\n\nIV.\n\n",
    "\u7b2c\u4e00\u7ae0", "\u7b2c2\u56de", "\u4ed6\u8bf4", "\u4f60\u597d", "\u5929\u4eae\u4e86", "\u3002",
    "\uff01", "\uff1f", "\uff0c", "\u300c", "\u300d", "\u2026\u2026", "\u5979\u95ee", "\u597d",
    "*** START OF THE PROJECT GUTENBERG EBOOK X ***\n", "\n*** END OF THE PROJECT GUTENBERG EBOOK X ***",
    "\U0001f600", "e\u0301", "A", "b", "Z", "0",
]  # fmt: skip

texts = st.one_of(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=200).map("".join),
    st.text(
        alphabet=st.sampled_from(
            list("abc XYZ.!?\"'\u201c\u201d\n\r\t-\u2014\u4e00\u4e8c\u3002\uff01\uff1f")
        ),
        min_size=1,
        max_size=400,
    ),
    st.text(min_size=1, max_size=300),
)


def _check_layer(layer: SpanLayer, bound_start: int, bound_end: int) -> None:
    starts, ends = layer.starts, layer.ends
    assert (starts < ends).all(), "empty span"
    if len(layer):
        assert starts[0] >= bound_start and ends[-1] <= bound_end, "out of bounds"
    assert (starts[1:] >= ends[:-1]).all(), "unsorted or overlapping"


def _covered(layer: SpanLayer, length: int) -> np.ndarray:
    mask = np.zeros(length + 1, dtype=np.int64)
    np.add.at(mask, layer.starts, 1)
    np.add.at(mask, layer.ends, -1)
    return np.cumsum(mask)[:length] > 0


def _non_space(text: str, start: int, end: int) -> np.ndarray:
    mask = np.zeros(len(text), dtype=bool)
    mask[start:end] = [not ch.isspace() for ch in text[start:end]]
    return mask


def _inside(inner: SpanLayer, outer: SpanLayer) -> None:
    for start, end in inner.pairs():
        index = outer.index_at(start)
        assert index is not None and end <= outer.ends[index], f"span {start}-{end} crosses a paragraph"


def _check_book(book: Book) -> None:
    text = book.text
    body = book.body
    assert 0 <= body.start <= body.end <= len(text)
    for layer in (book.paragraphs, book.sentences, book.tokens):
        _check_layer(layer, body.start, body.end)
    _inside(book.sentences, book.paragraphs)
    _inside(book.tokens, book.paragraphs)
    in_paragraphs = _non_space(text, 0, len(text)) & _covered(book.paragraphs, len(text))
    assert (_non_space(text, body.start, body.end) <= _covered(book.paragraphs, len(text))).all()
    assert (in_paragraphs <= _covered(book.sentences, len(text))).all(), "sentences leave text out"
    assert (in_paragraphs <= _covered(book.tokens, len(text))).all(), "tokens leave text out"
    chapters = book.chapters
    if len(book.paragraphs):
        assert chapters, "a book with text has at least one chapter"
        assert chapters[0].start >= body.start
        if chapters[0].synthetic:
            assert chapters[0].start == book.paragraphs.starts[0]
        assert chapters[-1].end == body.end
        for previous, chapter in itertools.pairwise(chapters):
            assert previous.start < previous.end <= chapter.start
            assert not text[previous.end : chapter.start].strip(), "a gap between chapters"
        for chapter in chapters:
            assert book.chapter_at(chapter.start) is chapter
            if chapter.heading is not None:
                assert chapter.start <= chapter.heading.start < chapter.heading.end <= chapter.end


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_layers_are_well_formed(text: str) -> None:
    _check_book(book_from_text(text))


@settings(max_examples=60, deadline=None)
@given(texts)
def test_both_languages_on_any_text(text: str) -> None:
    for language in ("en", "zh"):
        _check_book(book_from_text(text, language=language))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=60).map("".join), st.integers(0, 10_000))
def test_truncated_view_stays_well_formed(text: str, cut: int) -> None:
    book = book_from_text(text)
    limited = book.truncated(min(cut, len(text)))
    assert len(limited.text) == limited.body.end
    for layer in (limited.paragraphs, limited.sentences, limited.tokens):
        _check_layer(layer, limited.body.start, limited.body.end)
    assert all(c.end <= limited.body.end for c in limited.chapters)


def test_white_space_is_the_same_for_str_split_and_re() -> None:
    """`normalize_text` collapses white space with ``str.split`` where it once used ``re.sub(r"\\s+", ...)``:
    the same characters are white space for both, on every code point."""
    import re
    import sys

    space = re.compile(r"\s")
    assert [
        c for c in range(sys.maxunicode + 1) if (space.fullmatch(chr(c)) is not None) != chr(c).isspace()
    ] == []


@given(st.text(alphabet=st.sampled_from(list(" \t\n\r\x0b\x0c\x1c\u00a0\u2028\u3000ab_.’")), max_size=40))
def test_normalized_text_is_the_pattern_s(text: str) -> None:
    import re

    from fabula.book import normalize_text

    expected = re.sub(r"\s+", " ", text).strip()
    assert normalize_text(text, keep_emphasis=True) == expected
