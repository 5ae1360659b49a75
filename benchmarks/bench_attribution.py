"""CPU time of quote attribution alone (the default method: sieve, ranker, beam, write-out) on PDNC
novels, repeated in one process on the same detected quotes and characters, so start-up, reading and
character discovery do not count. The garbage collector runs as in ``fabula analyze``
(`fabula.corpus.fewer_collections`) unless ``--default-gc``. On a shared machine compare two trees by
running this script with each tree first on ``PYTHONPATH``, alternating, and say the load.

    python benchmarks/bench_attribution.py --pdnc ../shared/data/pdnc --novel Emma --repeat 5
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import time
from pathlib import Path

from fabula.annotation import annotate
from fabula.corpus import fewer_collections
from fabula.datasets import load_pdnc_novel
from fabula.quotes import attribute_quotes


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pdnc", type=Path, default=Path("../shared/data/pdnc"))
    parser.add_argument("--novel", action="append", help="novel folder name (repeatable; default Emma)")
    parser.add_argument("--characters", choices=("predicted", "gold"), default="predicted")
    parser.add_argument("--repeat", type=int, default=5, help="attributions per novel (default 5)")
    parser.add_argument("--default-gc", action="store_true", help="Python's own collection thresholds")
    args = parser.parse_args()
    if args.default_gc:
        run(args)
    else:
        with fewer_collections():
            run(args)


def run(args: argparse.Namespace) -> None:
    """Time each novel's attribution."""
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        f"{'novel':22s} {'words':>7s} {'quotes':>6s} {'CPU min s':>9s} {'CPU median s':>12s} {'wall min s':>10s}"
    )
    for name in args.novel or ["Emma"]:
        novel = load_pdnc_novel(args.pdnc / name)
        book = novel.book
        annotate(book, {"mentions"}, gold=novel.characters if args.characters == "gold" else None)
        quotes = copy.deepcopy(book.quotes)
        cpu: list[float] = []
        wall: list[float] = []
        for _ in range(args.repeat):
            book.quotes = copy.deepcopy(quotes)
            started, started_cpu = time.perf_counter(), time.process_time()
            attribute_quotes(book)
            cpu.append(time.process_time() - started_cpu)
            wall.append(time.perf_counter() - started)
        print(
            f"{name:22s} {book.word_count:7d} {len(book.quotes):6d} {min(cpu):9.3f} "
            f"{statistics.median(cpu):12.3f} {min(wall):10.3f}"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
