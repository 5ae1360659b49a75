"""Compare two ``fabula eval --json`` reports number by number (mean, micro and every novel's entry).

    python scripts/compare_eval_reports.py BEFORE.json AFTER.json [--tolerance 0]

Prints each difference and exits 1 when any number differs by more than the tolerance; keys only one
side has are listed but do not fail (the layout may grow). Used to show that moving an evaluation onto
the harness kept its scores identical (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson


def differences(before: Any, after: Any, path: str, tolerance: float) -> tuple[list[str], list[str]]:
    """(numbers that differ, keys on one side only) under ``path``."""
    if isinstance(before, dict) and isinstance(after, dict):
        diffs: list[str] = []
        extra: list[str] = []
        for key in sorted(set(before) | set(after)):
            if key not in before or key not in after:
                extra.append(f"{path}/{key}: only {'after' if key in after else 'before'}")
                continue
            d, e = differences(before[key], after[key], f"{path}/{key}", tolerance)
            diffs += d
            extra += e
        return diffs, extra
    numeric = (int, float)
    if isinstance(before, numeric) and isinstance(after, numeric) and not isinstance(before, bool):
        return ([f"{path}: {before} -> {after}"] if abs(before - after) > tolerance else []), []
    return ([f"{path}: {before!r} -> {after!r}"] if before != after else []), []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--tolerance", type=float, default=0.0)
    parser.add_argument("--ignore", action="append", default=["seconds"], help="Key to skip (repeatable).")
    args = parser.parse_args(argv)
    before = orjson.loads(args.before.read_bytes())
    after = orjson.loads(args.after.read_bytes())
    failed = 0
    for section in ("mean", "micro", "novels"):
        b, a = before.get(section), after.get(section)
        if section == "novels" and isinstance(b, dict) and isinstance(a, dict):
            for novel in b:
                for key in args.ignore:
                    b[novel].pop(key, None)
                    (a.get(novel) or {}).pop(key, None)
        diffs, extra = differences(b, a, section, args.tolerance)
        for line in diffs:
            print("DIFF ", line)
        for line in extra:
            print("note ", line)
        failed += len(diffs)
    n = len(before.get("novels") or {})
    print(f"{args.before.name} vs {args.after.name}: {n} novels, {failed} differing numbers")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
