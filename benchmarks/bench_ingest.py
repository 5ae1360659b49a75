"""Ingestion benchmark: load + segment every PDNC novel, one fresh process per novel.

Prints, per novel: words, load+segment seconds (decode, boilerplate, paragraphs, chapters, sentences,
tokens; imports and library warm-up excluded), peak resident memory of the whole process (MB, from
``ru_maxrss``), and Book JSON save/load seconds. Target (issue 2): <= 1.5 s and <= 300 MB for a
150K-word novel on a 2-core machine.

    python benchmarks/bench_ingest.py [--data ../shared/data/pdnc] [--repeat 3]
    python benchmarks/bench_ingest.py --stress   # hostile and very large inputs instead of the novels

``--stress`` rows: one paragraph with no line breaks at 128 KiB, 512 KiB and 2 MiB (sentence repair must
stay linear: it once copied the rest of the paragraph per sentence, 2 MiB > 300 s), and the 21 novels
concatenated to 10 MB and 39 MB (memory and book.json size must grow gently with the text).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 1.5
TARGET_MB = 300.0


def measure_one(path: Path, repeat: int) -> dict[str, float]:
    """Run inside the child process: time load_book and JSON save/load; report peak memory."""
    from fabula.book import book_from_text, load_book, load_book_json, save_book

    book_from_text(
        "Warm up. The splitter loads once.\n\nCHAPTER I\n\nText."
    )  # library start-up, not per book
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        book = load_book(path)
        times.append(time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "book.json"
        start = time.perf_counter()
        save_book(book, target)
        save_s = time.perf_counter() - start
        start = time.perf_counter()
        again = load_book_json(target)
        load_json_s = time.perf_counter() - start
        json_mb = target.stat().st_size / 1e6
    assert again == book
    return {
        "words": book.word_count,
        "chars": len(book.text),
        "chapters": len(book.chapters),
        "sentences": len(book.sentences),
        "tokens": len(book.tokens),
        "seconds": min(times),
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_after_imports_mb": rss_before,
        "json_mb": json_mb,
        "json_save_s": save_s,
        "json_load_s": load_json_s,
    }


LONG_PARAGRAPH = 'He said "hello there" and she replied "no way" to him. '


def stress_inputs(data: Path, folder: Path) -> list[tuple[str, Path]]:
    """The --stress files, written into ``folder``."""
    inputs = []
    for size, label in ((2**17, "128 KiB"), (2**19, "512 KiB"), (2**21, "2 MiB")):
        path = folder / f"paragraph-{size}.txt"
        path.write_text((LONG_PARAGRAPH * (size // len(LONG_PARAGRAPH) + 1))[:size], encoding="utf-8")
        inputs.append((f"one paragraph, {label}", path))
    novels = [p.read_text(encoding="utf-8") for p in sorted(data.glob("*/novel_text.txt"))]
    for megabytes in (10, 39):
        path = folder / f"novels-{megabytes}mb.txt"
        with path.open("w", encoding="utf-8") as handle:
            written = 0
            while written < megabytes * 1_000_000:
                for text in novels:
                    handle.write(text + "\n\n")
                    written += len(text) + 2
                    if written >= megabytes * 1_000_000:
                        break
        inputs.append((f"21 novels concatenated, {megabytes} MB", path))
    return inputs


def run_child(path: Path, repeat: int) -> dict[str, float]:
    child = subprocess.run(
        [sys.executable, __file__, "--one", str(path), "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(child.stdout))


def stress(data: Path) -> None:
    header = (
        f"{'input':36} {'chars':>11} {'sents':>8} {'tokens':>10} {'load s':>7} {'peak MB':>8} {'json MB':>8}"
    )
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        for label, path in stress_inputs(data, Path(tmp)):
            row = run_child(path, 1)
            print(
                f"{label:36} {row['chars']:11,} {row['sentences']:8,} {row['tokens']:10,} {row['seconds']:7.2f}"
                f" {row['rss_mb']:8.0f} {row['json_mb']:8.1f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "pdnc")
    parser.add_argument("--repeat", type=int, default=3, help="timed loads per novel (the minimum is kept)")
    parser.add_argument("--stress", action="store_true", help="hostile and very large inputs (see above)")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # child mode
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one, args.repeat)))
        return
    if args.stress:
        stress(args.data)
        return
    novels = sorted(p for p in args.data.glob("*/novel_text.txt"))
    if not novels:
        sys.exit(f"no PDNC novels under {args.data}")
    print(
        f"# fabula ingestion benchmark: {platform.processor() or platform.machine()}, Python {platform.python_version()}"
    )
    header = f"{'novel':30} {'words':>8} {'chars':>8} {'chap':>5} {'sents':>6} {'load s':>7} {'peak MB':>8} {'json MB':>8} {'save s':>7} {'load json s':>11}"
    print(header)
    print("-" * len(header))
    rows = []
    for path in novels:
        row = run_child(path, args.repeat)
        rows.append(row)
        print(
            f"{path.parent.name:30} {row['words']:8,} {row['chars']:8,} {row['chapters']:5} {row['sentences']:6,}"
            f" {row['seconds']:7.2f} {row['rss_mb']:8.0f} {row['json_mb']:8.1f} {row['json_save_s']:7.3f}"
            f" {row['json_load_s']:11.3f}"
        )
    words = sum(r["words"] for r in rows)
    seconds = sum(r["seconds"] for r in rows)
    big = [r for r in rows if r["words"] >= 120_000]
    print("-" * len(header))
    print(
        f"{len(rows)} novels, {words:,} words in {seconds:.2f} s ({words / seconds:,.0f} words/s); "
        f"slowest {max(r['seconds'] for r in rows):.2f} s, peak memory {max(r['rss_mb'] for r in rows):.0f} MB "
        f"(of which {min(r['rss_after_imports_mb'] for r in rows):.0f} MB is the interpreter and libraries)"
    )
    for row in big:
        ok = row["seconds"] <= TARGET_SECONDS * row["words"] / 150_000 and row["rss_mb"] <= TARGET_MB
        print(
            f"target for {row['words']:,} words: {row['seconds']:.2f} s (<= {TARGET_SECONDS} s per 150K words), "
            f"{row['rss_mb']:.0f} MB (<= {TARGET_MB:.0f} MB): {'met' if ok else 'MISSED'}"
        )


if __name__ == "__main__":
    main()
