"""Corpus tables: the per-book folders of ``fabula analyze -o OUT`` as four Parquet files (pyarrow).

``books``, ``characters``, ``quotes`` and ``mentions`` hold one row per item with the ``book_id`` (the
book's folder name), so a corpus question is a few lines of DuckDB or polars over the files. The columns
and their types are `SCHEMAS` (documented in docs/corpus.md). Only finished books (a ``manifest.json``)
are read; pyarrow is the optional extra ``fabula[corpus]``, imported here only.
"""

from __future__ import annotations

import bisect
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from fabula.corpus._write import MANIFEST, OUTPUT_FILES
from fabula.errors import BackendError, InputError, OutputError

log = logging.getLogger(__name__)

TABLES = ("books", "characters", "quotes", "mentions")
_STRING, _INT, _INT32, _FLOAT, _STRINGS = "string", "int64", "int32", "float64", "list<string>"

# (column, type, meaning): the one source for the Parquet schemas and docs/corpus.md's tables
COLUMNS: dict[str, list[tuple[str, str, str]]] = {
    "books": [
        ("book_id", _STRING, "the book's folder name in OUT (unique in the corpus)"),
        ("title", _STRING, "title from the file's metadata or header (null if none)"),
        ("author", _STRING, "author from the file's metadata or header (null if none)"),
        ("source", _STRING, "the input file analysed"),
        ("input_sha256", _STRING, "SHA-256 of the input file"),
        ("words", _INT, "words in the (visible) text"),
        ("chapters", _INT32, "chapters found"),
        ("characters", _INT32, "characters in characters.jsonl"),
        ("quotes", _INT32, "quotations found"),
        ("attributed", _INT32, "quotations with a speaker"),
        ("until_offset", _INT, "the reading position (character offset) of a spoiler-safe run, else null"),
        ("fabula_version", _STRING, "the fabula version that wrote the folder"),
    ],
    "characters": [
        ("book_id", _STRING, "the book"),
        ("character_id", _STRING, "the character's id within the book"),
        ("name", _STRING, "canonical name"),
        ("aliases", _STRINGS, "the names the book calls them"),
        ("gender", _STRING, "female / male / nonbinary / unknown"),
        ("gender_confidence", _FLOAT, "0..1"),
        ("rank", _INT32, "importance rank within the book (1 = most important)"),
        ("mention_count", _INT, "mentions (names, titles, pronouns)"),
        ("quote_count", _INT, "quotations attributed to them"),
        ("words_spoken", _INT, "words in those quotations"),
        ("first_offset", _INT, "character offset of the first mention or quotation (null if none)"),
        ("first_chapter", _INT32, "chapter of that first appearance, counted from 1 (null if none)"),
    ],
    "quotes": [
        ("book_id", _STRING, "the book"),
        ("quote_id", _STRING, "the quotation's id within the book"),
        ("start", _INT, "character offset where the quotation starts in the book's text"),
        ("end", _INT, "character offset just after it ends"),
        ("chapter", _INT32, "chapter, counted from 1"),
        ("text", _STRING, "the quoted words (several spans joined by a space)"),
        ("words", _INT32, "words in the quotation"),
        ("speaker_id", _STRING, "the speaker's character_id (null: not attributed)"),
        ("speaker", _STRING, "the speaker's name"),
        ("speaker_gender", _STRING, "the speaker's gender (null: not attributed)"),
        ("addressee_ids", _STRINGS, "character_ids of the characters spoken to"),
        ("addressees", _STRINGS, "their names"),
        ("type", _STRING, "explicit / anaphoric / implicit"),
        ("confidence", _FLOAT, "attribution confidence, 0..1"),
        ("method", _STRING, "the attribution method and pass that decided"),
    ],
    "mentions": [
        ("book_id", _STRING, "the book"),
        ("character_id", _STRING, "the character mentioned"),
        ("start", _INT, "character offset of the mention"),
        ("end", _INT, "character offset just after it"),
        ("chapter", _INT32, "chapter, counted from 1"),
        ("kind", _STRING, "name / title / pronoun / ..."),
        ("text", _STRING, "the mention as written"),
        ("confidence", _FLOAT, "0..1"),
    ],
}


