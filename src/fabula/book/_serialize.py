"""Saving and loading a `Book` as JSON (orjson: a 1 MB novel with all layers round-trips in well under a second).

Span layers are stored column-wise and delta-encoded (format 2): ``{"gaps": [...], "lengths": [...]}``,
where a span starts ``gap`` characters after the previous one ends. Gaps and lengths are one- or
two-digit numbers where absolute offsets have up to eight digits, so a 39 MB text's book.json shrank
from 229 MB to about a third of that, and loading makes small (interned) Python ints. Format 1
(``{"starts": [...], "ends": [...]}``) is still read.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from fabula._files import write_bytes_atomic
from fabula.book._model import Book, BookMeta, Chapter, Character, Mention, Quote
from fabula.book._spans import Span, SpanLayer
from fabula.errors import InputError

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)


def book_to_dict(book: Book) -> dict[str, Any]:
    """A JSON-ready dict of the whole book (text, metadata and every layer)."""
    return _book_dict(book, _layer_out)


def _book_dict(book: Book, layer_out: Any) -> dict[str, Any]:
    return {
        "fabula_book": FORMAT_VERSION,
        "text": book.text,
        "meta": asdict(book.meta),
        "body": [book.body.start, book.body.end],
        "until": book.until,
        "partial": book.partial,
        "chapters": [
            {
                "id": c.id,
                "start": c.start,
                "end": c.end,
                "title": c.title,
                "heading": [c.heading.start, c.heading.end] if c.heading else None,
                "synthetic": c.synthetic,
                "part": c.part,
            }
            for c in book.chapters
        ],
        "paragraphs": layer_out(book.paragraphs),
        "sentences": layer_out(book.sentences),
        "tokens": layer_out(book.tokens),
        "characters": [asdict(c) for c in book.characters],
        "set_aside": [asdict(c) for c in book.set_aside],
        "mentions": {
            "starts": [m.start for m in book.mentions],
            "ends": [m.end for m in book.mentions],
            "character_ids": [m.character_id for m in book.mentions],
            "kinds": [m.kind for m in book.mentions],
            "confidences": [m.confidence for m in book.mentions],
        },
        "quotes": [_quote_out(q) for q in book.quotes],
    }


def book_from_dict(data: dict[str, Any], where: str | Path = "<json>") -> Book:
    """Rebuild a `Book` from `book_to_dict` output; InputError if it is not one."""
    if not isinstance(data, dict) or data.get("fabula_book") not in READABLE_VERSIONS:
        raise InputError(
            f"not a fabula book JSON file (format version {' or '.join(map(str, READABLE_VERSIONS))} expected)",
            where,
        )
    try:
        mentions = data.get("mentions") or {}
        return Book(
            text=data["text"],
            meta=BookMeta(**data["meta"]),
            body=Span(*data["body"]),
            chapters=[
                Chapter(
                    c["id"],
                    c["start"],
                    c["end"],
                    c.get("title"),
                    Span(*c["heading"]) if c.get("heading") else None,
                    c.get("synthetic", False),
                    c.get("part"),
                )
                for c in data["chapters"]
            ],
            paragraphs=_layer_in(data["paragraphs"]),
            sentences=_layer_in(data["sentences"]),
            tokens=_layer_in(data["tokens"]),
            characters=[Character(**c) for c in data.get("characters", [])],
            set_aside=[Character(**c) for c in data.get("set_aside", [])],
            mentions=[
                Mention(s, e, cid, kind, conf)
                for s, e, cid, kind, conf in zip(
                    mentions.get("starts", []),
                    mentions.get("ends", []),
                    mentions.get("character_ids", []),
                    mentions.get("kinds", []),
                    mentions.get("confidences", []),
                    strict=True,
                )
            ],
            quotes=[_quote_in(q) for q in data.get("quotes", [])],
            until=data.get("until"),
            partial=bool(data.get("partial", False)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"malformed fabula book JSON ({exc.__class__.__name__}: {exc})", where) from exc


def book_to_json(book: Book) -> bytes:
    """The book as JSON bytes; layers go to orjson as numpy arrays (no list of every offset in memory)."""
    return orjson.dumps(_book_dict(book, _layer_arrays), option=orjson.OPT_SERIALIZE_NUMPY)


def save_book(book: Book, path: str | Path) -> None:
    """Write the book as JSON, atomically."""
    write_bytes_atomic(path, book_to_json(book))


def load_book_json(path: str | Path) -> Book:
    p = Path(path)
    try:
        data = orjson.loads(p.read_bytes())
    except FileNotFoundError as exc:
        raise InputError("no such file", p) from exc
    except orjson.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc})", p) from exc
    return book_from_dict(data, p)


def _layer_arrays(layer: SpanLayer) -> dict[str, np.ndarray]:
    """Delta encoding: each span's gap after the previous span's end, and its length."""
    previous_ends = np.concatenate(([0], layer.ends[:-1])).astype(np.int64)
    return {"gaps": layer.starts - previous_ends, "lengths": layer.ends - layer.starts}


def _layer_out(layer: SpanLayer) -> dict[str, list[int]]:
    return {key: values.tolist() for key, values in _layer_arrays(layer).items()}


def _layer_in(data: dict[str, list[int]]) -> SpanLayer:
    if "gaps" not in data:  # format 1: absolute offsets
        return SpanLayer(np.asarray(data["starts"], dtype=np.int64), np.asarray(data["ends"], dtype=np.int64))
    gaps = np.asarray(data["gaps"], dtype=np.int64)
    lengths = np.asarray(data["lengths"], dtype=np.int64)
    if gaps.shape != lengths.shape:
        raise ValueError("a layer's gaps and lengths differ in length")
    ends = np.cumsum(gaps + lengths)
    return SpanLayer(ends - lengths, ends)


def _quote_out(quote: Quote) -> dict[str, Any]:
    """``asdict(quote)`` with the spans as pairs, built directly (asdict deep-copies every field)."""
    return {
        "id": quote.id,
        "spans": [[s.start, s.end] for s in quote.spans],
        "speaker_id": quote.speaker_id,
        "addressee_ids": list(quote.addressee_ids),
        "type": quote.type,
        "confidence": quote.confidence,
        "method": quote.method,
        "flags": list(quote.flags),
        "mention": [quote.mention.start, quote.mention.end] if quote.mention else None,
    }


def _quote_in(data: dict[str, Any]) -> Quote:
    data = dict(data)
    data["spans"] = [Span(s, e) for s, e in data["spans"]]
    data["mention"] = Span(*data["mention"]) if data.get("mention") else None
    return Quote(**data)
