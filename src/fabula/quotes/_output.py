"""Quote records (one JSON-able dict per quote) and the JSONL / BookNLP-style TSV files."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Literal

import orjson

from fabula._files import write_bytes_atomic
from fabula.book import Book
from fabula.errors import InputError

QuoteFormat = Literal["jsonl", "tsv"]
# BookNLP's .quotes columns (token indices), then fabula's additions.
TSV_COLUMNS = [
    "quote_start",
    "quote_end",
    "mention_start",
    "mention_end",
    "mention_phrase",
    "char_id",
    "quote",
    "speaker",
    "type",
    "confidence",
    "method",
]


def quote_records(book: Book) -> list[dict[str, Any]]:
    """One record per quote: id, spans, text, speaker (id and name), addressees, type, confidence,
    method, flags, and the speaker mention the attribution used."""
    names = {c.id: c.name for c in book.characters}
    records = []
    for quote in book.quotes:
        records.append(
            {
                "id": quote.id,
                "start": quote.start,
                "end": quote.end,
                "spans": [[s.start, s.end] for s in quote.spans],
                "text": " ".join(book.span_text(s, normalize=True) for s in quote.spans),
                "speaker_id": quote.speaker_id,
                "speaker": names.get(quote.speaker_id) if quote.speaker_id else None,
                "addressee_ids": list(quote.addressee_ids),
                "addressees": [names.get(a, a) for a in quote.addressee_ids],
                "type": quote.type,
                "confidence": round(quote.confidence, 3),
                "method": quote.method,
                "flags": list(quote.flags),
                "mention": None
                if quote.mention is None
                else {
                    "start": quote.mention.start,
                    "end": quote.mention.end,
                    "text": book.span_text(quote.mention, normalize=True),
                },
            }
        )
    return records


def quotes_bytes(
    book: Book, format: QuoteFormat = "jsonl", records: list[dict[str, Any]] | None = None
) -> bytes:
    """The quotes as JSONL (one record a line) or a BookNLP-style TSV (``records``: the book's
    `quote_records`, when the caller writes both formats)."""
    if records is None:
        records = quote_records(book)
    if format == "jsonl":
        return b"".join(orjson.dumps(r) + b"\n" for r in records)
    if format == "tsv":
        return _tsv(book, records).encode("utf-8")
    raise InputError(f"unknown quote format {format!r} (use jsonl or tsv)", "--format")


def write_quotes(
    book: Book,
    path: str | Path,
    format: QuoteFormat = "jsonl",
    records: list[dict[str, Any]] | None = None,
) -> None:
    """Write the quotes atomically (no partial file) as JSONL or a BookNLP-style TSV (``records`` as
    in `quotes_bytes`)."""
    write_bytes_atomic(path, quotes_bytes(book, format, records))


def _tsv(book: Book, records: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(TSV_COLUMNS)
    quotes = book.quotes
    # every quote's and speaker mention's tokens in two array searches each (`SpanLayer.overlapping_each`)
    quote_tokens = book.tokens.overlapping_each([q.start for q in quotes], [q.end for q in quotes])
    mentions = [q.mention for q in quotes if q.mention is not None]
    mention_tokens = iter(
        book.tokens.overlapping_each([m.start for m in mentions], [m.end for m in mentions])
    )
    for record, quote, q_tokens in zip(records, quotes, quote_tokens, strict=True):
        mention = quote.mention
        m_tokens = next(mention_tokens) if mention is not None else range(0)
        writer.writerow(
            [
                q_tokens.start if q_tokens else -1,
                q_tokens.stop - 1 if q_tokens else -1,
                m_tokens.start if m_tokens else -1,
                m_tokens.stop - 1 if m_tokens else -1,
                record["mention"]["text"] if record["mention"] else "",
                quote.speaker_id if quote.speaker_id is not None else -1,
                record["text"],
                record["speaker"] or "",
                quote.type or "",
                f"{quote.confidence:.3f}",
                quote.method or "",
            ]
        )
    return out.getvalue()
