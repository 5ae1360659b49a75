"""Time and peak memory of character discovery (and gold matching) on long PDNC novels.

Target (issue 3): <= 3 s and <= 500 MB for a 150K-word novel on a 2-core CPU.
Run: python benchmarks/bench_characters.py [PDNC_DIR]
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from fabula.characters import find_characters
from fabula.datasets import load_pdnc_novel

NOVELS = ["Emma", "NightAndDay", "PrideAndPrejudice"]


def main() -> None:
    root = (
        Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared/data/pdnc"
    )
    table = Table(title="fabula characters: time and memory")
    for column in ["novel", "words", "discover s", "gold match s", "characters", "mentions", "peak RSS MB"]:
        table.add_column(column, justify="right" if column != "novel" else "left")
    for name in NOVELS:
        novel = load_pdnc_novel(root / name)
        book = novel.book
        started = time.perf_counter()
        cast = find_characters(book)
        discover = time.perf_counter() - started
        mentions = len(book.mentions)
        started = time.perf_counter()
        find_characters(book, gold=novel.characters)
        gold = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        table.add_row(
            name,
            f"{book.word_count:,}",
            f"{discover:.2f}",
            f"{gold:.2f}",
            str(len(cast)),
            f"{mentions:,}",
            f"{peak_mb:.0f}",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
