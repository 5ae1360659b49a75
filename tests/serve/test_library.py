"""`ServedBook`'s bookkeeping under overlapping requests, without a web server: a request's own
computation is never cancelled by another request's prefetch, failures are not kept, and the disk cache
stays under its size limit."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import CancelledError
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
    served._recap = lambda checkpoint, analysis=None: {"checkpoint": checkpoint}  # type: ignore[method-assign]
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


def test_a_jump_drops_the_stale_look_ahead_before_its_own_analysis(served: ServedBook) -> None:
    """The look-ahead queued for the reader's old place is dropped before the analysis of the checkpoint
    they jumped to starts (not after it): it would compete with the jump for the cores and the
    interpreter lock while the reader waits. A checkpoint already asked for drops nothing."""
    grid = served._checkpoints
    seen: dict[int, bool] = {}

    def analyse(checkpoint: int) -> int:
        seen[checkpoint] = grid[1] in served._analyses or grid[1] in served._recaps
        return checkpoint

    served._analyse = analyse  # type: ignore[assignment,method-assign]
    served._recap = lambda checkpoint, analysis=None: {"checkpoint": checkpoint}  # type: ignore[method-assign]
    release_background = _blocked(served._background)
    try:
        served.analysis(Position(grid[0], grid[0]))  # queues grid[1]'s analysis and recap ahead
        assert grid[1] in served._analyses and grid[1] in served._recaps
        served.analysis(Position(grid[0], grid[0]))  # asked for already: the look-ahead stays
        assert grid[1] in served._analyses
        served.analysis(Position(grid[10], grid[10]))  # the jump
        assert seen[grid[10]] is False
        assert grid[1] not in served._analyses and grid[1] not in served._recaps
        assert grid[11] in served._analyses and grid[12] in served._analyses  # the new stretch's look-ahead
    finally:
        release_background.set()


def test_the_look_ahead_prepares_the_next_two_checkpoints(served: ServedBook) -> None:
    """After an answer the next `LOOK_AHEAD` (two) checkpoints are prepared, nearest first, each analysis
    before its recap: a reader who turns a page past the nearer one (a chapter end within a page of a grid
    point) finds the one after it ready too, and only the checkpoint after those two is then prepared."""
    from fabula.serve._library import LOOK_AHEAD

    assert LOOK_AHEAD == 2
    grid = served._checkpoints
    done: list[tuple[str, int]] = []

    def analyse(checkpoint: int) -> int:
        done.append(("analysis", checkpoint))
        return checkpoint

    def recap(checkpoint: int, analysis: Any = None) -> dict[str, int]:
        done.append(("recap", checkpoint))
        return {"checkpoint": checkpoint}

    served._analyse = analyse  # type: ignore[assignment,method-assign]
    served._recap = recap  # type: ignore[assignment,method-assign]
    served.analysis(Position(grid[3], grid[3]))
    served._background.submit(lambda: None).result(timeout=30)
    assert done == [
        ("analysis", grid[3]),
        ("analysis", grid[4]),
        ("recap", grid[4]),
        ("analysis", grid[5]),
        ("recap", grid[5]),
    ]
    done.clear()
    assert served.analysis(Position(grid[5], grid[5])) == grid[5]  # past grid[4]: ready, nothing analysed
    assert served.recap(Position(grid[5], grid[5])) == {"checkpoint": grid[5]}
    served._background.submit(lambda: None).result(timeout=30)
    assert done == [("analysis", grid[6]), ("recap", grid[6]), ("analysis", grid[7]), ("recap", grid[7])]


def _stalled_analyses(
    monkeypatch: pytest.MonkeyPatch, stalled: int
) -> tuple[threading.Event, threading.Event, list[int]]:
    """`fabula.pipeline.analyze_book` as the server calls it, except that the analysis of the cut at
    ``stalled`` waits at its first stage until the second event is set (the first is set when it gets
    there); the list gets the cut offset of every analysis that ran to its end."""
    import fabula.pipeline

    real = fabula.pipeline.analyze_book
    there, go_on = threading.Event(), threading.Event()
    finished: list[int] = []

    def analyze_book(cut: Any, *, progress: Any = None, **options: Any) -> Any:
        def stage(name: str, seconds: float | None) -> None:
            if cut.until == stalled:
                there.set()
                go_on.wait(30)
            if progress is not None:
                progress(name, seconds)

        analysis = real(cut, progress=stage, **options)
        finished.append(cut.until)
        return analysis

    monkeypatch.setattr(fabula.pipeline, "analyze_book", analyze_book)
    return there, go_on, finished


def test_a_jump_stops_a_look_ahead_analysed_in_the_server(
    served: ServedBook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a disk cache the look-ahead is analysed on the server's background thread. When the reader
    jumps away meanwhile, it stops before its next stage (it would share the interpreter with the jump's
    own analysis to its end) and is forgotten; the jump's answer, the new look-ahead and the stopped
    checkpoint asked for later are each exactly a fresh analysis of the book truncated there (nothing
    the stopped analysis left half made reaches them)."""
    from fabula.pipeline import analyze_book
    from tests.serve.test_reuse import _layers

    grid = served._checkpoints
    late = grid[-3]
    there, go_on, finished = _stalled_analyses(monkeypatch, late)
    try:
        served._prefetch(grid[-4])  # the look-ahead of ``late``, analysed here
        assert there.wait(30)
        stale = served._analyses[late]
        jump = served.analysis(Position(grid[2], grid[2]))
        assert jump.book.until == grid[2]
        assert late not in served._analyses  # forgotten at once: a later request starts afresh
    finally:
        go_on.set()
    with pytest.raises(CancelledError):
        stale.result(timeout=60)
    served._background.submit(lambda: None).result(timeout=60)  # the new look-ahead, behind it
    assert late not in finished
    assert served._analyses[grid[3]].result().book.until == grid[3]
    again = served.analysis(Position(late, late))  # asked for later: analysed to its end
    assert again.book.until == late and finished[-1] == late
    whole = served.book()
    for point, analysis in ((grid[2], jump), (grid[3], served._analyses[grid[3]].result()), (late, again)):
        assert _layers(analysis) == _layers(analyze_book(whole.truncated(point))), point


