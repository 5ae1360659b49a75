"""Tasks: one module per published protocol, built on the components (never on a backend), all run by
one harness (`run_eval`) into one report layout (`EvalReport`)."""

from fabula.tasks._evaluation import EvalReport, mean_of
from fabula.tasks._harness import (
    TASKS,
    EvalItem,
    ItemOutcome,
    Task,
    TaskOption,
    get_task,
    log_path_for,
    plain_progress,
    run_eval,
    task,
    task_names,
)

__all__ = [
    "TASKS",
    "EvalItem",
    "EvalReport",
    "ItemOutcome",
    "Task",
    "TaskOption",
    "get_task",
    "log_path_for",
    "mean_of",
    "plain_progress",
    "run_eval",
    "task",
    "task_names",
]
