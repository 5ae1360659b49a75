"""A new ``fabula serve`` checkpoint's analysis in CPU seconds, in one process, with and without what serve
reuses across checkpoints: the book's prefix-stable layers (`fabula.book.PrefixLayers`) and the quote
lines kept per line text (`fabula.describe`).

Each round alternates the two ways over the positions, as a reader jumping on through the book:

* plain: `analyze_book(book.truncated(p))`, every kept line forgotten first (what serve did before);
* reused: a fresh `PrefixLayers`, its layers made by an analysis at the first checkpoint (what serve's
  first screen does), the kept lines forgotten once, then `analyze_book(layers.truncated(p))` for each
  position in order (each finds the lines of the ones before).

It asserts that both give the same analysis and prints the minimum CPU seconds per position and way, on
one core as in ``fabula serve`` (no `fabula._parallel.fork_call` halves).

    python benchmarks/bench_serve_checkpoint.py --book ../shared/data/pdnc/Emma/novel_text.txt --rounds 3
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from pathlib import Path
from typing import Any

from fabula.analysis import Analysis
from fabula.book import PrefixLayers, load_book, resolve_position
from fabula.describe import _lines
from fabula.pipeline import analyze_book

ROOT = Path(__file__).resolve().parents[1]
# one core, as in `fabula serve`: its analyses run off the main thread, where `fabula._parallel.fork_call`
# does not fork (and a forked half's CPU would not count in this process's time)
os.environ["FABULA_FORK"] = "0"


def forget_lines() -> None:
    """Forget every quote line kept per line text (`fabula.describe._lines`' caches)."""
    _lines._line.cache_clear()
    _lines._content.cache_clear()
    _lines._fold.cache_clear()


def outputs(analysis: Analysis) -> Any:
    book = analysis.book
    return (
        [dataclasses.asdict(c) for c in book.characters],
        book.mentions,
        book.quotes,
        [p.to_dict() for p in analysis.characters],
    )


def cpu(work: Any) -> tuple[float, Analysis]:
    started = time.process_time()
    result = work()
    return time.process_time() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--book", type=Path, default=ROOT.parent / "shared/data/pdnc/Emma/novel_text.txt")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--at", default="10,30,50,70,90", help="positions in percent, in reading order")
    args = parser.parse_args()
    book = load_book(args.book)
    positions = [resolve_position(book, f"{p}%") for p in args.at.split(",")]
    analyze_book(book.truncated(positions[0]))  # imports and the models, before any timing
    best: dict[tuple[str, int], float] = {}
    layers_cpu = []
    for _ in range(args.rounds):
        plain = {}
        for point in positions:
            forget_lines()
            seconds, plain[point] = cpu(lambda point=point: analyze_book(book.truncated(point)))
            best["plain", point] = min(best.get(("plain", point), 1e9), seconds)
        forget_lines()
        layers = PrefixLayers(book)
        # serve's first screen: the checkpoint at the body's start (its analysis makes the layers)
        seconds, _ = cpu(lambda layers=layers: analyze_book(layers.truncated(book.body.start)))
        layers_cpu.append(seconds)
        for point in positions:
            seconds, reused = cpu(lambda point=point, layers=layers: analyze_book(layers.truncated(point)))
            best["reused", point] = min(best.get(("reused", point), 1e9), seconds)
            assert outputs(reused) == outputs(plain[point]), f"the analyses at {point} differ"
    print(f"book: {args.book} ({book.word_count:,} words); min of {args.rounds} rounds, CPU seconds")
    print(f"first screen with the layers made: {min(layers_cpu):.2f} s")
    print("| position | plain cut | through PrefixLayers |")
    print("|---|---:|---:|")
    for label, point in zip(args.at.split(","), positions, strict=True):
        print(f"| {label} % | {best['plain', point]:.2f} | {best['reused', point]:.2f} |")


if __name__ == "__main__":
    main()
