"""Running a task: `run_eval` (items, concurrency, engines, resuming, failures), with the logs of `_log` and
the aggregation of `_aggregate`. Progress is the caller's: ``progress=True`` prints a line per ~5 % on
stderr; the CLI passes its rich bar (`fabula.cli`)."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fabula._files import file_lock
from fabula.errors import ConfigError, InputError
from fabula.tasks._aggregate import _aggregate
from fabula.tasks._evaluation import EvalReport
from fabula.tasks._log import LOG_VERSION, _check_writable, _Done, _ItemLog, _write_samples, log_path_for
from fabula.tasks._task import EvalItem, Task

if TYPE_CHECKING:
    from fabula.anonymize import Anonymizer
    from fabula.llm import LLM

ProgressFactory = Callable[[str, int, int], AbstractContextManager[Callable[[str], None]]]
"""``factory(task name, items, items already done)`` -> a context giving ``advance(item_id)``."""


def run_eval(
    task: Task,
    *,
    llm: LLM | None = None,
    json_path: str | Path | None = None,
    concurrency: int | None = None,
    progress: bool | ProgressFactory = True,
    resume: bool = True,
    on_item_error: Callable[[str, str], None] | None = None,
    anonymize: Anonymizer | None = None,
    engine: str = "local",
    ray_address: str | None = None,
    limit: int | None = None,
) -> EvalReport:
    """Run every item of ``task`` (only the first ``limit``, when given) and aggregate the report
    (written to ``json_path`` when given, with the per-item log beside it). ``anonymize``: on renamed
    copies of the books (`Task.anonymize_with`; the report's settings say ``anonymized``). See the
    module docstring for logging, resuming, failures and engines."""
    if limit is not None:
        if limit < 1:
            raise ConfigError(f"--limit must be at least 1, not {limit}", "--limit")
        task.limit = limit
    if anonymize is not None:
        task.anonymize_with(anonymize)
    if task.llm == "required" and llm is None:
        raise ConfigError(f"task {task.name!r} needs a model: give --llm SPEC", "--llm")
    check_engine(task, engine, llm, ray_address)
    task.check(llm)
    try:
        return _run_checked(
            task, llm, json_path, concurrency, progress, resume, on_item_error, engine, ray_address, limit
        )
    finally:
        task.close()  # whatever `check` opened (a judge model), also when the run fails or is interrupted


def _run_checked(
    task: Task,
    llm: LLM | None,
    json_path: str | Path | None,
    concurrency: int | None,
    progress: bool | ProgressFactory,
    resume: bool,
    on_item_error: Callable[[str, str], None] | None,
    engine: str,
    ray_address: str | None,
    limit: int | None,
) -> EvalReport:
    """`run_eval` after the task has checked its options: run, aggregate, write."""
    settings = task.settings
    if task.anonymizer is not None:
        mode = task.anonymizer.mode
        anonymized = {"seed": task.anonymizer.seed, **({"mode": mode} if mode != "census" else {})}
        settings = {**settings, "anonymized": anonymized}
    if llm is not None:
        from fabula.llm import redact_credentials

        settings = {**settings, "llm": redact_credentials(llm.spec)}
    if limit is not None:
        settings = {**settings, "limit": limit}
    items = list(task.items())[:limit]
    if not items:  # an empty data file printed a table of dashes with exit 0
        raise InputError(
            f"nothing to evaluate: no items for task {task.name!r}", task.options_given.get("data")
        )
    ids = [i.id for i in items]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"task {task.name!r} lists an item id twice")

    with contextlib.ExitStack() as held:
        if json_path is not None:  # two runs writing one report would interleave their item logs
            target = Path(json_path)
            _check_writable(target)
            held.enter_context(file_lock(target.with_name(f".{target.name}.lock"), "fabula eval", target))
        log: _ItemLog | None = None
        done: dict[str, _Done] = {}
        if json_path is not None:
            _check_writable(Path(json_path))
            log = _ItemLog(log_path_for(json_path))
            header = {"fabula_eval": LOG_VERSION, "task": task.name, "settings": settings}
            done = log.open(header, {i.id: i for i in items}, resume=resume)
        todo = [i for i in items if i.id not in done]
        workers = max(
            1, concurrency if concurrency is not None else (llm.concurrency if llm is not None else 1)
        )
        if llm is None or not task.parallel_items:
            workers = 1  # without a model the work is CPU-bound Python: threads would only add overhead

        results: dict[str, _Done] = dict(done)
        factory: ProgressFactory = plain_progress if progress is True else progress or _silent
        with factory(task.name, len(items), len(done)) as advance:

            def record(result: _Done) -> None:
                if log is not None:
                    log.append(result)
                results[result.item.id] = result
                if result.error is not None and on_item_error is not None:
                    on_item_error(result.item.id, result.error)
                advance(result.item.id)

            def run_one(item: EvalItem) -> None:
                record(_run_item(task, item, llm))

            try:
                if engine == "ray":
                    _run_novels_on_ray(task, todo, ray_address, record)
                elif workers == 1:
                    for item in todo:
                        run_one(item)
                else:
                    _run_concurrently(run_one, todo, workers)
            finally:
                if log is not None:
                    log.close()
        report = _aggregate(task, settings, [results[i.id] for i in items])
        task.finish(report)
        if log is not None:
            log.mark_complete()
        if json_path is not None:
            _write_samples(log_path_for(json_path, "samples"), task, items, results)
            report.write_json(json_path)
        return report


def _run_item(task: Task, item: EvalItem, llm: LLM | None) -> _Done:
    from fabula.llm import record_calls

    started = time.perf_counter()
    with record_calls() as recorder:
        try:
            outcome = task.run_item(item, llm)
        except InputError as exc:  # this item's data is bad; a ConfigError or BackendError stops the run
            return _Done(item, None, exc.one_line())
    seconds = time.perf_counter() - started
    outcome.details.setdefault("seconds", round(seconds, 2))
    calls = [c.to_dict() for c in recorder.calls]
    if calls:
        outcome.details["llm_calls"] = calls
    return _Done(item, outcome)


def check_engine(task: Task | type[Task], engine: str, llm: LLM | None, ray_address: str | None) -> None:
    """Refuse an engine the run cannot use (before any item runs)."""
    from fabula._ray import check_engine as check_engine_name

    check_engine_name(engine, ray_address)
    if engine == "local":
        return
    if "novel" not in task.group_by:
        raise ConfigError(
            f"task {task.name!r} does not group its items by novel: --engine ray runs one Ray task per novel",
            "--engine",
        )
    if llm is not None:
        raise ConfigError(
            "--engine ray runs evaluations without a model (--llm) so far; use --engine local with --llm",
            "--engine",
        )


def _run_novels_on_ray(
    task: Task, todo: list[EvalItem], address: str | None, record: Callable[[_Done], None]
) -> None:
    """One Ray task per novel (``groups["novel"]``); each finished novel's items are recorded in order."""
    from fabula._ray import run_remote

    novels: dict[str, list[EvalItem]] = {}
    for item in todo:
        novels.setdefault(item.groups.get("novel", item.id), []).append(item)

    def finished(novel: Any, done: Any, error: BaseException | None) -> None:
        if error is None:
            for result in done:
                record(result)
            return
        cause = getattr(error, "cause", None)  # what the task raised (a ConfigError, a bug): stop the run
        if isinstance(cause, Exception):
            raise cause
        for item in novels[novel]:  # the worker died more often than Ray retries: these items failed
            record(_Done(item, None, f"Ray task for {novel} failed ({type(error).__name__})"))

    calls = [
        (novel, (type(task), task.options_given, task.anonymizer, items)) for novel, items in novels.items()
    ]
    run_remote(_run_novel, calls, finished, address=address)


def _run_novel(
    task_class: type[Task], options: dict[str, Any], anonymizer: Anonymizer | None, items: list[EvalItem]
) -> list[_Done]:
    """One novel's items in a Ray worker, on a task rebuilt from its options (and ``--anonymize``)."""
    from fabula._parallel import forbid_forking

    forbid_forking()  # a Ray task has one CPU: no second process for a book's halves
    task = task_class(**options)
    if anonymizer is not None:
        task.anonymize_with(anonymizer)
    return [_run_item(task, item, None) for item in items]


def _run_concurrently(run_one: Callable[[EvalItem], None], todo: list[EvalItem], workers: int) -> None:
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures: list[Future[None]] = [pool.submit(run_one, item) for item in todo]
        finished, pending = wait(futures, return_when=FIRST_EXCEPTION)
        for future in finished:
            exc = future.exception()
            if exc is not None:
                for other in pending:
                    other.cancel()
                raise exc
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


@contextlib.contextmanager
def plain_progress(label: str, total: int, already: int) -> Iterator[Callable[[str], None]]:
    """One line per ~5 % of the items on stderr (and a line when resuming)."""
    if already:
        print(
            f"resuming: {already} of {total} items already done (an interrupted run's log; "
            "--no-resume starts afresh)",
            file=sys.stderr,
            flush=True,
        )
    count = [already]
    step = max(1, total // 20)
    lock = threading.Lock()  # items finish on worker threads: one count each, one whole line each

    def note(item_id: str) -> None:
        with lock:
            count[0] += 1
            if count[0] % step == 0 or count[0] == total:
                sys.stderr.write(f"… {item_id} ({count[0]}/{total})\n")  # line and newline in one write
                sys.stderr.flush()

    yield note


@contextlib.contextmanager
def _silent(label: str, total: int, already: int) -> Iterator[Callable[[str], None]]:
    yield lambda _id: None
