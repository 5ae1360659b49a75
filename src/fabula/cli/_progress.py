"""A progress display with an estimate for one long step (dense indexing, embedding a novel, …).

On a terminal it is a rich bar with counts, elapsed time and time left; when stderr is a pipe or a log
file it prints a plain line at most every 10% with the same estimate, so a long step never runs silent.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from fabula.cli._app import stderr


def bar_columns() -> tuple[Any, ...]:
    """The columns every fabula progress bar shows: label, bar, n/total, elapsed, time left."""
    return (
        TextColumn("{task.description}"),
        BarColumn(bar_width=30),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )


class StepProgress:
    """``with StepProgress("embedding passages") as update: work(progress=update)`` where the work calls
    ``update(done, total)``; nothing is shown until the first call (a cached index shows nothing)."""

    def __init__(self, label: str, console: Console = stderr) -> None:
        self.label = label
        self.console = console
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._started = 0.0
        self._next_line = 0.0

    def __enter__(self) -> StepProgress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __call__(self, done: int, total: int, note: str = "") -> None:
        """``note`` (e.g. a training loss) is shown after the label."""
        label = f"{self.label} ({note})" if note else self.label
        if not self._started:
            self._started = time.perf_counter()
            if self.console.is_terminal:
                self._progress = Progress(*bar_columns(), console=self.console, transient=True)
                self._task = self._progress.add_task(self.label, total=total)
                self._progress.start()
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=done, total=total, description=label)
            return
        if done >= total or done >= self._next_line * total:
            self._next_line = min(1.0, done / max(total, 1) + 0.1)
            self.console.print(f"{label}: {done}/{total}{self._estimate(done, total)}", highlight=False)

    def _estimate(self, done: int, total: int) -> str:
        elapsed = time.perf_counter() - self._started
        if done >= total:
            return f", done in {elapsed:.0f} s"
        if done <= 0 or elapsed < 0.5:
            return ""
        return f", about {elapsed * (total - done) / done:.0f} s left"
