"""Time and peak memory of quote detection + attribution (rules, gold and predicted characters) on
long PDNC novels. Target: ≤ 5 s and ≤ 500 MB for a 150K-word novel on a 2-core machine.

Each novel runs in a fresh child process (peak RSS via ``wait4``); the child prints stage timings.

    python benchmarks/bench_quotes.py --pdnc ../shared/data/pdnc --novel Emma --novel NightAndDay
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson

CHILD = """
import sys, time, orjson
from fabula.datasets import load_pdnc_novel
from fabula.characters import find_characters
from fabula.quotes import attribute_quotes, detect_quotes
novel = load_pdnc_novel(sys.argv[1])
book = novel.book
t0 = time.perf_counter(); detect_quotes(book)
t1 = time.perf_counter(); find_characters(book, gold=novel.characters if sys.argv[2] == "gold" else None)
t2 = time.perf_counter(); attribute_quotes(book)
t3 = time.perf_counter()
print(orjson.dumps({"words": book.word_count, "quotes": len(book.quotes), "detect": t1 - t0,
                    "characters": t2 - t1, "attribute": t3 - t2}).decode())
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pdnc", type=Path, default=Path("../shared/data/pdnc"))
    parser.add_argument("--novel", action="append", help="novel folder name (repeatable; default Emma)")
    args = parser.parse_args()
    print(
        f"{'novel':22s} {'mode':9s} {'words':>7s} {'quotes':>6s} {'detect':>7s} {'chars s':>7s} "
        f"{'attrib':>7s} {'q+a s':>6s} {'total s':>7s} {'peak MB':>7s}"
    )
    for name in args.novel or ["Emma"]:
        for mode in ("gold", "predicted"):
            started = time.perf_counter()
            process = subprocess.Popen(
                [sys.executable, "-c", CHILD, str(args.pdnc / name), mode], stdout=subprocess.PIPE
            )
            assert process.stdout is not None
            out = process.stdout.read()
            _, status, usage = os.wait4(process.pid, 0)
            total = time.perf_counter() - started
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"{name}: child failed")
            r = orjson.loads(out)
            print(
                f"{name:22s} {mode:9s} {r['words']:7d} {r['quotes']:6d} {r['detect']:7.2f} {r['characters']:7.2f} "
                f"{r['attribute']:7.2f} {r['detect'] + r['attribute']:6.2f} {total:7.2f} {usage.ru_maxrss / 1024:7.0f}"
            )


if __name__ == "__main__":
    main()
