"""Speed of ``fabula describe BOOK --all`` without an LLM (target: ≤ 3 s for a 150K-word novel).

Each novel runs as its own ``fabula describe`` process (wall time includes Python start-up and
imports), best of ``--repeat`` runs; "cpu s" is the child's user + system CPU time (the fair number on a
shared, loaded machine, where wall time mostly measures waiting); peak memory is the child's maximum RSS.

    python benchmarks/bench_describe.py --novel Emma --novel NightAndDay
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PDNC = ROOT.parent / "shared" / "data" / "pdnc"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pdnc", type=Path, default=PDNC)
    parser.add_argument("--novel", action="append", default=None, help="PDNC folder name (repeatable)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kind", default="description")
    args = parser.parse_args()
    novels = args.novel or ["Emma", "NightAndDay"]
    print(
        f"{'novel':<14} {'words':>8} {'sheets':>6} {'best s':>7} {'cpu s':>6} {'runs s':<20} {'peak MB':>8}"
    )
    for name in novels:
        path = args.pdnc / name / "novel_text.txt"
        words = len(path.read_text(encoding="utf-8", errors="replace").split())
        runs = []
        cpus = []
        out = b""
        for _ in range(args.repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            out = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "fabula",
                    "describe",
                    str(path),
                    "--all",
                    "--json",
                    "--kind",
                    args.kind,
                ],
                check=True,
                capture_output=True,
            ).stdout
            runs.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        sheets = out.count(b'"generated"')
        times = " ".join(f"{r:.2f}" for r in runs)
        print(
            f"{name:<14} {words:>8,} {sheets:>6} {min(runs):>7.2f} {min(cpus):>6.2f} {times:<20} {peak:>8.0f}"
        )


if __name__ == "__main__":
    main()
