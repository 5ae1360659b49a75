"""Character description recognition (GANDALF) on fabula's own question set: accuracy and time of every
no-LLM method, books indexed once.

Target: a whole 60-question evaluation with a no-LLM method in <= 30 s on a 2-core CPU, books indexed once.
"index s" is loading every book, finding its characters and mentions and building the shared term
postings (wall, and process CPU in brackets); each method's "eval s" then answers the questions
(retrievers the method needs are built at its first question and included). "cpu" is process CPU time,
the fair number on a loaded machine.

    python benchmarks/bench_recognize.py                       # all 132 questions
    python benchmarks/bench_recognize.py --limit 60 --method evidence
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict
from pathlib import Path

from fabula.recognition import BookShelf, get_method, load_questions

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "recognize" / "questions.jsonl"
NO_LLM = ["evidence", "bow-tfidf", "best-passage-tfidf", "bm25", "dense", "query-cues"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument(
        "--method", action="append", default=None, help="repeatable; default: every no-LLM method"
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="only the first N questions (spread over the books)"
    )
    parser.add_argument("--anonymize", action="store_true")
    parser.add_argument("--gold", action="store_true", help="the character_info.csv beside each book")
    parser.add_argument(
        "--no-cache", action="store_true", help="do not use the on-disk retrieval index cache"
    )
    args = parser.parse_args()
    questions = load_questions(args.data)
    if args.limit is not None and args.limit < len(questions):  # a fixed sample over books and directions
        questions = sorted(random.Random(0).sample(questions, args.limit), key=questions.index)
    shelf = BookShelf(gold=args.gold, anonymize=args.anonymize, cache=not args.no_cache)
    wall, cpu = time.perf_counter(), time.process_time()
    for book in sorted({q.book for q in questions}):
        shelf.index(book).postings  # noqa: B018  (build the shared postings now)
    print(
        f"{len(questions)} questions, {len({q.book for q in questions})} books; "
        f"index s {time.perf_counter() - wall:.1f} (cpu {time.process_time() - cpu:.1f})"
    )
    print(f"{'method':<11} {'desc2name':>9} {'name2desc':>9} {'all':>6} {'eval s':>7} {'cpu s':>6}")
    for name in args.method or NO_LLM:
        method = get_method(name)
        right: dict[str, list[bool]] = defaultdict(list)
        wall, cpu = time.perf_counter(), time.process_time()
        for question in questions:
            asked = shelf.question(question)
            index = shelf.index(asked.book) if method.needs_book else None
            right[question.direction].append(method.predict(asked, index).choice == asked.answer)
        seconds, cpu_seconds = time.perf_counter() - wall, time.process_time() - cpu
        every = [r for values in right.values() for r in values]
        cells = [_pct(right["desc2name"]), _pct(right["name2desc"]), _pct(every)]
        print(f"{name:<11} {cells[0]:>9} {cells[1]:>9} {cells[2]:>6} {seconds:>7.1f} {cpu_seconds:>6.1f}")


def _pct(values: list[bool]) -> str:
    return f"{100 * sum(values) / len(values):.1f}" if values else "-"


if __name__ == "__main__":
    main()
