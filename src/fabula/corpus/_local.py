"""The ``local`` engine: books analysed in worker processes on this machine.

Workers are ``spawn``ed children that (1) ignore SIGINT — Ctrl-C reaches the whole process group, and the
parent alone decides what an interrupt stops: it terminates the workers at once and keeps what finished,
so no worker prints a traceback; (2) die with the parent — a thread in each worker waits on a pidfd of the
parent (polling its pid where pidfds are missing) and ends the worker when the parent is gone, so a
SIGKILLed ``fabula analyze`` leaves no orphan still writing books. Stage events come back over a plain
`multiprocessing.Queue` (no Manager process, which ignored SIGINT and hung the parent). A worker that dies
(killed, out of memory) breaks the pool; its unfinished books are retried once in a fresh pool.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import select
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from fabula._parallel import forbid_forking, quiet_sigint
from fabula.corpus._book import (
    AnalyzeSettings,
    BookJob,
    BookOutcome,
    StageCallback,
    analyze_to_folder,
    collect_rarely,
)

ATTEMPTS = 2  # a book whose worker died is tried once more, in a fresh pool
_EVENTS: Any = None  # the worker's end of the stage-event queue (set by _init_worker)


def run_in_processes(
    work: list[tuple[int, BookJob]],
    settings: AnalyzeSettings,
    force: bool,
    jobs: int,
    on_stage: StageCallback | None,
    finished: Callable[[int, BookOutcome], None],
) -> None:
    """Run ``work`` (index, job) in ``jobs`` worker processes, calling ``finished`` as each book ends."""
    context = multiprocessing.get_context("spawn")
    events = context.Queue()
    remaining = list(work)
    for attempt in range(1, ATTEMPTS + 1):
        lost: list[tuple[int, BookJob]] = []
        pool: ProcessPoolExecutor | None = None
        try:
            with quiet_sigint():  # workers start with SIGINT blocked (the mask survives exec)
                pool = ProcessPoolExecutor(
                    max_workers=min(jobs, len(remaining)),
                    mp_context=context,
                    initializer=_init_worker,
                    initargs=(events, os.getpid()),
                )
                pending: dict[Future[BookOutcome], tuple[int, BookJob]] = {
                    pool.submit(analyze_to_folder, job, settings, force=force, on_stage=_send_stage): (i, job)
                    for i, job in remaining
                }
            while pending:
                done, _ = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                _drain(events, on_stage)
                for future in done:
                    index, job = pending.pop(future)
                    try:
                        finished(index, future.result())
                    except BrokenProcessPool as exc:  # a worker died: retry its books, or report them
                        if attempt < ATTEMPTS:
                            lost.append((index, job))
                        else:
                            finished(index, _worker_died(job, exc))
            _drain(events, on_stage)
        except BaseException:  # a Ctrl-C held back during start-up arrives here too
            if pool is not None:
                _stop_now(pool)
            raise
        pool.shutdown(wait=True)
        if not lost:
            return
        remaining = sorted(lost)


def _worker_died(job: BookJob, exc: BaseException) -> BookOutcome:
    return BookOutcome(job, "failed", error=f"{job.source}: worker process died ({exc})", exit_code=1)


def _stop_now(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and terminate the workers (an interrupt must stop work at once)."""
    terminate = getattr(pool, "terminate_workers", None)  # public from Python 3.14
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    if terminate is not None:
        with contextlib.suppress(Exception):
            terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(timeout=5)
    # let the pool's manager thread see its workers gone and close its wake-up pipe now: left running,
    # it races the interpreter's exit hook, which writes to that pipe ("Exception ignored … OSError: Bad
    # file descriptor" printed after "interrupted")
    if manager is not None:
        manager.join(timeout=5)


def _init_worker(events: Any, parent_pid: int) -> None:
    global _EVENTS
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    forbid_forking()  # the pool's workers already keep the cores busy: no second process per book
    collect_rarely()  # a worker only analyses books (`fewer_collections`)
    _EVENTS = events
    threading.Thread(target=_exit_with_parent, args=(parent_pid,), daemon=True, name="parent-watch").start()


def _exit_with_parent(parent_pid: int) -> None:
    """Block until the parent process is gone, then end this worker at once."""
    try:
        pidfd = os.pidfd_open(parent_pid)
    except (AttributeError, OSError):
        pidfd = None
    if pidfd is not None:
        select.select([pidfd], [], [])  # a pidfd becomes readable when the process exits
    else:
        while os.getppid() == parent_pid:
            time.sleep(0.5)
    os._exit(1)


def _send_stage(stem: str, stage: str, seconds: float | None) -> None:
    if _EVENTS is not None:
        _EVENTS.put((stem, stage, seconds))


def _drain(events: Any, on_stage: StageCallback | None) -> None:
    while True:
        try:
            stem, stage, seconds = events.get_nowait()
        except queue.Empty:
            return
        if on_stage:
            on_stage(stem, stage, seconds)