def test_a_jump_skips_reading_back_a_stale_look_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a disk cache the helper process prepares the look-ahead; when the reader jumps away after the
    helper finished but before the server read its folder back, the server does not read it back (nor
    analyse it itself)."""
    if not ALICE.is_file():
        pytest.skip(f"{ALICE} is missing")
    from fabula.serve import _library

    library = Library([ALICE], cache=tmp_path / "cache")
    served = next(iter(library.books.values()))
    lookahead = served._lookahead
    assert lookahead is not None
    done, go_on = threading.Event(), threading.Event()

    def prepare(job: dict[str, Any]) -> str:  # the helper "finished" (it wrote nothing)
        done.set()
        go_on.wait(30)
        return "ok"

    read_back: list[Path] = []
    real_read = _library._read_analysis
    monkeypatch.setattr(lookahead, "prepare", prepare)
    monkeypatch.setattr(
        _library, "_read_analysis", lambda folder: read_back.append(folder) or real_read(folder)
    )
    try:
        served.book()
        grid = served._checkpoints
        late = grid[-3]
        _, _, finished = _stalled_analyses(monkeypatch, -1)
        served._prefetch(grid[-4])
        assert done.wait(30)
        stale = served._analyses[late]
        served._drop_ahead(grid[2])  # what a jump to grid[2] does first
        go_on.set()
        with pytest.raises(CancelledError):
            stale.result(timeout=60)
        assert late not in finished and not read_back
        assert late not in served._analyses
    finally:
        go_on.set()
        library.close()


def test_overlapping_requests_at_random_positions_all_succeed(served: ServedBook) -> None:
    """Many readers jumping around at once: every answer is the analysis of its own checkpoint."""
    import random

    grid = served._checkpoints

    def fake(checkpoint: int) -> int:
        threading.Event().wait(0.002)
        return checkpoint

    served._analyse = fake  # type: ignore[assignment,method-assign]
    served._recap = lambda checkpoint, analysis=None: {"checkpoint": checkpoint}  # type: ignore[method-assign]
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


def test_the_disk_cache_keeps_under_its_size_limit(tmp_path: Path) -> None:
    """Checkpoint folders beyond the limit go, least recently used first; folders being written (no
    marker) and other files (the LLM cache) are never touched. The limit holds while a server writes."""
    import os
    import time

    cache = tmp_path / "cache"
    cache.mkdir()
    for age, name in enumerate(["old", "middle", "new"]):
        folder = cache / f"book.until-{name}"
        folder.mkdir()
        (folder / "book.json").write_bytes(b"x" * 600_000)
        (folder / "serve.json").write_bytes(b"{}")
        stamp = time.time() - 1000 + age * 100
        os.utime(folder / "serve.json", (stamp, stamp))
    (cache / "book.until-writing").mkdir()
    (cache / "book.until-writing" / "book.json").write_bytes(b"x" * 2_000_000)
    (cache / "llm.sqlite").write_bytes(b"x" * 3_000_000)
    library = Library([ALICE], cache=cache, cache_mb=1)
    try:
        assert library.evict(cache) == 2
    finally:
        library.close()
    assert sorted(p.name for p in cache.iterdir()) == ["book.until-new", "book.until-writing", "llm.sqlite"]

    if not ALICE.is_file():
        pytest.skip(f"{ALICE} is missing")
    served_cache = tmp_path / "served"
    library = Library([ALICE], cache=served_cache, cache_mb=1)
    try:
        served = next(iter(library.books.values()))
        served.book()
        grid = served._checkpoints
        for point in (grid[len(grid) // 4], grid[len(grid) // 2], grid[3 * len(grid) // 4]):
            served.analysis(Position(point, point))
            served._writer.submit(lambda: None).result(timeout=120)  # its folder written, then the eviction
        # the look-ahead of the last point (folders the helper writes, each followed by an eviction on this
        # thread) done too: closing now would leave a folder written and not yet evicted (the check below
        # failed whenever the last eviction ran late on a busy machine; a sleep of 0.5 s was too short)
        served._background.submit(lambda: None).result(timeout=120)
        served._writer.submit(lambda: None).result(timeout=120)
    finally:
        library.close()
    kept = [p for p in served_cache.glob("*.until-*") if (p / "serve.json").is_file()]
    size = sum(f.stat().st_size for p in kept for f in p.iterdir())
    assert kept and (size <= 1_000_000 or len(kept) == 1), (len(kept), size)


def test_a_failing_look_ahead_process_leaves_the_checkpoint_to_the_server(tmp_path: Path) -> None:
    """The helper process refuses a book whose file changed after the server read it (its text is no
    longer the one served): the server then analyses the checkpoint itself, from the text it serves."""
    from fabula.pipeline import analyze_book

    copy = tmp_path / "alice.txt"
    copy.write_bytes(ALICE.read_bytes())
    library = Library([copy], cache=tmp_path / "cache")
    served = next(iter(library.books.values()))
    try:
        whole = served.book()
        copy.write_text("Another book altogether.\n" * 400, encoding="utf-8")
        grid = served._checkpoints
        served.analysis(Position(grid[3], grid[3]))
        served._background.submit(lambda: None).result(timeout=120)  # the look-ahead of grid[4] is done
        ahead = served._analyses[grid[4]].result()
        assert "from" not in ahead.settings  # made here, not read from a folder the helper wrote
        fresh = analyze_book(whole.truncated(grid[4]))
        assert [c.name for c in ahead.book.characters] == [c.name for c in fresh.book.characters]
        assert [q.speaker_id for q in ahead.book.quotes] == [q.speaker_id for q in fresh.book.quotes]
    finally:
        library.close()


def test_a_look_ahead_process_that_cannot_run_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper that dies at once (here: no Python to run it) is restarted a few times, then not used
    again: each look-ahead is then the server's own work, without a process started per checkpoint."""
    import subprocess
    import sys

    from fabula.serve._ahead import MAX_RESTARTS, Lookahead

    started: list[object] = []
    real = subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> Any:
        started.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(sys, "executable", "/bin/false")
    monkeypatch.setattr(subprocess, "Popen", popen)
    ahead = Lookahead()
    try:
        assert all(ahead.prepare({"checkpoint": 1}) == "failed" for _ in range(MAX_RESTARTS + 3))
    finally:
        ahead.close()
    assert len(started) == MAX_RESTARTS


