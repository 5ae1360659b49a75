"""Aggregation: per-group means of each metric, the macro or item mean, the task's micro scores, in the one
`EvalReport` layout."""

from __future__ import annotations

from typing import Any

from fabula.tasks._evaluation import EvalReport
from fabula.tasks._log import _Done
from fabula.tasks._task import ItemOutcome, Task, aggregate_of


def _aggregate(task: Task, settings: dict[str, Any], results: list[_Done]) -> EvalReport:
    report = EvalReport(task=task.name, metrics=list(task.metrics), settings=settings)
    scored = [r for r in results if r.outcome is not None]
    report.items = len(scored)
    report.failed = {r.item.id: r.error or "failed" for r in results if r.outcome is None}
    for key in task.group_by:
        members: dict[str, list[ItemOutcome]] = {}
        for r in scored:
            value = r.item.groups.get(key)
            if value is not None and r.outcome is not None:
                members.setdefault(value, []).append(r.outcome)
        report.groups[key] = {value: _group_entry(task, outs) for value, outs in members.items()}
    if "novel" in report.groups:
        report.novels = report.groups.pop("novel")
    outcomes = [r.outcome for r in scored if r.outcome is not None]
    if task.macro_over != "novel":
        report.item_mean = {
            m: aggregate_of(task, m)([o.scores.get(m) for o in outcomes]) for m in task.metrics
        }
    report.micro = task.micro(outcomes)
    return report


def _group_entry(task: Task, outcomes: list[ItemOutcome]) -> dict[str, Any]:
    """Mean of each metric over the group's items; integer details summed; with one item, its details."""
    entry: dict[str, Any] = {
        m: aggregate_of(task, m)([o.scores.get(m) for o in outcomes]) for m in task.metrics
    }
    if len(outcomes) == 1:
        entry.update({k: v for k, v in outcomes[0].details.items() if _shown(k)})
        return entry
    entry["items"] = len(outcomes)
    for key in filter(_shown, outcomes[0].details):
        values = [o.details.get(key) for o in outcomes]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            entry[key] = sum(v for v in values if isinstance(v, int))
        elif key == "seconds":
            entry[key] = round(sum(float(v) for v in values if isinstance(v, int | float)), 2)
    return entry


def _shown(detail: str) -> bool:
    """Details named ``_x`` (tallies for ``micro``) and the model calls stay in the item log only."""
    return not detail.startswith("_") and detail != "llm_calls"
