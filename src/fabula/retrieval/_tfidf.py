"""TF-IDF cosine retrieval (GANDALF's baseline), implemented on numpy postings.

Why not scikit-learn's ``TfidfVectorizer``: it would bring scikit-learn and scipy (tens of MB) into
the core for one formula, and it would still need our analyzer (stemming, stop words, jieba). The
weighting here is exactly scikit-learn's default — raw term counts (or ``1 + ln tf`` with
``sublinear_tf``), smoothed idf ``ln((1 + n) / (1 + df)) + 1``, L2-normalized unit and query vectors —
and the test suite checks parity against scikit-learn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from fabula.book import Book
from fabula.retrieval._analysis import Analyzer
from fabula.retrieval._base import FloatArray, Retriever, register_retriever
from fabula.retrieval._units import Unit


@register_retriever("tfidf")
class TfidfRetriever(Retriever):
    """Cosine similarity between TF-IDF vectors of the query and each unit."""

    cacheable = True

    def __init__(
        self,
        *,
        language: str = "en",
        sublinear_tf: bool = False,
        stem: bool = True,
        stopwords: str | None = "default",
    ) -> None:
        super().__init__()
        self.analyzer = Analyzer(language, stem=stem, stopwords=stopwords)
        self.sublinear_tf = sublinear_tf
        self._vocab: dict[str, int] = {}
        self._idf: FloatArray = np.zeros(0)
        # postings by term (CSC layout): units of term t are unit_ids[indptr[t]:indptr[t+1]]
        self._indptr: npt.NDArray[np.int64] = np.zeros(1, dtype=np.int64)
        self._unit_ids: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._weights: FloatArray = np.zeros(0)

    @classmethod
    def for_book(cls, book: Book | None, **options: Any) -> TfidfRetriever:
        if book is not None:
            options.setdefault("language", book.meta.language)
        return cls(**options)

    def settings(self) -> dict[str, Any]:
        return {**self.analyzer.settings(), "sublinear_tf": self.sublinear_tf}

    def _tf(self, counts: FloatArray) -> FloatArray:
        return 1.0 + np.log(counts) if self.sublinear_tf else counts

    def _build(self) -> None:
        docs = self.analyzer.analyze_many(u.text for u in self.units)
        vocab: dict[str, int] = {}
        term_ids = np.fromiter((vocab.setdefault(t, len(vocab)) for doc in docs for t in doc), dtype=np.int64)
        doc_ids = np.repeat(np.arange(len(docs), dtype=np.int64), [len(d) for d in docs])
        n_terms, n_docs = len(vocab), len(docs)
        keys, counts = np.unique(term_ids * max(n_docs, 1) + doc_ids, return_counts=True)
        terms, units = keys // max(n_docs, 1), keys % max(n_docs, 1)  # sorted by term, then unit
        df = np.bincount(terms, minlength=n_terms)
        self._idf = np.log((1.0 + n_docs) / (1.0 + df)) + 1.0
        weights = self._tf(counts.astype(np.float64)) * self._idf[terms]
        norms = np.sqrt(np.bincount(units, weights=weights**2, minlength=n_docs))
        weights /= np.where(norms > 0, norms, 1.0)[units]
        self._vocab = vocab
        self._indptr = np.concatenate(([0], np.cumsum(df))).astype(np.int64)
        self._unit_ids = units.astype(np.int64)
        self._weights = weights

    def scores(self, query: str, until: int | None = None) -> FloatArray:
        n = len(self.units)
        ids = [self._vocab[t] for t in self.analyzer(query) if t in self._vocab]
        if not ids or n == 0:
            return np.full(n, -np.inf)
        terms, counts = np.unique(np.asarray(ids, dtype=np.int64), return_counts=True)
        q = self._tf(counts.astype(np.float64)) * self._idf[terms]
        q /= np.linalg.norm(q)
        starts, stops = self._indptr[terms], self._indptr[terms + 1]
        postings = np.concatenate([np.arange(a, b) for a, b in zip(starts, stops, strict=True)])
        term_weight = np.repeat(q, stops - starts)
        result = np.bincount(
            self._unit_ids[postings], weights=term_weight * self._weights[postings], minlength=n
        )
        return np.where(result > 0, result, -np.inf)

    def save(self, folder: Path) -> None:
        np.savez(
            folder / "tfidf.npz",
            idf=self._idf,
            indptr=self._indptr,
            unit_ids=self._unit_ids,
            weights=self._weights,
        )
        (folder / "vocab.json").write_text(json.dumps(self._vocab), encoding="utf-8")

    def load(self, folder: Path, units: Sequence[Unit]) -> None:
        self._set_units(units)
        with np.load(folder / "tfidf.npz", allow_pickle=False) as data:
            self._idf, self._indptr = data["idf"], data["indptr"]
            self._unit_ids, self._weights = data["unit_ids"], data["weights"]
        self._vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
        if len(self._vocab) != len(self._idf) or (self._unit_ids.size and self._unit_ids.max() >= len(units)):
            raise ValueError("cached TF-IDF index does not match the units")
