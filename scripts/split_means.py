"""Means of a `fabula eval … --json OUT` report over all novels, the tuning split and the validation split.

The validation split is frozen (docs/benchmarks.md): of the PDNC folders in sorted order, indices
2, 5, 8, … (every third, counting from 0). Tune on the others; never look at the frozen novels' errors.

    python scripts/split_means.py characters.json [more.json …]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from statistics import mean
from typing import Any


def validation_names(names: list[str]) -> set[str]:
    """The frozen novels among ``names`` (all 21 PDNC folder names, sorted)."""
    ordered = sorted(names)
    return {name for i, name in enumerate(ordered) if i % 3 == 2}


def split_means(report: dict[str, Any]) -> dict[str, dict[str, float]]:
    novels: dict[str, dict[str, Any]] = report["novels"]
    frozen = validation_names(list(novels))
    groups = {
        "all": list(novels),
        "tuning": [n for n in novels if n not in frozen],
        "validation": [n for n in novels if n in frozen],
    }
    first = next(iter(novels.values()))
    # rates and accuracies (0..1); counts and timings are left out
    metrics = [
        k
        for k, v in first.items()
        if isinstance(v, float) and all(0.0 <= float(novels[n].get(k, -1)) <= 1.0 for n in novels)
    ]
    return {
        group: {
            m: mean(float(novels[n][m]) for n in names) for m in metrics if all(m in novels[n] for n in names)
        }
        for group, names in groups.items()
        if names
    }


def main(paths: list[str]) -> None:
    for path in paths:
        report = json.loads(Path(path).read_text())
        print(path)
        means = split_means(report)
        metrics = list(means["all"])
        print(f"  {'split':<11}" + "".join(f"{m[:22]:>23}" for m in metrics))
        for group, values in means.items():
            print(f"  {group:<11}" + "".join(f"{100 * values[m]:>23.1f}" for m in metrics))


if __name__ == "__main__":
    main(sys.argv[1:])
