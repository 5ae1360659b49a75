"""Book -> JSON -> Book is the identity, for every PDNC novel and for every layer later issues add."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from fabula.book import (
    Book,
    Character,
    Mention,
    Quote,
    Span,
    book_from_dict,
    book_from_text,
    book_to_json,
    load_book,
    load_book_json,
    save_book,
)
from fabula.errors import InputError
from tests.conftest import PDNC_DIR

NOVELS = (
    sorted(p.name for p in PDNC_DIR.glob("*/") if (p / "novel_text.txt").is_file())
    if PDNC_DIR.is_dir()
    else []
)


def _round_trip(book: Book) -> Book:
    return book_from_dict(orjson.loads(book_to_json(book)))


@pytest.mark.skipif(not NOVELS, reason=f"PDNC data not found at {PDNC_DIR}")
@pytest.mark.parametrize("novel", NOVELS)
def test_pdnc_round_trip(novel: str) -> None:
    book = load_book(PDNC_DIR / novel / "novel_text.txt")
    again = _round_trip(book)
    assert again == book
    assert again.content_hash == book.content_hash


def test_round_trip_with_every_layer(tmp_path: Path) -> None:
    text = 'CHAPTER I.\n\n"Yes," said Emma, "I will."\n\nCHAPTER II.\n\nMr. Knightley smiled.\n'
    book = book_from_text(text, source="emma.txt")
    emma = text.index("Emma")
    book.characters = [
        Character(
            "c1", "Emma Woodhouse", {"Emma": 1}, "female", 0.987654321, 1, emma, emma, 1, "gold", "major"
        ),
        Character("c2", "Mr. Knightley", {"Mr. Knightley": 1}),
    ]
    book.mentions = [Mention(emma, emma + 4, "c1", "name", 0.123456789), Mention(0, 7, None, "nominal", 1.0)]
    first, second = text.index('"Yes,"') + 1, text.index('"I will."') + 1
    book.quotes = [
        Quote(
            "q1",
            [Span(first, first + 4), Span(second, second + 7)],
            "c1",
            ["c2"],
            "explicit",
            0.9,
            "rule:said",
            ["unclosed"],
            Span(emma, emma + 4),
        )
    ]
    assert _round_trip(book) == book
    limited = book.truncated(text.index("CHAPTER II."))
    assert _round_trip(limited) == limited
    path = tmp_path / "book.json"
    save_book(book, path)
    assert load_book_json(path) == book


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{not json", "invalid JSON"),
        (b'{"fabula_book": 99}', "not a fabula book"),
        (b'{"fabula_book": 1, "text": "x"}', "malformed"),
        (b"[1, 2]", "not a fabula book"),
    ],
)
def test_bad_book_json(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=problem):
        load_book_json(path)


def test_missing_book_json(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_book_json(tmp_path / "none.json")


def test_quote_records_are_asdict_of_the_quote() -> None:
    """`_quote_out` spells out ``asdict(quote)`` field by field (faster): every field of `Quote`, in its
    order, with the spans and the mention as [start, end] pairs."""
    from dataclasses import asdict, fields

    from fabula.book import Quote, Span
    from fabula.book._serialize import _quote_out

    quote = Quote(
        "q1", [Span(3, 9), Span(14, 20)], "c2", ["c1"], "explicit", 0.75, "rules:tag", ["x"], Span(10, 13)
    )
    expected = asdict(quote) | {"spans": [[3, 9], [14, 20]], "mention": [10, 13]}
    assert list(_quote_out(quote)) == [f.name for f in fields(Quote)]
    assert _quote_out(quote) == expected
    assert _quote_out(Quote("q2", [Span(1, 2)]))["mention"] is None