@dataclass(frozen=True, slots=True)
class TableCounts:
    """Rows written per table, and the books read."""

    books: int
    characters: int
    quotes: int
    mentions: int


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as exc:
        raise BackendError(
            "Parquet output needs pyarrow: install the optional extra with pip install 'fabula[corpus]'",
            "--to parquet",
        ) from exc
    return pyarrow


def schema(table: str) -> Any:
    """The pyarrow schema of one table (from `COLUMNS`)."""
    pa = _pyarrow()
    types = {
        _STRING: pa.string(),
        _INT: pa.int64(),
        _INT32: pa.int32(),
        _FLOAT: pa.float64(),
        _STRINGS: pa.list_(pa.string()),
    }
    return pa.schema([(name, types[kind]) for name, kind, _ in COLUMNS[table]])


def finished_book_folders(analyzed: Path) -> list[Path]:
    """The book folders under an ``analyze`` output folder that finished (have a manifest), sorted. Book
    folders without one (a run that did not finish, or failed) are named in a warning, not left out
    without a word."""
    if not analyzed.is_dir():
        raise InputError("no such folder (give the OUT folder of fabula analyze -o OUT)", analyzed)
    folders = sorted(p.parent for p in analyzed.glob(f"*/{MANIFEST}"))
    unfinished = sorted(
        p.name
        for p in analyzed.iterdir()
        if p.is_dir() and not (p / MANIFEST).exists() and any((p / name).exists() for name in OUTPUT_FILES)
    )
    if unfinished:
        log.warning(
            "%s: %d book folder(s) without %s left out (an analysis that did not finish; run fabula analyze "
            "again): %s",
            analyzed,
            len(unfinished),
            MANIFEST,
            ", ".join(unfinished[:5]) + (" …" if len(unfinished) > 5 else ""),
        )
    if not folders:
        raise InputError(
            "holds no analysed books (no */manifest.json): run fabula analyze -o OUT first", analyzed
        )
    return folders


def write_parquet_tables(
    analyzed: str | Path, destination: str | Path, *, on_book: Callable[[int, int], None] | None = None
) -> TableCounts:
    """Read every finished book folder under ``analyzed`` and write ``books``, ``characters``, ``quotes``
    and ``mentions`` as ``.parquet`` files in ``destination`` (each written atomically)."""
    pa = _pyarrow()
    from fabula._files import atomic_open, check_output_path

    out = Path(destination)
    check_output_path(out, folder=True)  # a read-only or misplaced folder fails now, before the reading
    folders = finished_book_folders(Path(analyzed))
    pieces: dict[str, list[Any]] = {name: [] for name in TABLES}
    for done, folder in enumerate(folders, 1):
        for name, book_rows in _book_rows(folder).items():
            pieces[name].append(_table(pa, name, book_rows, folder))
        if on_book:
            on_book(done, len(folders))
    tables = {name: pa.concat_tables(pieces[name]) for name in TABLES}
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the folder ({exc.strerror or exc})", out) from exc
    # all four tables or none: each goes to a temporary file, and only when all are written are they
    # renamed into place (a failure on the way, a full disk say, leaves the earlier tables as they were)
    with contextlib.ExitStack() as stack:
        for name in TABLES:
            handle = stack.enter_context(atomic_open(out / f"{name}.parquet", "wb"))
            pa.parquet.write_table(tables[name], handle, compression="zstd")
    return TableCounts(*(tables[name].num_rows for name in TABLES))


def _table(pa: Any, name: str, rows: list[dict[str, Any]], folder: Path) -> Any:
    """One book's rows of table ``name`` with the documented types; `InputError` naming the book folder
    and the field when a value has the wrong type (a hand-edited or foreign file)."""
    table_schema = schema(name)
    try:
        return pa.Table.from_pylist(rows, schema=table_schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError) as exc:
        for field in table_schema:
            try:
                pa.array([row.get(field.name) for row in rows], type=field.type)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError) as bad:
                raise InputError(
                    f"field {field.name!r} of the {name} table has a value of the wrong type ({bad}; "
                    f"documented type {field.type})",
                    folder,
                ) from exc
        raise InputError(f"cannot make the {name} table ({exc})", folder) from exc


