"""Time and peak memory of ``fabula analyze`` per novel (the targets: ≤ 10 s and ≤ 1 GB per 150K-word novel,
no LLM, on a 2-core machine).

Each novel runs as its own ``fabula analyze`` process, one at a time, so the numbers are per novel and not
confounded by the process pool; peak memory is that process's maximum resident set size (``wait4``).
Then the whole corpus runs once more as a single command with ``--jobs 2`` for the end-to-end time.

    python benchmarks/bench_analyze.py --pdnc ../shared/data/pdnc --out /tmp/pdnc-out
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson

STAGES = ("read", "quotes", "characters", "attribution", "profiles", "write")


def run(command: list[str]) -> tuple[int, float, float]:
    """Exit code, wall seconds and peak RSS in MB of one child process."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if process.stderr:
        process.stderr.close()
    return os.waitstatus_to_exitcode(status), seconds, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pdnc", type=Path, default=Path("../shared/data/pdnc"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/pdnc-out"))
    parser.add_argument("--skip-corpus", action="store_true", help="Skip the single --jobs 2 corpus run.")
    args = parser.parse_args()
    novels = sorted(p for p in args.pdnc.glob("*/novel_text.txt"))
    if not novels:
        sys.exit(f"no PDNC novels under {args.pdnc}")
    fabula = [sys.executable, "-m", "fabula"]
    if args.out.exists():
        shutil.rmtree(args.out)

    print(
        "| novel | words | wall s | analysis s | "
        + " | ".join(STAGES)
        + " | peak MB | characters | quotes | attributed |"
    )
    print("|---|---:|---:|---:|" + "---:|" * len(STAGES) + "---:|---:|---:|---:|")
    rows = []
    for novel in novels:
        name = novel.parent.name
        code, wall, peak = run([*fabula, "analyze", str(novel), "-o", str(args.out / "single"), "--force"])
        if code != 0:
            print(f"| {name} | failed (exit {code}) |")
            continue
        manifest = orjson.loads((args.out / "single" / name / "manifest.json").read_bytes())
        summary, timings = manifest["summary"], manifest["timings"]
        rows.append((summary["words"], wall, peak))
        print(
            f"| {name} | {summary['words']:,} | {wall:.1f} | {manifest['seconds']:.1f} | "
            + " | ".join(f"{timings.get(s, 0):.1f}" for s in STAGES)
            + f" | {peak:.0f} | {summary['characters']} | {summary['quotes']:,} | {summary['attributed']:,} |",
            flush=True,
        )
    if rows:
        words = sum(r[0] for r in rows)
        wall = sum(r[1] for r in rows)
        print(
            f"\n{len(rows)} novels, {words:,} words: {wall:.1f} s in all, "
            f"{wall / words * 150_000:.1f} s per 150K words, max {max(r[1] for r in rows):.1f} s, "
            f"peak memory max {max(r[2] for r in rows):.0f} MB"
        )
    if not args.skip_corpus:
        code, wall, peak = run(
            [*fabula, "analyze", *map(str, novels), "-o", str(args.out / "corpus"), "--jobs", "2"]
        )
        print(f"whole corpus, one command, --jobs 2: exit {code}, {wall:.1f} s, parent peak {peak:.0f} MB")
        code, again, _ = run(
            [*fabula, "analyze", *map(str, novels), "-o", str(args.out / "corpus"), "--jobs", "2"]
        )
        print(f"same command again (all up to date, resumes): exit {code}, {again:.1f} s")


if __name__ == "__main__":
    main()
