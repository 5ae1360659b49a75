"""`fabula.book.PrefixLayers`: a cut made through it is the plain cut plus the store; the store's layers are
computed once on the whole book; `settled` is a blank line far enough before the cut; the store never
travels with a pickled cut (it holds the whole text). That each component's reuse gives exactly a plain
cut's results is tests/serve/test_reuse.py's."""

from __future__ import annotations

import pickle

import pytest

from fabula.book import READ_REACH, Book, PrefixLayers, _prefix, book_from_text, prefix_layers, prefix_stable

TEXT = "\n\n".join(
    f"Paragraph {i} says that Mr. Ashdown walked {'far ' * (i % 7)}down the lane.\nIt rained."
    for i in range(60)
)


@pytest.fixture
def whole() -> Book:
    return book_from_text(TEXT)


def test_a_cut_through_the_store_is_the_plain_cut_that_carries_it(whole: Book) -> None:
    layers = PrefixLayers(whole)
    cut = whole.body.start + len(whole.body_text) // 2
    through, plain = layers.truncated(cut), whole.truncated(cut)
    assert through == plain  # the store is not compared ...
    assert through.text == plain.text and through.paragraphs == plain.paragraphs and through.until == cut
    assert prefix_layers(through) is layers and prefix_layers(plain) is None
    assert prefix_layers(through.truncated(cut - 10)) is layers  # a cut of a cut: the same whole book
    assert prefix_layers(pickle.loads(pickle.dumps(through))) is None  # ... nor pickled
    with pytest.raises(ValueError, match="whole book"):
        PrefixLayers(plain)
    other = book_from_text(TEXT.replace("Ashdown", "Ashton"))
    other.prefix_layers = layers  # a copy with other text that kept the store: not used
    assert prefix_layers(other) is None


def test_settled_is_the_last_blank_line_ending_read_reach_before_the_cut(whole: Book) -> None:
    layers = PrefixLayers(whole)
    text = whole.text
    for cut in range(whole.body.start + 1, whole.body.end, 97):
        settled = layers.settled(whole.truncated(cut))
        if settled == whole.body.start:
            assert "\n\n" not in text[whole.body.start : max(whole.body.start, cut - READ_REACH)]
            continue
        assert text[settled : settled + 2] == "\n\n" and settled + 2 <= cut - READ_REACH
        assert "\n\n" not in text[settled + 1 : cut - READ_REACH]  # no later one qualifies


def test_layers_are_computed_once_on_the_whole_book(whole: Book, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    monkeypatch.setattr(_prefix, "_COMPUTE", dict(_prefix._COMPUTE))

    @prefix_stable("test.lengths")
    def lengths(book: Book) -> int:
        seen.append(len(book.text))
        return len(book.text)

    layers = PrefixLayers(whole)
    assert layers.layer("test.lengths") == len(whole.text)
    layers.truncated(100)
    assert layers.layer("test.lengths") == len(whole.text) and seen == [len(whole.text)]
    with pytest.raises(ValueError, match="registered already"):
        prefix_stable("test.lengths")(lambda book: 0)
