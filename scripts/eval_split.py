"""Macro means of a ``fabula eval --json`` report on the validation split the project keeps.

    python scripts/eval_split.py REPORT.json [REPORT.json ...]

The 7 frozen novels are every third in sorted order (indices 2, 5, 8, ..., 20 of the sorted novel
names); the other 14 are for tuning. Prints one markdown row per report and split (all / tune 14 /
frozen 7), metrics as percentages.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from fabula.metrics import mean_of


def frozen(names: list[str]) -> set[str]:
    """The frozen validation novels: every third in sorted order, counting from index 2."""
    ordered = sorted(names)
    return {ordered[i] for i in range(2, len(ordered), 3)}


def split_means(report: dict) -> dict[str, dict[str, float | None]]:
    novels: dict[str, dict] = report["novels"]
    held = frozen(list(novels))
    metrics = list(report["mean"])
    groups = {
        "all": list(novels),
        "tune": [n for n in novels if n not in held],
        "frozen": [n for n in novels if n in held],
    }
    return {
        label: {m: mean_of([novels[n].get(m) for n in members]) for m in metrics}
        for label, members in groups.items()
    }


def main(paths: list[str]) -> int:
    for path in paths:
        report = orjson.loads(Path(path).read_bytes())
        means = split_means(report)
        metrics = list(report["mean"])
        counts = {"all": len(report["novels"]), "tune": 0, "frozen": len(frozen(list(report["novels"])))}
        counts["tune"] = counts["all"] - counts["frozen"]
        print(f"| report | split | {' | '.join(metrics)} |")
        print("|---|---|" + "---:|" * len(metrics))
        for label, values in means.items():
            cells = " | ".join("–" if v is None else f"{100 * v:.1f}" for v in values.values())
            print(f"| {Path(path).name} | {label} ({counts[label]}) | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
