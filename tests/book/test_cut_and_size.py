"""A reading position never cuts a sentence or a quotation, and the Book JSON grows gently with the text."""

from __future__ import annotations

import orjson
import pytest

from fabula.book import Book, book_from_dict, book_to_json, load_book, resolve_position
from fabula.quotes import detect_quotes
from tests.conftest import ROOT, pdnc_novel_dir

ALICE = ROOT / "examples" / "alice_in_wonderland.txt"


def _full_book(name: str) -> Book:
    return load_book(ALICE if name == "alice" else pdnc_novel_dir(name) / "novel_text.txt")


@pytest.mark.parametrize("name", ["alice", "TheSignOfTheFour"])
def test_positions_end_at_sentence_ends_and_drop_cut_quotes(name: str) -> None:
    full = _full_book(name)
    detect_quotes(full)
    sentences = set(full.sentences.pairs())
    sub_quotes = {(s.start, s.end) for q in full.quotes for s in q.spans}
    for percent in range(1, 100, 3):
        offset = resolve_position(full, f"{percent}%")
        assert offset is not None
        seen = full.truncated(offset)
        last = (int(seen.sentences.starts[-1]), int(seen.sentences.ends[-1]))
        assert last in sentences, (percent, seen.text[last[0] : last[1]][-40:])  # a whole sentence
        detect_quotes(seen)
        for quote in seen.quotes:  # every part of every quote is one the whole book has too: no fragment
            for span in quote.spans:
                assert (span.start, span.end) in sub_quotes, (percent, seen.span_text(span)[-40:])


def test_an_offset_inside_a_sentence_moves_back_to_the_previous_end() -> None:
    full = _full_book("alice")
    start, end = (int(x) for x in (full.sentences.starts[100], full.sentences.ends[100]))
    assert resolve_position(full, (start + end) // 2) == int(full.sentences.ends[99])
    assert resolve_position(full, f"char:{end}") == end  # between sentences: kept
    assert resolve_position(full, "chapter:3") == full.chapters[2].end


def test_book_json_is_compact_and_old_files_still_load() -> None:
    book = _full_book("alice")
    data = book_to_json(book)
    assert len(data) < 2.5 * len(book.text.encode())  # was 4.2x with absolute offsets
    payload = orjson.loads(data)
    assert payload["fabula_book"] == 2 and set(payload["tokens"]) == {"gaps", "lengths"}
    assert book_from_dict(payload) == book
    old = dict(payload, fabula_book=1)  # format 1: absolute offsets
    for layer, spans in (
        ("paragraphs", book.paragraphs),
        ("sentences", book.sentences),
        ("tokens", book.tokens),
    ):
        old[layer] = {"starts": spans.starts.tolist(), "ends": spans.ends.tolist()}
    assert book_from_dict(old) == book
