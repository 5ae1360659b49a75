"""BM25 on bm25s: scores for every (term, unit) pair are computed once at index time (a sparse
matrix), so a query is a sum of a few sparse columns — well under a millisecond for a novel."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fabula.book import Book
from fabula.errors import ConfigError
from fabula.retrieval._analysis import Analyzer
from fabula.retrieval._base import FloatArray, Retriever, register_retriever
from fabula.retrieval._units import Unit

BM25_METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")


@register_retriever("bm25")
class BM25Retriever(Retriever):
    """Okapi BM25 (default: Lucene's variant, k1=1.5, b=0.75) over analyzed unit text."""

    cacheable = True

    def __init__(
        self,
        *,
        language: str = "en",
        method: str = "lucene",
        k1: float = 1.5,
        b: float = 0.75,
        delta: float = 0.5,
        stem: bool = True,
        stopwords: str | None = "default",
    ) -> None:
        super().__init__()
        if method not in BM25_METHODS:
            raise ConfigError(f"unknown BM25 method {method!r} (choose from {', '.join(BM25_METHODS)})")
        self.analyzer = Analyzer(language, stem=stem, stopwords=stopwords)
        self.method, self.k1, self.b, self.delta = method, k1, b, delta
        self._vocab: dict[str, int] = {}
        self._bm25: Any = None

    @classmethod
    def for_book(cls, book: Book | None, **options: Any) -> BM25Retriever:
        if book is not None:
            options.setdefault("language", book.meta.language)
        return cls(**options)

    def settings(self) -> dict[str, Any]:
        return {
            **self.analyzer.settings(),
            "method": self.method,
            "k1": self.k1,
            "b": self.b,
            "delta": self.delta,
        }

    def _new_model(self) -> Any:
        import bm25s

        return bm25s.BM25(k1=self.k1, b=self.b, delta=self.delta, method=self.method)

    def _build(self) -> None:
        docs = self.analyzer.analyze_many(u.text for u in self.units)
        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(term, len(vocab)) for term in doc] for doc in docs]
        self._vocab = vocab
        self._bm25 = self._new_model()
        if self.units:
            self._bm25.index((ids, vocab), show_progress=False)

    def query_terms(self, query: str) -> list[str]:
        """The analyzed query terms that occur in the index (the rest cannot score)."""
        return [t for t in self.analyzer(query) if t in self._vocab]

    def scores(self, query: str, until: int | None = None) -> FloatArray:
        n = len(self.units)
        ids = [self._vocab[t] for t in self.query_terms(query)]
        if not ids or n == 0:
            return np.full(n, -np.inf)
        raw = np.asarray(self._bm25.get_scores_from_ids(ids), dtype=np.float64)
        return np.where(raw > 0, raw, -np.inf)

    def save(self, folder: Path) -> None:
        self._bm25.save(str(folder / "bm25"), show_progress=False)
        (folder / "vocab.json").write_text(json.dumps(self._vocab), encoding="utf-8")

    def load(self, folder: Path, units: Sequence[Unit]) -> None:
        import bm25s

        self._set_units(units)
        self._vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
        self._bm25 = bm25s.BM25.load(str(folder / "bm25"), show_progress=False, verbosity=0)
        if int(self._bm25.scores["num_docs"]) != len(units):
            raise ValueError("cached BM25 index does not match the units")
