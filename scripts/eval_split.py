"""Macro means of a ``fabula eval --json`` report on the validation split the project keeps.

    python scripts/eval_split.py REPORT.json [REPORT.json ...] [--digits N]

The split is the project's fixed one (`fabula.datasets.PDNC_FROZEN`: every third of PDNC's 21 sorted
novel folders, indices 2, 5, ..., 20, is frozen; the other 14 are for tuning), whichever novels a report
holds. Prints one markdown row per report and split (all / tune / frozen), metrics as percentages; a
split the report holds no novel of gets no row, and a split it holds only part of says so
(``tune (3 of 14)``). Novels outside PDNC count in ``all`` only. ``--digits`` sets the decimals (default 1;
the benchmarks' before/after tables use 2).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson

from fabula.datasets import PDNC_FROZEN, PDNC_TUNE, pdnc_split
from fabula.metrics import mean_of

SPLIT_SIZES = {"tune": len(PDNC_TUNE), "frozen": len(PDNC_FROZEN)}


def split_rows(report: dict[str, Any]) -> list[tuple[str, dict[str, float | None]]]:
    """(label, macro mean of each metric) for ``all`` and each split the report holds novels of."""
    novels: dict[str, dict[str, Any]] = report["novels"]
    metrics = list(report["mean"])
    groups = {"all": list(novels)} | {
        split: [n for n in novels if pdnc_split(n) == split] for split in SPLIT_SIZES
    }
    rows = []
    for split, members in groups.items():
        if not members:
            continue
        size = SPLIT_SIZES.get(split)
        count = str(len(members)) if size is None or len(members) == size else f"{len(members)} of {size}"
        means = {m: mean_of([novels[n].get(m) for n in members]) for m in metrics}
        rows.append((f"{split} ({count})", means))
    return rows


def main(args: list[str]) -> int:
    digits = 1
    if "--digits" in args:
        at = args.index("--digits")
        digits, args = int(args[at + 1]), args[:at] + args[at + 2 :]
    for path in args:
        report = orjson.loads(Path(path).read_bytes())
        metrics = list(report["mean"])
        print(f"| report | split | {' | '.join(metrics)} |")
        print("|---|---|" + "---:|" * len(metrics))
        for label, means in split_rows(report):
            cells = " | ".join("–" if v is None else f"{100 * v:.{digits}f}" for v in means.values())
            print(f"| {Path(path).name} | {label} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
