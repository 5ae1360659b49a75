"""Corpus runs: the 21 shared novels through ``fabula analyze`` with the local engine (1 and 2 worker
processes) and with Ray (a local instance, 2 CPUs): wall time, peak memory of the whole process tree, and
throughput; then ``fabula corpus --to parquet`` on the result; then an estimate for 10,000 novels on a
cluster of N cores from the measured cost per word.

Peak memory is the largest sum of the resident set sizes of the command and all its descendants (Ray's
raylet, GCS and workers included), sampled every 0.2 s from /proc.

    python benchmarks/bench_corpus.py --pdnc ../shared/data/pdnc --out /tmp/bench-corpus
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson

CONFIGS = (("local", 1), ("local", 2), ("ray", 2))
NOVELS_TO_ESTIMATE = 10_000
WORDS_PER_NOVEL = 100_000  # a typical Gutenberg novel; PDNC's 21 average 80K


def _tree_rss_mb(root: int) -> float:
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            parents[int(entry.name)] = int(fields[1])
            rss[int(entry.name)] = int(fields[21])  # pages
        except (OSError, ValueError, IndexError):
            continue
    tree, frontier = {root}, {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - tree
        tree |= frontier
    return sum(rss.get(pid, 0) for pid in tree) * 4096 / 2**20


def run(command: list[str]) -> tuple[int, float, float]:
    """Exit code, wall seconds and peak process-tree memory (MB) of one command."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0.0
    while process.poll() is None:
        peak = max(peak, _tree_rss_mb(process.pid))
        time.sleep(0.2)
    seconds = time.perf_counter() - started
    if process.returncode:
        sys.stderr.write(process.stderr.read().decode()[-2000:] if process.stderr else "")
    return process.returncode, seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pdnc", type=Path, default=Path("../shared/data/pdnc"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-corpus"))
    parser.add_argument("--configs", nargs="*", default=[f"{e}:{j}" for e, j in CONFIGS])
    args = parser.parse_args()
    novels = sorted(args.pdnc.glob("*/novel_text.txt"))
    if not novels:
        sys.exit(f"no PDNC novels under {args.pdnc}")
    fabula = [sys.executable, "-m", "fabula"]
    words = 0
    print("| engine | workers | books | wall s | books/min | words/s | peak MB (whole tree) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    results: dict[tuple[str, int], float] = {}
    book_seconds: list[float] = []
    for config in args.configs:
        engine, jobs = config.split(":")[0], int(config.split(":")[1])
        out = args.out / f"{engine}-{jobs}"
        shutil.rmtree(out, ignore_errors=True)
        command = [
            *fabula,
            "analyze",
            str(args.pdnc),
            "-o",
            str(out),
            "--engine",
            engine,
            "--jobs",
            str(jobs),
        ]
        code, wall, peak = run(command)
        if code:
            print(f"| {engine} | {jobs} | failed (exit {code}) |")
            continue
        manifests = [orjson.loads(p.read_bytes()) for p in sorted(out.glob("*/manifest.json"))]
        words = sum(m["summary"]["words"] for m in manifests)
        if (engine, jobs) == ("local", 1):
            book_seconds = [m["seconds"] for m in manifests]
        results[(engine, jobs)] = wall
        print(
            f"| {engine} | {jobs} | {len(manifests)} | {wall:.1f} | {len(manifests) / wall * 60:.1f} | "
            f"{words / wall:,.0f} | {peak:.0f} |",
            flush=True,
        )
    if ("local", 1) in results and ("local", 2) in results:
        speedup = results[("local", 1)] / results[("local", 2)]
        print(f"\nthroughput 1 -> 2 workers (local): x{speedup:.2f} (ideal x2.00)")
    if ("local", 2) in results and ("ray", 2) in results:
        overhead = results[("ray", 2)] - results[("local", 2)]
        print(f"Ray vs local at 2 workers: {overhead:+.1f} s for {len(novels)} books (start-up included)")
    source = args.out / "local-2"
    if source.is_dir():
        started = time.perf_counter()
        done = subprocess.run(
            [*fabula, "corpus", str(source), "--to", "parquet", str(args.out / "tables")],
            capture_output=True,
            text=True,
        )
        print(f"\nfabula corpus --to parquet: {time.perf_counter() - started:.1f} s; {done.stdout.strip()}")
    if book_seconds and words:
        per_word = sum(book_seconds) / words  # seconds of one core per word, one worker, no contention
        per_novel = per_word * WORDS_PER_NOVEL
        print(
            f"\nmeasured cost: {per_word * 150_000:.2f} core-seconds per 150K words "
            f"({per_novel:.1f} s per {WORDS_PER_NOVEL // 1000}K-word novel)"
        )
        efficiency = (
            min(1.0, (results[("local", 1)] / results[("local", 2)]) / 2) if ("local", 2) in results else 1.0
        )
        print(
            f"estimate for {NOVELS_TO_ESTIMATE:,} novels of {WORDS_PER_NOVEL // 1000}K words "
            f"(parallel efficiency {efficiency:.0%} as measured from 1 to 2 workers):"
        )
        for cores in (2, 16, 64, 256, 1024):
            hours = NOVELS_TO_ESTIMATE * per_novel / (cores * efficiency) / 3600
            print(f"  {cores:>5} cores: {hours:8.2f} h")


if __name__ == "__main__":
    main()
