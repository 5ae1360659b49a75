"""RECIDENT (Li et al., 2024): recap snippet identification, on a JSONL data file of targets.

``fabula eval recap --data FILE --method NAME [--llm SPEC]``: one item per annotated target (see
`fabula.recap._data` for the file); the ranker scores the target's candidates; the report has
Recall@5, Precision@5 and F1@5, free-selection recall, precision and F1, and the paper's distance
analysis (§6.2, Figures 3 and 11: the @5 scores when only the nearest 20 or 40 candidates count; the
nearest 60 are the main scores) — per novel and over all targets. As in the paper, every
row's F1 is the harmonic mean of that row's averaged precision and recall (set in `RecapTask.finish`),
not a mean of per-target F1s. ``--anonymize``: each book renamed (its discovered characters), the
target and candidate spans carried onto the copy by its offset map (the gold, candidate indices, stays).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from fabula.book import Book
from fabula.errors import InputError, unused_model
from fabula.metrics import (
    at_5_within_nearest,
    free_precision,
    free_recall,
    harmonic_mean,
    precision_at_5,
    recall_at_5,
)
from fabula.recap import (
    LLM_METHODS,
    Ranker,
    RecapContext,
    RecapTarget,
    Snippet,
    create_ranker,
    ranker_names,
    ranker_needs_llm,
    read_records,
    reader_context,
)
from fabula.tasks._evaluation import EvalReport
from fabula.tasks._harness import EvalItem, ItemOutcome, Task, TaskOption, task

if TYPE_CHECKING:
    from fabula.llm import LLM

METRICS = [
    "recall_at_5",
    "precision_at_5",
    "f1_at_5",
    "free_recall",
    "free_precision",
    "free_f1",
    "recall_at_5_near20",
    "precision_at_5_near20",
    "f1_at_5_near20",
    "recall_at_5_near40",
    "precision_at_5_near40",
    "f1_at_5_near40",
]
F1_OF = {
    "f1_at_5": ("precision_at_5", "recall_at_5"),
    "free_f1": ("free_precision", "free_recall"),
    "f1_at_5_near20": ("precision_at_5_near20", "recall_at_5_near20"),
    "f1_at_5_near40": ("precision_at_5_near40", "recall_at_5_near40"),
}


def score_target(
    ranked: Sequence[int], selected: Sequence[int], gold: Sequence[int], n_candidates: int
) -> dict[str, float | None]:
    """Every report metric for one target (``ranked``: candidate indices best first, ``selected``: the
    free selection, candidates in book order so the last is the nearest)."""
    distances = [n_candidates - i for i in range(n_candidates)]
    scores: dict[str, float | None] = {
        "recall_at_5": recall_at_5(ranked, gold),
        "precision_at_5": precision_at_5(ranked, gold),
        "free_recall": free_recall(selected, gold),
        "free_precision": free_precision(selected, gold),
    }
    for nearest in (20, 40):
        recall, precision = at_5_within_nearest(ranked, gold, distances, nearest)
        scores[f"recall_at_5_near{nearest}"] = recall
        scores[f"precision_at_5_near{nearest}"] = precision
    for key, (p, r) in F1_OF.items():
        scores[key] = harmonic_mean(scores[p], scores[r])
    return scores


def _novel_name(book_path: str) -> str:
    path = Path(book_path)
    return path.parent.name if path.name == "novel_text.txt" else path.stem


def _groups(record: dict[str, Any]) -> dict[str, str]:
    """The report's groups of a record: its novel, and its split when the data file names one."""
    groups = {"novel": _novel_name(record["book"])}
    if isinstance(record.get("split"), str):
        groups["split"] = record["split"]
    return groups