@pytest.mark.slow
def test_a_jump_stops_the_look_ahead_it_made_stale(tmp_path: Path) -> None:
    """The helper is preparing a checkpoint near the end when the reader jumps to the start: it stops at
    its next stage (nothing of it is stored), and the look-ahead of the new stretch follows at once. On a
    fast machine the helper may finish the job before a fixed wait ends, and then there is nothing to
    stop: each try waits less, on a fresh library, until the jump comes while the job is in hand."""
    import time

    from tests.conftest import pdnc_novel_dir

    for attempt, wait in enumerate((1.0, 0.5, 0.25, 0.1, 0.0)):
        library = Library([pdnc_novel_dir("Emma") / "novel_text.txt"], cache=tmp_path / f"cache{attempt}")
        served = next(iter(library.books.values()))
        try:
            served.book()
            grid = served._checkpoints
            late = grid[-3]
            served._prefetch(grid[-4])  # the look-ahead of ``late`` goes to the helper
            lookahead = served._lookahead
            assert lookahead is not None
            deadline = time.monotonic() + 120
            while (lookahead._running or ("", 0, 0))[1] != late and time.monotonic() < deadline:
                time.sleep(0.05)
            assert lookahead._running is not None, "the helper never took the job"
            time.sleep(wait)  # inside the analysis (imports and loading done, some stages run)
            if (lookahead._running or ("", 0, 0))[1] != late:
                continue  # the job was done before the jump: nothing stale to stop, try a shorter wait
            served.analysis(Position(grid[2], grid[2]))  # the jump: its prefetch cancels the stale job
            served._background.submit(lambda: None).result(timeout=120)
            assert late not in served._analyses
            assert not (served._folder(late) / "serve.json").exists()  # nothing of it was stored
            assert (served._folder(grid[3]) / "serve.json").is_file()  # the new look-ahead was done
            return
        finally:
            library.close()
    pytest.fail("the helper finished the look-ahead before every jump")


