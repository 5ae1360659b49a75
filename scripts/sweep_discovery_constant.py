"""Sweep one constant of character discovery's clustering over PDNC novels, with leave-one-novel-out.

For every novel and every value, the production path (quotes detected, then `find_characters`, as
`fabula eval characters` runs it) is scored (recall, merge and split rates, unlisted top-20 entries).
Prints the tuning / frozen means per value, then leave-one-novel-out: each novel scored with the
value that is best on the other novels (the lowest merge + split - recall summed over them; ties go
to the value closest to the current one). A value that wins only in-sample shows up as no gain here.

    python scripts/sweep_discovery_constant.py ../shared/data/pdnc CONFLICT_SHARE 0.05,0.06,0.08 [--json OUT]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import ModuleType
from typing import Any

from fabula.characters import find_characters
from fabula.characters._discover import _clustering, _joins, _passes
from fabula.datasets import find_pdnc_novels, load_pdnc_novel, pdnc_split
from fabula.quotes import detect_quotes
from fabula.tasks.pdnc_characters import score_novel_characters

METRICS = ("recall", "merge_rate", "split_rate")


def _module(name: str) -> ModuleType:
    """The discovery module defining the constant ``name`` (`_clustering`, `_joins` or `_passes`)."""
    return next((m for m in (_clustering, _joins, _passes) if hasattr(m, name)), _clustering)


def sweep(pdnc: Path, name: str, values: list[float]) -> list[dict[str, Any]]:
    """One row per (novel, value)."""
    module = _module(name)
    current = getattr(module, name)
    rows: list[dict[str, Any]] = []
    try:
        for folder in find_pdnc_novels(pdnc):
            novel = load_pdnc_novel(folder)
            detect_quotes(novel.book)
            for value in values:
                setattr(module, name, value)
                scores, details = score_novel_characters(novel, find_characters(novel.book))
                rows.append(
                    {
                        "novel": folder.name,
                        "split": pdnc_split(folder.name),
                        "value": value,
                        **{m: scores[m] for m in METRICS},
                        "unlisted": details["unlisted_top20"],
                    }
                )
    finally:
        setattr(module, name, current)
    return rows


def _mean(rows: list[dict[str, Any]], metric: str) -> float:
    return 100 * sum(r[metric] for r in rows) / max(1, len(rows))


def _line(rows: list[dict[str, Any]]) -> str:
    cells = " / ".join(f"{_mean(rows, m):.1f}" for m in METRICS)
    return f"{cells} / {sum(r['unlisted'] for r in rows)}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("pdnc", type=Path)
    parser.add_argument(
        "name", help="a module constant of fabula.characters._discover._clustering, ._joins or ._passes"
    )
    parser.add_argument("values", help="comma-separated values")
    parser.add_argument("--json", type=Path, help="write the per-novel rows here")
    args = parser.parse_args()
    module = _module(args.name)
    if not hasattr(module, args.name):
        parser.error(
            f"no constant {args.name} in fabula.characters._discover._clustering, ._joins or ._passes"
        )
    current = float(getattr(module, args.name))
    values = [float(v) for v in args.values.split(",")]
    rows = sweep(args.pdnc, args.name, values)
    if args.json:
        args.json.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    novels = sorted({r["novel"] for r in rows})
    at = {(r["novel"], r["value"]): r for r in rows}
    print(f"{args.name} (now {current}): recall / merge / split (macro %) / unlisted top-20 (summed)")
    print("| value | tune | frozen |\n|---|---|---|")
    for value in values:
        by_split = {
            s: [r for r in rows if r["value"] == value and r["split"] == s] for s in ("tune", "frozen")
        }
        print(f"| {value} | {_line(by_split['tune'])} | {_line(by_split['frozen'])} |")

    def cost(novel: str, value: float) -> float:
        r = at[(novel, value)]
        return r["merge_rate"] + r["split_rate"] - r["recall"]

    chosen = {
        n: min(values, key=lambda v: (sum(cost(o, v) for o in novels if o != n), abs(v - current)))
        for n in novels
    }
    held = [at[(n, chosen[n])] for n in novels]
    print(
        "leave-one-novel-out: "
        + ", ".join(f"{s} {_line([r for r in held if r['split'] == s])}" for s in ("tune", "frozen"))
        + f"; values chosen: {', '.join(f'{v} x{list(chosen.values()).count(v)}' for v in values if v in chosen.values())}"
    )


if __name__ == "__main__":
    main()
