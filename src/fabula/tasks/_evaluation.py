"""The result layout every ``fabula eval`` shares, so runs of any task can be compared and plotted.

``{"task": NAME, "settings": {...}, "mean": {metric: value}, "micro": {...}, "novels": {NAME: {...}}}``:
metric values are fractions in [0, 1] (or None when a novel has nothing to score), per-novel entries
also carry counts. ``mean`` is the macro average over novels (what the papers report).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

from fabula._files import write_bytes_atomic

Number = float | int | None


def mean_of(values: list[Number]) -> float | None:
    """Mean of the values that are not None (None when there are none)."""
    present = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return sum(present) / len(present) if present else None


@dataclass(slots=True)
class EvalReport:
    """Per-novel scores of one evaluation run, with macro (``mean``) and optional ``micro`` averages."""

    task: str
    metrics: list[str]  # the metric keys, in display order (fractions in [0, 1])
    settings: dict[str, Any] = field(default_factory=dict)
    novels: dict[str, dict[str, Any]] = field(default_factory=dict)
    micro: dict[str, Number] | None = None

    def add_novel(self, name: str, scores: dict[str, Any]) -> None:
        self.novels[name] = scores

    @property
    def mean(self) -> dict[str, float | None]:
        return {m: mean_of([scores.get(m) for scores in self.novels.values()]) for m in self.metrics}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"task": self.task, "settings": self.settings, "mean": self.mean}
        if self.micro is not None:
            out["micro"] = self.micro
        out["novels"] = self.novels
        return out

    def write_json(self, path: str | Path) -> None:
        write_bytes_atomic(path, orjson.dumps(self.to_dict(), option=orjson.OPT_INDENT_2) + b"\n")

    def print_table(
        self, console: Console, *, counts: list[str] | None = None, title: str | None = None
    ) -> None:
        """Per-novel rows, then the mean (and micro) rows; metrics shown as percentages."""
        table = Table(title=title or f"fabula eval {self.task}", show_lines=False)
        table.add_column("novel")
        for metric in self.metrics:
            table.add_column(metric, justify="right")
        for key in counts or []:
            table.add_column(key, justify="right")
        for name, scores in self.novels.items():
            table.add_row(
                name,
                *[_pct(scores.get(m)) for m in self.metrics],
                *[str(scores.get(k, "")) for k in counts or []],
            )
        table.add_section()
        table.add_row(
            "mean (macro)", *[_pct(v) for v in self.mean.values()], *["" for _ in counts or []], style="bold"
        )
        if self.micro is not None:
            table.add_row(
                "micro", *[_pct(self.micro.get(m)) for m in self.metrics], *["" for _ in counts or []]
            )
        console.print(table)


def _pct(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float | int):
        return f"{100 * float(value):.1f}"
    return str(value)
