"""`ServedBook`'s bookkeeping under overlapping requests, without a web server: a request's own
computation is never cancelled by another request's prefetch, failures are not kept, and the disk cache
stays under its size limit."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabula.serve import Library, Position, ServedBook

ALICE = Path(__file__).resolve().parents[2] / "examples" / "alice_in_wonderland.txt"


@pytest.fixture
def served() -> Iterator[ServedBook]:
    if not ALICE.is_file():
        pytest.skip(f"{ALICE} is missing")
    library = Library([ALICE])
    book = next(iter(library.books.values()))
    book.book()
    try:
        yield book
    finally:
        library.close()


def _blocked(executor: Any) -> threading.Event:
    """Occupy ``executor``'s one thread until the returned event is set."""
    release = threading.Event()
    started = threading.Event()

    def hold() -> None:
        started.set()
        release.wait(30)

    executor.submit(hold)
    assert started.wait(10)
    return release


def test_a_prefetch_never_cancels_a_request_s_own_analysis(served: ServedBook) -> None:
    """A request for a checkpoint queued by a prefetch takes it over; a later request elsewhere, whose
    prefetch drops stale queued work, must not cancel it (that was a CancelledError → HTTP 500)."""
    grid = served._checkpoints
    served._analyse = lambda checkpoint: checkpoint  # type: ignore[assignment,method-assign,return-value]
    served._recap = lambda checkpoint: {"checkpoint": checkpoint}  # type: ignore[method-assign]
    release_worker = _blocked(served._worker)
    release_background = _blocked(served._background)
    served._prefetch(grid[0])  # queues grid[1] in the background (behind the blocker)

    results: list[Any] = []
    errors: list[BaseException] = []

    def read(position: Position) -> None:
        try:
            results.append(served.analysis(position))
        except BaseException as exc:
            errors.append(exc)

    first = threading.Thread(target=read, args=(Position(grid[1], grid[1]),))
    second = threading.Thread(target=read, args=(Position(grid[1], grid[1]),))
    first.start()
    second.start()
    # a third reader far ahead: its prefetch drops queued work of earlier requests
    third = threading.Thread(target=read, args=(Position(grid[10], grid[10]),))
    third.start()
    for thread in (first, second, third):
        thread.join(0.5)
    release_worker.set()
    release_background.set()
    for thread in (first, second, third):
        thread.join(10)
    assert not errors, errors
    assert sorted(results) == sorted([grid[1], grid[1], grid[10]])


def test_overlapping_requests_at_random_positions_all_succeed(served: ServedBook) -> None:
    """Many readers jumping around at once: every answer is the analysis of its own checkpoint."""
    import random

    grid = served._checkpoints

    def fake(checkpoint: int) -> int:
        threading.Event().wait(0.002)
        return checkpoint

    served._analyse = fake  # type: ignore[assignment,method-assign]
    served._recap = lambda checkpoint: {"checkpoint": checkpoint}  # type: ignore[method-assign]
    rng = random.Random(7)
    errors: list[BaseException] = []
    wrong: list[tuple[int, Any]] = []

    def reader(seed: int) -> None:
        local = random.Random(seed)
        for _ in range(25):
            point = local.choice(grid)
            try:
                got = served.analysis(Position(point, point))
                recap = served.recap(Position(point, point))
            except BaseException as exc:
                errors.append(exc)
                continue
            if got != point or recap != {"checkpoint": point}:
                wrong.append((point, got))

    threads = [threading.Thread(target=reader, args=(rng.random(),)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, f"{len(errors)} failed: {errors[:3]}"
    assert not wrong
