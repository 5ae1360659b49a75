"""The result layout every ``fabula eval`` shares, so runs of any task can be compared and plotted.

``{"task": NAME, "settings": {...}, "mean": {metric: value}, "micro": {...}, "novels": {NAME: {...}},
"groups": {KEY: {VALUE: {...}}}, "items": N, "failed": {ITEM: error}}``: metric values are fractions in
[0, 1] (or None when there is nothing to score). ``mean`` is the macro average over novels when the task
averages per novel (what the PDNC papers report), else the mean over items; ``micro`` (optional) pools
the task's own units (e.g. quotes). ``novels`` (per-novel entries, also with counts) is kept for every
task that groups by novel; ``groups`` holds the per-group means for each key the task groups by
(novel, category, level, direction, ...), each with its item count; ``failed`` (optional) names items
that could not be scored and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

from fabula._files import write_bytes_atomic
from fabula.metrics import mean_of

Number = float | int | None

__all__ = ["EvalReport", "Number", "mean_of"]


@dataclass(slots=True)
class EvalReport:
    """Scores of one evaluation run: per novel / per group, with macro (``mean``) and ``micro`` averages."""

    task: str
    metrics: list[str]  # the metric keys, in display order (fractions in [0, 1])
    settings: dict[str, Any] = field(default_factory=dict)
    novels: dict[str, dict[str, Any]] = field(default_factory=dict)
    micro: dict[str, Number] | None = None
    groups: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    items: int | None = None  # how many items were scored (None: not an item-based run)
    item_mean: dict[str, float | None] | None = None  # set when ``mean`` is over items, not novels
    failed: dict[str, str] = field(default_factory=dict)  # item id -> why it could not be scored

    def add_novel(self, name: str, scores: dict[str, Any]) -> None:
        self.novels[name] = scores

    @property
    def mean(self) -> dict[str, float | None]:
        if self.item_mean is not None:
            return self.item_mean
        return {m: mean_of([scores.get(m) for scores in self.novels.values()]) for m in self.metrics}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"task": self.task, "settings": self.settings, "mean": self.mean}
        if self.micro is not None:
            out["micro"] = self.micro
        out["novels"] = self.novels
        if self.groups:
            out["groups"] = self.groups
        if self.items is not None:
            out["items"] = self.items
        if self.failed:
            out["failed"] = self.failed
        return out

    def write_json(self, path: str | Path) -> None:
        write_bytes_atomic(path, orjson.dumps(self.to_dict(), option=orjson.OPT_INDENT_2) + b"\n")

    def print_table(
        self, console: Console, *, counts: list[str] | None = None, title: str | None = None
    ) -> None:
        """Per-novel rows (or the rows of the first group), the mean (and micro) rows, then a section per
        other group the task reports (``direction desc2name``, ``split frozen``, …: the README's "per
        direction and per level" were only in ``--json``); metrics shown as percentages."""
        rows, label = self.novels, "novel"
        if not rows and self.groups:
            label, rows = next(iter(self.groups.items()))
        table = Table(title=title or f"fabula eval {self.task}", show_lines=False)
        table.add_column(label)
        for metric in self.metrics:
            table.add_column(metric, justify="right")
        for key in counts or []:
            table.add_column(key, justify="right")
        for name, scores in rows.items():
            table.add_row(
                name,
                *[_pct(scores.get(m)) for m in self.metrics],
                *[str(scores.get(k, "")) for k in counts or []],
            )
        table.add_section()
        mean_label = "mean (macro)" if self.item_mean is None else "mean"
        table.add_row(
            mean_label, *[_pct(v) for v in self.mean.values()], *["" for _ in counts or []], style="bold"
        )
        if self.micro is not None:
            table.add_row(
                "micro", *[_pct(self.micro.get(m)) for m in self.metrics], *["" for _ in counts or []]
            )
        for key, values in self.groups.items():
            if key == "novel" or values is rows or _splits_metrics(values, self.metrics):
                continue
            table.add_section()
            for value, scores in sorted(values.items()):
                table.add_row(
                    f"{key} {value}",
                    *[_pct(scores.get(m)) for m in self.metrics],
                    *[str(scores.get(k, "")) for k in counts or []],
                )
        console.print(table)


def _splits_metrics(values: dict[str, dict[str, Any]], metrics: list[str]) -> bool:
    """Whether a group's values each score metrics no other value scores (the probes: one group per
    probe, each with its own metrics): its rows would repeat the novels' columns, one per row."""
    scored = [{m for m in metrics if scores.get(m) is not None} for scores in values.values()]
    return len(scored) > 1 and sum(map(len, scored)) == len(set().union(*scored))


def _pct(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float | int):
        if not 0.0 <= float(value) <= 1.0:  # not a fraction (e.g. Min-K%'s mean log-probability): as is
            return f"{float(value):.2f}"
        return f"{100 * float(value):.1f}"
    return str(value)
