"""The recap data file: JSONL, one target per line.

``{"id", "book": path, "target": [start, end], "candidates": [[start, end], ...], "gold": [indices],
"reasons": {"index": "why it is related"}}`` — offsets are character offsets into the book's text,
candidates are in book order, ``gold`` indexes ``candidates`` (absent or null: not annotated). A relative
``book`` path is relative to the data file's folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fabula._files import write_text_atomic
from fabula._jsonl import read_jsonl
from fabula.errors import InputError
from fabula.recap._construct import RecapTarget


def target_record(target: RecapTarget, book_path: str) -> dict[str, Any]:
    """One data-file line for ``target``."""
    record: dict[str, Any] = {
        "id": target.id,
        "book": book_path,
        "target": list(target.target.span),
        "candidates": [list(c.span) for c in target.candidates],
        "gap": target.gap,
    }
    if target.gold is not None:
        record["gold"] = list(target.gold)
    return record


def write_targets(path: Path, targets: Iterable[RecapTarget], book_path: str) -> int:
    """Write targets as JSONL (temp file, then rename); returns how many."""
    lines = [json.dumps(target_record(t, book_path), ensure_ascii=False) for t in targets]
    write_text_atomic(path, "".join(line + "\n" for line in lines))
    return len(lines)


def read_records(path: Path) -> list[dict[str, Any]]:
    """The data file's lines, checked; a bad line is a `InputError` naming the file and line."""
    records: list[dict[str, Any]] = []
    for number, record in read_jsonl(path, "recap data"):
        try:
            _check(record)
        except (TypeError, ValueError) as exc:
            raise InputError(f"line {number}: {exc}", path) from exc
        book = Path(record["book"])
        record["book"] = str(book if book.is_absolute() else (path.parent / book))
        records.append(record)
    if not records:
        raise InputError("no recap targets in the file", path)
    return records


def _check(record: dict[str, Any]) -> None:
    for key in ("id", "book", "target", "candidates"):
        if key not in record:
            raise ValueError(f"missing key {key!r}")
    spans = [record["target"], *record["candidates"]]
    if not all(isinstance(s, list) and len(s) == 2 and all(isinstance(x, int) for x in s) for s in spans):
        raise ValueError("target and candidates must be [start, end] integer pairs")
    if any(s[0] >= s[1] for s in spans):
        raise ValueError("a span must have start < end")
    if any(c[1] > record["target"][0] for c in record["candidates"]):
        raise ValueError("every candidate must end before the target starts")
    gold = record.get("gold")
    if gold is not None and (
        not isinstance(gold, list)
        or not all(isinstance(g, int) and 0 <= g < len(record["candidates"]) for g in gold)
    ):
        raise ValueError("gold must be a list of candidate indices")
