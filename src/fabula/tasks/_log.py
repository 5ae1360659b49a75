"""The logs beside a report: ``OUT.items.jsonl`` (one line per finished item: what resuming reads) and
``OUT.samples.jsonl`` (one line per sample, written at the end; see `ItemOutcome.samples`)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from fabula.errors import InputError
from fabula.tasks._task import EvalItem, ItemOutcome, Task, _jsonable

LOG_VERSION = 1


@dataclass(slots=True)
class _Done:
    item: EvalItem
    outcome: ItemOutcome | None
    error: str | None = None


def log_path_for(json_path: str | Path, kind: str = "items") -> Path:
    """Where a log of a report goes: ``OUT.json`` -> ``OUT.items.jsonl`` (per item, what resuming reads)
    or, with ``kind="samples"``, ``OUT.samples.jsonl`` (per sample)."""
    path = Path(json_path)
    return (
        path.with_name(f"{path.stem}.{kind}.jsonl")
        if path.suffix == ".json"
        else Path(f"{path}.{kind}.jsonl")
    )


def sample_lines(results: Iterable[tuple[EvalItem, ItemOutcome]]) -> Iterator[dict[str, Any]]:
    """The per-sample records of finished items, in item order (see `ItemOutcome.samples`)."""
    for item, outcome in results:
        base = {"item": item.id, "groups": item.groups}
        if outcome.samples:
            for index, sample in enumerate(outcome.samples):
                yield {**base, "sample": index, **sample}
            continue
        record: dict[str, Any] = {**base, "sample": 0, "scores": outcome.scores}
        record["prediction"] = _jsonable(outcome.prediction)
        calls = outcome.details.get("llm_calls") or []
        if calls:
            record["calls"] = [
                {k: c[k] for k in ("prompt_hash", "raw_answer", "cache_hit") if k in c} for c in calls
            ]
        yield record


def _write_samples(path: Path, task: Task, items: list[EvalItem], results: dict[str, _Done]) -> None:
    """``OUT.samples.jsonl``: a header line, then every sample of every scored item (atomically)."""
    from fabula._files import atomic_open

    finished = [(i, results[i.id].outcome) for i in items if results[i.id].outcome is not None]
    with atomic_open(path, "wb") as out:
        out.write(orjson.dumps({"fabula_samples": LOG_VERSION, "task": task.name}) + b"\n")
        for line in sample_lines((item, outcome) for item, outcome in finished if outcome is not None):
            out.write(orjson.dumps(line, default=str) + b"\n")


class _ItemLog:
    """``OUT.items.jsonl``: a header line, one line per finished item, a "complete" line at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: Any = None
        self._lock = threading.Lock()

    def open(self, header: dict[str, Any], items: dict[str, EvalItem], *, resume: bool) -> dict[str, _Done]:
        """Open for appending; return the items an interrupted earlier run of the same task finished."""
        done = self._read_unfinished(header, items) if resume else None
        try:
            if done is None:
                self._file = self.path.open("wb")
                self._write(header)
                done = {}
            else:
                self._file = self.path.open("ab")
        except OSError as exc:
            raise InputError(f"cannot write the item log ({exc.strerror})", self.path) from exc
        return done

    def _read_unfinished(self, header: dict[str, Any], items: dict[str, EvalItem]) -> dict[str, _Done] | None:
        try:
            lines = self.path.read_bytes().splitlines()
        except OSError:
            return None
        records: list[dict[str, Any]] = []
        for line in lines:
            try:
                records.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue  # a line cut off by the interruption: that item runs again
        if not records or _comparable(records[0]) != _comparable(header):
            return None
        if any(r.get("complete") for r in records):
            return None
        done: dict[str, _Done] = {}
        for record in records[1:]:
            item = items.get(str(record.get("id")))
            if item is None or record.get("error") is not None:
                continue  # failed items are tried again
            outcome = ItemOutcome(
                scores=dict(record.get("scores") or {}),
                prediction=record.get("prediction"),
                details=dict(record.get("details") or {}),
                samples=list(record.get("samples") or []),
            )
            done[item.id] = _Done(item, outcome)
        if lines and not lines[-1].endswith(b"}"):
            self._truncate_partial_line()
        return done

    def _truncate_partial_line(self) -> None:
        data = self.path.read_bytes()
        keep = data[: data.rfind(b"\n") + 1]
        self.path.write_bytes(keep)

    def append(self, result: _Done) -> None:
        record: dict[str, Any] = {"id": result.item.id, "groups": result.item.groups}
        if result.outcome is None:
            record["error"] = result.error
        else:
            outcome = result.outcome
            calls = outcome.details.get("llm_calls") or []
            record["scores"] = outcome.scores
            record["prediction"] = _jsonable(outcome.prediction)
            if len(calls) == 1:  # the common one-prompt item: its call at the top level too
                record.update(
                    {k: calls[0][k] for k in ("prompt_hash", "raw_answer", "cache_hit") if k in calls[0]}
                )
            record["details"] = _jsonable(outcome.details)
            if outcome.samples:
                record["samples"] = _jsonable(outcome.samples)
        with self._lock:
            self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(orjson.dumps(record, default=str) + b"\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def mark_complete(self) -> None:
        with self.path.open("ab") as out:
            out.write(orjson.dumps({"complete": True}) + b"\n")


def _comparable(header: dict[str, Any]) -> bytes:
    return orjson.dumps(
        {k: header.get(k) for k in ("fabula_eval", "task", "settings")},
        option=orjson.OPT_SORT_KEYS,
        default=str,
    )


def _check_writable(path: Path) -> None:
    """Fail before the work, not after it, when the report cannot be written."""
    if path.is_dir():
        raise InputError("is a directory, not a file for the report", path)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise InputError("cannot write the report: its folder does not exist", path)
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError("cannot write the report: permission denied", path)