def _book_rows(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """The rows one book folder gives each table; `InputError` naming the folder when its files are not
    what ``fabula analyze`` writes (a missing field, a list where a number belongs)."""
    try:
        return _rows_of(folder)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        detail = f"missing field {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise InputError(f"not the output of fabula analyze ({detail})", folder) from exc


def _rows_of(folder: Path) -> dict[str, list[dict[str, Any]]]:
    book_id = folder.name
    try:
        manifest = orjson.loads((folder / MANIFEST).read_bytes())
        book = orjson.loads((folder / "book.json").read_bytes())
        characters = [
            orjson.loads(line)
            for line in (folder / "characters.jsonl").read_bytes().splitlines()
            if line.strip()
        ]
        quotes = [
            orjson.loads(line) for line in (folder / "quotes.jsonl").read_bytes().splitlines() if line.strip()
        ]
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InputError(f"cannot read an analysed book ({exc})", folder) from exc
    text: str = book["text"]
    chapter_starts = [c["start"] for c in book.get("chapters", [])]

    def chapter(offset: int) -> int:
        return max(1, bisect.bisect_right(chapter_starts, offset))

    summary = manifest.get("summary") or {}
    meta = book.get("meta") or {}
    gender_of = {c["id"]: c.get("gender") for c in characters}
    books = [
        {
            "book_id": book_id,
            "title": meta.get("title"),
            "author": meta.get("author"),
            "source": manifest.get("input"),
            "input_sha256": manifest.get("input_sha256"),
            "words": summary.get("words"),
            "chapters": len(chapter_starts),
            "characters": len(characters),
            "quotes": len(quotes),
            "attributed": sum(1 for q in quotes if q.get("speaker_id")),
            "until_offset": book.get("until"),
            "fabula_version": (manifest.get("settings") or {}).get("fabula_version"),
        }
    ]
    character_rows = [
        {
            "book_id": book_id,
            "character_id": c["id"],
            "name": c["name"],
            "aliases": list(c.get("aliases") or {}),
            "gender": c.get("gender"),
            "gender_confidence": c.get("gender_confidence"),
            "rank": c.get("rank"),
            "mention_count": c.get("mention_count"),
            "quote_count": c.get("quote_count"),
            "words_spoken": c.get("words_spoken"),
            "first_offset": c.get("first_offset"),
            "first_chapter": c.get("first_chapter"),
        }
        for c in characters
    ]
    quote_rows = [
        {
            "book_id": book_id,
            "quote_id": q["id"],
            "start": q["start"],
            "end": q["end"],
            "chapter": chapter(q["start"]),
            "text": q["text"],
            "words": len(q["text"].split()),
            "speaker_id": q.get("speaker_id"),
            "speaker": q.get("speaker"),
            "speaker_gender": gender_of.get(q["speaker_id"]) if q.get("speaker_id") else None,
            "addressee_ids": q.get("addressee_ids") or [],
            "addressees": q.get("addressees") or [],
            "type": q.get("type"),
            "confidence": q.get("confidence"),
            "method": q.get("method"),
        }
        for q in quotes
    ]
    mentions = book.get("mentions") or {}
    mention_rows = [
        {
            "book_id": book_id,
            "character_id": character_id,
            "start": start,
            "end": end,
            "chapter": chapter(start),
            "kind": kind,
            "text": text[start:end],
            "confidence": confidence,
        }
        for start, end, character_id, kind, confidence in zip(
            mentions.get("starts", []),
            mentions.get("ends", []),
            mentions.get("character_ids", []),
            mentions.get("kinds", []),
            mentions.get("confidences", []),
            strict=True,
        )
    ]
    return {"books": books, "characters": character_rows, "quotes": quote_rows, "mentions": mention_rows}
