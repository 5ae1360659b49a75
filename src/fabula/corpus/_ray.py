"""The ``ray`` engine: one Ray task per book, on a local Ray instance started on demand or a cluster.

Ray is the optional extra ``fabula[ray]``, imported only here. A task runs the same `analyze_to_folder` as
the local engine, so outputs, manifests and resuming are identical; Ray re-runs a task whose worker died
(``max_retries``), which is safe because a book's folder is rewritten atomically file by file and its
manifest is removed before and written after. Every node must see the input files and the output folder
(a shared file system on a cluster) and have the same fabula installed.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from fabula.corpus._run import AnalyzeSettings, BookJob, BookOutcome, analyze_to_folder
from fabula.errors import BackendError

LOCAL_CPUS = 2  # a local instance started on demand: this machine's two cores
TASK_RETRIES = 2  # re-runs of a book whose worker process died


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise BackendError(
            "the ray engine needs Ray: install the optional extra with pip install 'fabula[ray]'", "--engine"
        ) from exc
    return ray


def run_on_ray(
    work: list[tuple[int, BookJob]],
    settings: AnalyzeSettings,
    force: bool,
    address: str | None,
    jobs: int,
    finished: Callable[[int, BookOutcome], None],
) -> None:
    """Run ``work`` as Ray tasks, calling ``finished`` as each book ends; Ctrl-C cancels the rest."""
    if not work:
        return
    ray = _ray()
    started_here = not ray.is_initialized()
    if started_here:
        try:
            ray.init(
                address=address,
                num_cpus=None if address else max(LOCAL_CPUS, jobs),
                include_dashboard=False,
                logging_level=logging.WARNING,
                log_to_driver=False,
                configure_logging=False,
            )
        except Exception as exc:  # connection refused, bad address, ...
            raise BackendError(f"cannot start or reach Ray ({exc})", address or "--engine ray") from exc
    task = ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(_analyze_task)
    pending: dict[Any, tuple[int, BookJob]] = {
        task.remote(job, settings, force): (index, job) for index, job in work
    }
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in ready:
                index, job = pending.pop(ref)
                try:
                    outcome = ray.get(ref)
                except Exception as exc:  # the task's worker died more often than it may be retried
                    outcome = BookOutcome(
                        job,
                        "failed",
                        error=f"{job.source}: Ray task failed ({type(exc).__name__})",
                        exit_code=1,
                    )
                finished(index, outcome)
    except BaseException:
        for ref in pending:
            with contextlib.suppress(Exception):  # already finished or gone: nothing to stop
                ray.cancel(ref, force=True)
        raise
    finally:
        if started_here:
            ray.shutdown()


def _analyze_task(job: BookJob, settings: AnalyzeSettings, force: bool) -> BookOutcome:
    """One book in a Ray worker (no stage events: the driver shows progress over books)."""
    return analyze_to_folder(job, settings, force=force)
