"""See the model calls a piece of work made: ``with record_calls() as calls: ...`` collects one
`CallRecord` per `LLM.generate` inside the block (in this thread and the worker threads it starts via
`LLM.generate_many`). The evaluation harness uses it to write per-item logs (prompt hash, raw answer,
cache hit, time) without any task having to pass them along.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One `LLM.generate`: the request's hash (the cache key), the raw answer, and how it was served."""

    prompt_hash: str
    raw_answer: str
    cache_hit: bool
    seconds: float
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class CallRecorder:
    """The calls made while it is active (thread-safe: LLM methods call from worker threads)."""

    def __init__(self) -> None:
        self.calls: list[CallRecord] = []
        self._lock = threading.Lock()

    def add(self, record: CallRecord) -> None:
        with self._lock:
            self.calls.append(record)


_ACTIVE: contextvars.ContextVar[CallRecorder | None] = contextvars.ContextVar(
    "fabula_llm_calls", default=None
)


@contextlib.contextmanager
def record_calls() -> Iterator[CallRecorder]:
    """Collect the LLM calls made inside the block (nested blocks see only their own calls)."""
    recorder = CallRecorder()
    token = _ACTIVE.set(recorder)
    try:
        yield recorder
    finally:
        _ACTIVE.reset(token)


def note_call(
    prompt_hash: str, raw_answer: str, *, cache_hit: bool, seconds: float, error: str | None
) -> None:
    """Called by `LLM.generate` for every answer; a no-op unless a `record_calls` block is active."""
    recorder = _ACTIVE.get()
    if recorder is not None:
        recorder.add(CallRecord(prompt_hash, raw_answer, cache_hit, seconds, error))
