"""RECIDENT (Li et al., 2024): recap snippet identification, evaluated on a JSONL data file of targets.

Each item is one target with its candidates and gold (see `fabula.recap._data`); a ranker (`--method`)
scores the candidates; the report has Recall@5, Precision@5 and F1@5, the free-selection precision,
recall and F1, and Recall@5 by candidate distance (nearest 20 / 21-40 / 41-60), per novel and overall.
Per-target values are averaged and F1 is the harmonic mean of the averaged precision and recall, as in
the paper, so ``f1_at_5`` is not the mean of per-target F1s.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fabula.book import Book, load_book
from fabula.errors import InputError
from fabula.llm import LLM
from fabula.metrics._ranking import (
    f1,
    free_precision,
    free_recall,
    mean,
    precision_at_5,
    recall_at_5,
    recall_by_distance,
)
from fabula.recap import RecapContext, RecapTarget, Snippet, create_ranker, read_records
from fabula.recap._construct import SentenceIndex
from fabula.tasks._evaluation import EvalReport

METRICS = [
    "recall_at_5",
    "precision_at_5",
    "f1_at_5",
    "free_recall",
    "free_precision",
    "free_f1",
    "recall_at_5_d1_20",
    "recall_at_5_d21_40",
    "recall_at_5_d41_60",
]


@dataclass(slots=True)
class RecapItem:
    """One evaluation target: its novel's name (for grouping), its book, and the target with gold."""

    novel: str
    book: Book
    target: RecapTarget


def load_items(path: Path) -> tuple[list[RecapItem], dict[str, Book]]:
    """The data file's targets mapped onto their books' sentences (one book load per file)."""
    records = read_records(path)
    books: dict[str, Book] = {}
    items: list[RecapItem] = []
    for record in records:
        book_path = record["book"]
        if book_path not in books:
            if not Path(book_path).is_file():
                raise InputError(f"target {record['id']}: book not found: {book_path}", path)
            books[book_path] = load_book(book_path)
        book = books[book_path]
        sentences = _sentences(book)
        target = _snippet(sentences, record["target"], path, record["id"])
        candidates = tuple(_snippet(sentences, c, path, record["id"]) for c in record["candidates"])
        gold = tuple(record["gold"]) if record.get("gold") is not None else None
        novel = Path(book_path).parent.name if Path(book_path).name == "novel_text.txt" else Path(book_path).stem
        items.append(
            RecapItem(novel, book, RecapTarget(record["id"], target, candidates, 0, gold, {"novel": novel}))
        )
    return items, books


_SENTENCE_CACHE: dict[int, SentenceIndex] = {}


def _sentences(book: Book) -> SentenceIndex:
    key = id(book)
    if key not in _SENTENCE_CACHE:
        _SENTENCE_CACHE[key] = SentenceIndex(book)
    return _SENTENCE_CACHE[key]


def _snippet(sentences: SentenceIndex, span: Sequence[int], path: Path, item_id: str) -> Snippet:
    try:
        first, stop = sentences.covering(int(span[0]), int(span[1]))
    except Exception as exc:
        raise InputError(f"target {item_id}: span {list(span)} matches no sentences of the book", path) from exc
    snippet = sentences.snippet(first, stop)
    # keep the file's exact offsets (the sentence range is only used for features)
    return Snippet(first, stop, int(span[0]), int(span[1])) if snippet.span != tuple(span) else snippet


def score_target(
    ranked: Sequence[int], selected: Sequence[int], gold: Sequence[int], n_candidates: int
) -> dict[str, float | None]:
    """Per-target values of every report metric (F1s are filled in when averaging)."""
    distances = [n_candidates - i for i in range(n_candidates)]
    by_distance = recall_by_distance(ranked, gold, distances)
    return {
        "recall_at_5": recall_at_5(ranked, gold),
        "precision_at_5": precision_at_5(ranked, gold),
        "free_recall": free_recall(selected, gold),
        "free_precision": free_precision(selected, gold),
        "recall_at_5_d1_20": by_distance["1-20"],
        "recall_at_5_d21_40": by_distance["21-40"],
        "recall_at_5_d41_60": by_distance["41-60"],
    }


def aggregate(rows: Sequence[dict[str, float | None]]) -> dict[str, Any]:
    """Means over targets, F1 from the mean precision and recall (the paper's way), and the count."""
    out: dict[str, Any] = {key: mean([r.get(key) for r in rows]) for key in METRICS if not key.endswith("f1")}
    out["f1_at_5"] = f1(out["precision_at_5"], out["recall_at_5"])
    out["free_f1"] = f1(out["free_precision"], out["free_recall"])
    out["targets"] = len(rows)
    return {key: out.get(key) for key in [*METRICS, "targets"]}


def evaluate_recap(
    data: Path, method: str = "combined", *, llm: LLM | None = None, **options: Any
) -> tuple[EvalReport, list[dict[str, Any]]]:
    """Rank every annotated target of ``data`` with ``method``; the report and one log row per target."""
    items, books = load_items(data)
    items = [item for item in items if item.target.gold is not None]
    if not items:
        raise InputError("no annotated targets (with 'gold') in the file", data)
    ranker = create_ranker(method, llm=llm, **options)
    contexts = {id(book): RecapContext(book) for book in books.values()}
    by_novel: dict[str, list[dict[str, float | None]]] = defaultdict(list)
    logs: list[dict[str, Any]] = []
    for item in items:
        ranking = ranker.rank(contexts[id(item.book)], item.target)
        gold = list(item.target.gold or ())
        ranked = ranking.top(len(ranking.scores))
        selected = ranking.free(5)
        row = score_target(ranked, selected, gold, len(item.target.candidates))
        by_novel[item.novel].append(row)
        logs.append(
            {
                "id": item.target.id,
                "novel": item.novel,
                "top5": ranked[:5],
                "selected": selected,
                "gold": gold,
                "scores": row,
                "log": ranking.log,
            }
        )
    report = EvalReport("recap", METRICS, settings={"data": str(data), "method": method, **_plain(options)})
    for novel, rows in sorted(by_novel.items()):
        report.add_novel(novel, aggregate(rows))
    report.micro = aggregate([row for rows in by_novel.values() for row in rows])
    return report, logs


def _plain(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if isinstance(v, str | int | float | bool)}