def test_young_collections_wait_for_the_analyses_to_be_written(tmp_path: Path) -> None:
    """While the server analyses checkpoints, Python's youngest generation is not collected at its usual
    threshold; it is again (and collected) once the last of them has been written to the disk cache, or
    at once without a cache; nested or overlapping analyses put the threshold back once, after the last."""
    import gc

    from fabula.serve import _library

    # an earlier test's server may still be finishing an analysis on a thread of its own, which holds the
    # threshold raised until it ends: start from the usual threshold
    for _ in range(1200):
        if _library._collect_later._deferred == 0:
            break
        threading.Event().wait(0.05)
    before = gc.get_threshold()
    assert before[0] != _library.DEFERRED_YOUNG_OBJECTS
    first, second = _library._collect_later.defer(), _library._collect_later.defer()
    assert gc.get_threshold()[0] == _library.DEFERRED_YOUNG_OBJECTS
    first()
    first()  # once only
    assert gc.get_threshold()[0] == _library.DEFERRED_YOUNG_OBJECTS
    second()
    assert gc.get_threshold() == before

    source = Path(__file__).resolve().parents[2] / "examples" / "alice_in_wonderland.txt"
    library = Library([source], cache=tmp_path / "cache")
    book = next(iter(library.books.values()))
    book.book()
    store = threading.Event()
    seen: list[tuple[int, int, int]] = []
    stored = book._store_when_quiet

    def store_later(*args: Any) -> None:
        store.wait(30)
        seen.append(gc.get_threshold())
        stored(*args)

    book._store_when_quiet = store_later  # type: ignore[method-assign]
    try:
        book.analysis(book.position("100%"))  # the last checkpoint: no look-ahead after it
        assert gc.get_threshold()[0] == _library.DEFERRED_YOUNG_OBJECTS  # not written yet
        store.set()
        for _ in range(1200):
            if seen and gc.get_threshold() == before:
                break
            threading.Event().wait(0.05)
        assert seen == [(_library.DEFERRED_YOUNG_OBJECTS, *before[1:])]
        assert gc.get_threshold() == before
    finally:
        store.set()
        library.close()
    uncached = Library([source])
    try:
        served = next(iter(uncached.books.values()))
        served.analysis(served.position("100%"))
        assert gc.get_threshold() == before
    finally:
        uncached.close()


def test_close_stops_the_work_under_way_and_leaves_no_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A closed library leaves no thread behind that could still write to its cache: the analysis a
    request waits for stops at its next stage, the write of an earlier checkpoint waiting for a pause in
    the requests is dropped and the look-ahead waiting for the helper process ends with it. Before, each
    ran on (the analysis to its end, the write after it) on threads `close` did not wait for."""
    fabula_threads = lambda: {t for t in threading.enumerate() if t.name.startswith("fabula-")}  # noqa: E731
    before = fabula_threads()
    library = Library([ALICE], cache=tmp_path / "cache")
    served = next(iter(library.books.values()))
    served.book()
    grid = served._checkpoints
    there, go_on, finished = _stalled_analyses(monkeypatch, grid[10])
    errors: list[BaseException] = []

    def read(position: Position) -> None:
        try:
            served.analysis(position)
        except BaseException as exc:
            errors.append(exc)

    served.analysis(Position(grid[2], grid[2]))  # analysed; written once the requests pause
    reader = threading.Thread(target=read, args=(Position(grid[10], grid[10]),))
    reader.start()
    assert there.wait(60), "the analysis never started"
    threading.Timer(0.3, go_on.set).start()  # the stage under way ends a little after the close began
    closed = library.close()
    reader.join(10)
    assert fabula_threads() <= before, sorted(t.name for t in fabula_threads() - before)
    assert grid[10] not in finished  # stopped before its next stage
    assert len(errors) == 1 and isinstance(errors[0], CancelledError)
    assert not (served._folder(grid[2]) / "serve.json").exists()  # nothing written after the close
    assert not (served._folder(grid[10]) / "serve.json").exists()
    assert closed is True  # it says so
