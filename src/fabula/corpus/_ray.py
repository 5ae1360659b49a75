"""The ``ray`` engine: one Ray task per book, on a local Ray instance started on demand or a cluster.

The Ray plumbing (start or join, dispatch, cancel on Ctrl-C) is `fabula._ray`, shared with
``fabula eval --engine ray``. A task runs the same `analyze_to_folder` as the local engine, so outputs,
manifests and resuming are identical; Ray re-runs a task whose worker died (``max_retries``), which is
safe because a book's folder is rewritten atomically file by file and its manifest is removed before
and written after. Every node must see the input files and the output folder (a shared file system on
a cluster) and have the same fabula installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fabula._parallel import forbid_forking
from fabula._ray import LOCAL_CPUS, TASK_RETRIES, run_remote
from fabula.corpus._book import AnalyzeSettings, BookJob, BookOutcome, analyze_to_folder


def run_on_ray(
    work: list[tuple[int, BookJob]],
    settings: AnalyzeSettings,
    force: bool,
    address: str | None,
    jobs: int,
    finished: Callable[[int, BookOutcome], None],
) -> None:
    """Run ``work`` as Ray tasks, calling ``finished`` as each book ends; Ctrl-C cancels the rest."""
    books = dict(work)

    def done(key: Any, outcome: Any, error: BaseException | None) -> None:
        index: int = key
        if error is not None:  # the task's worker died more often than it may be retried
            job = books[index]
            outcome = BookOutcome(
                job, "failed", error=f"{job.source}: Ray task failed ({type(error).__name__})", exit_code=1
            )
        finished(index, outcome)

    run_remote(
        _analyze_task,
        [(index, (job, settings, force)) for index, job in work],
        done,
        address=address,
        cpus=max(LOCAL_CPUS, jobs),
        retries=TASK_RETRIES,
    )


def _analyze_task(job: BookJob, settings: AnalyzeSettings, force: bool) -> BookOutcome:
    """One book in a Ray worker (no stage events: the driver shows progress over books)."""
    forbid_forking()  # a Ray task has one CPU: no second process for a book's halves
    return analyze_to_folder(job, settings, force=force)