@task("recap")
class RecapTask(Task):
    """RECIDENT recap snippets: rank each target's candidates, score against the gold."""

    description = "Recap snippets (RECIDENT): Recall/Precision/F1@5 and free selection on a JSONL file of annotated targets."
    metrics: ClassVar[list[str]] = METRICS
    counts: ClassVar[list[str]] = ["seconds"]
    group_by: ClassVar[list[str]] = ["novel", "split"]  # split: a record's "split" (tuning / frozen), if any
    llm = "optional"
    anonymize_refusal = None  # target and candidate spans go through the copy's offset map
    options: ClassVar[list[TaskOption]] = [
        TaskOption(
            "data",
            Path,
            required=True,
            metavar="FILE",
            help="JSONL targets with gold (fabula recap build, then annotate).",
        ),
        TaskOption(
            "method",
            str,
            default="reach-back",
            metavar="NAME",
            help="Ranker (fabula recap --help lists them): e.g. combined, closest, select-all, llm-listwise, llm-pairwise, pipeline, pairwise-model:DIR (a model from fabula train recap-pairwise).",
        ),
    ]

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        if self.options_given["method"] not in ranker_names():
            create_ranker(self.options_given["method"])  # the registry's one-line error
        self._lock = threading.Lock()
        self._rankers: dict[int, Ranker] = {}

    def check(self, llm: LLM | None) -> None:
        method = self.options_given["method"]
        if llm is not None and not ranker_needs_llm(method):
            raise unused_model(method, LLM_METHODS)

    def items(self) -> list[EvalItem]:
        path = Path(self.options_given["data"])
        records = [r for r in read_records(path) if r.get("gold") is not None]
        if not records:
            raise InputError("no annotated targets (with 'gold') in the file", path)
        return [EvalItem(str(r["id"]), _groups(r), r) for r in records]

    def _book(self, book_path: str) -> Book:
        """The whole book (renamed with ``--anonymize``: the names of its annotated cast), loaded once
        (the harness's book service); each target cuts it at its own end (`target`)."""
        if not Path(book_path).is_file():
            raise InputError("book not found", book_path)
        return self.books.book(book_path)

    def _ranker(self, llm: LLM | None) -> Ranker:
        with self._lock:
            key = id(llm)
            if key not in self._rankers:
                self._rankers[key] = create_ranker(self.options_given["method"], llm=llm)
            return self._rankers[key]

    def target(self, record: dict[str, Any]) -> tuple[RecapContext, RecapTarget]:
        """The record's target and candidates as sentence ranges, with the rankers' context of a reader
        who has just read the target: the book cut at the target's end (`fabula.recap.reader_context`,
        what ``fabula recap --at END`` sees), so no method sees a character, term or sentence after it."""
        book = self._book(record["book"])
        copy = self.books.copy(record["book"])

        def offsets(span: Sequence[int]) -> tuple[int, int]:
            try:
                start, end = int(span[0]), int(span[1])
                return copy.span(start, end) if copy is not None else (start, end)
            except InputError:
                raise
            except Exception as exc:
                raise InputError(f"target {record['id']}: span {list(span)} is not in the book") from exc

        target_span = offsets(record["target"])
        context = reader_context(book, target_span[1])

        def snippet(span: tuple[int, int]) -> Snippet:
            try:
                first, stop = context.sentences.covering(*span)
            except Exception as exc:
                raise InputError(f"target {record['id']}: span {list(span)} is not in the book") from exc
            return Snippet(first, stop, *span)

        candidates = tuple(snippet(offsets(c)) for c in record["candidates"])
        target = RecapTarget(
            str(record["id"]),
            snippet(target_span),
            candidates,
            int(record.get("gap", 0)),
            tuple(record["gold"]),
        )
        return context, target

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        context, target = self.target(item.payload)
        ranking = self._ranker(llm).rank(context, target)
        ranked = ranking.top(len(ranking.scores))
        selected = ranking.free(5)
        gold = list(target.gold or ())
        scores = score_target(ranked, selected, gold, len(target.candidates))
        # the model's answers that could not be read (counted per target, summed per group), and why
        logged = ("kept", "reasons", "errors", "error", "unreadable", "ignored_lines", "cut")
        details = {k: v for k, v in ranking.log.items() if k in logged}
        return ItemOutcome(scores, {"top5": ranked[:5], "selected": selected, "gold": gold}, details)

    def finish(self, report: EvalReport) -> None:
        """Each row's F1 from its own averaged precision and recall (the paper's F1@5)."""
        rows: list[dict[str, Any]] = list(report.novels.values())
        for groups in report.groups.values():
            rows.extend(groups.values())
        if report.item_mean is not None:
            rows.append(report.item_mean)
        for row in rows:
            for key, (p, r) in F1_OF.items():
                row[key] = harmonic_mean(row.get(p), row.get(r))
