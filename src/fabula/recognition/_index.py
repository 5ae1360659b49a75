"""`BookIndex`: one book read once for character recognition — characters and mentions, paragraph units,
term postings for the evidence method, and the sparse/dense retrievers built on demand.

Every method asks the index which units mention a character (`mention_weights`), so the baselines
(passages naming the option) and the evidence method (all passages, pronouns included) read the same
mentions from `fabula.characters`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from fabula.book import Book, Character, load_book
from fabula.retrieval import (
    DEFAULT_DENSE_MODEL,
    Analyzer,
    MentionTable,
    Retriever,
    Unit,
    ensure_mentions,
    find_character,
    index_book,
    make_units,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: names only: what "a passage that mentions the character" means for the paper's baselines
NAME_WEIGHTS: Mapping[str, float] = {"alias": 1.0, "name": 1.0, "title": 1.0, "nominal": 0.0, "pronoun": 0.0}
#: the evidence method also reads nominal and pronoun mentions (resolved by the characters layer)
EVIDENCE_WEIGHTS: Mapping[str, float] = {
    "alias": 1.0,
    "name": 1.0,
    "title": 0.8,
    "nominal": 0.5,
    "pronoun": 0.5,
}


class BookIndex:
    """A book prepared once for every recognition method (see the module docstring)."""

    def __init__(
        self,
        book: Book,
        *,
        gold: list[Character] | None = None,
        cache: bool = True,
        dense_model: str = DEFAULT_DENSE_MODEL,
    ) -> None:
        self.book = book
        self.gold = gold
        self.cache = cache
        self.dense_model = dense_model
        ensure_mentions(book, gold)
        self.units: list[Unit] = make_units(book, "paragraph")
        self._tables: dict[tuple[bool, tuple[tuple[str, float], ...]], MentionTable] = {}
        self._retrievers: dict[str, Retriever] = {}
        self._resolved: dict[str, Character | None] = {}

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        gold: list[Character] | None = None,
        cache: bool = True,
        dense_model: str = DEFAULT_DENSE_MODEL,
    ) -> BookIndex:
        return cls(load_book(path), gold=gold, cache=cache, dense_model=dense_model)

    # --- characters -------------------------------------------------------------------------
    def character(self, name: str) -> Character | None:
        """The book's character an option names (None when the characters layer does not know it)."""
        if name not in self._resolved:
            self._resolved[name] = find_character(self.book, name)
        return self._resolved[name]

    @cached_property
    def main_characters(self) -> list[Character]:
        """The book's characters, most mentioned first (the reference set for normalising scores)."""
        return sorted(self.book.characters, key=lambda c: -c.mention_count)

    def mention_weights(
        self, name: str, kinds: Mapping[str, float] = NAME_WEIGHTS, *, sentences: bool = False
    ) -> FloatArray:
        """How much each unit is about the character ``name`` names (mention weights summed per unit);
        ``sentences``: per sentence (`sentence_units`) instead of per paragraph.

        A name the characters layer does not resolve falls back on the units containing it verbatim."""
        units = self.sentence_units if sentences else self.units
        character = self.character(name)
        if character is None:
            return self._literal_weights(name, units)
        key = (sentences, tuple(sorted(kinds.items())))
        if key not in self._tables:
            self._tables[key] = MentionTable(self.book, units, self.gold, kind_weights=kinds)
        return self._tables[key].unit_weights({character.id})

    def _literal_weights(self, name: str, units: list[Unit]) -> FloatArray:
        pattern = re.compile(rf"(?<!\w){re.escape(' '.join(name.split()))}(?!\w)")
        return np.asarray([1.0 if pattern.search(u.text) else 0.0 for u in units])

    @cached_property
    def sentence_units(self) -> list[Unit]:
        """The book's sentences (the evidence method's mention windows)."""
        return make_units(self.book, "sentence")

    # --- retrieval ----------------------------------------------------------------------------
    def retriever(self, name: str) -> Retriever:
        """The named retriever over this index's paragraph units (built once, cached on disk)."""
        if name not in self._retrievers:
            options: dict[str, Any] = {"model": self.dense_model} if name == "dense" else {}
            self._retrievers[name] = index_book(
                self.book, name, units="paragraph", cache=self.cache, **options
            )
        return self._retrievers[name]

    # --- term postings (for the evidence method) -----------------------------------------------
    @cached_property
    def analyzer(self) -> Analyzer:
        return Analyzer(self.book.meta.language)

    @cached_property
    def postings(self) -> TermPostings:
        return TermPostings(self.analyzer, self.units)

    @cached_property
    def sentence_postings(self) -> TermPostings:
        return TermPostings(self.analyzer, self.sentence_units)


class TermPostings:
    """Term counts per unit in postings form (numpy only): the units of term ``t`` are
    ``unit_ids[indptr[t]:indptr[t+1]]`` with ``counts`` in the same places."""

    def __init__(self, analyzer: Analyzer, units: list[Unit]) -> None:
        self.analyzer = analyzer
        docs = analyzer.analyze_many(u.text for u in units)
        vocab: dict[str, int] = {}
        term_ids = np.fromiter((vocab.setdefault(t, len(vocab)) for d in docs for t in d), dtype=np.int64)
        unit_ids = np.repeat(np.arange(len(docs), dtype=np.int64), [len(d) for d in docs])
        n_units = max(len(docs), 1)
        keys, counts = np.unique(term_ids * n_units + unit_ids, return_counts=True)
        terms = keys // n_units
        self.vocab = vocab
        self.unit_ids: IntArray = (keys % n_units).astype(np.int64)
        self.counts: FloatArray = counts.astype(np.float64)
        self.indptr: IntArray = np.concatenate(
            ([0], np.cumsum(np.bincount(terms, minlength=len(vocab))))
        ).astype(np.int64)
        self.unit_lengths: FloatArray = np.asarray([len(d) for d in docs], dtype=np.float64)
        self.term_totals: FloatArray = np.bincount(terms, weights=self.counts, minlength=len(vocab)).astype(
            np.float64
        )
        self.document_frequency: IntArray = np.bincount(terms, minlength=len(vocab)).astype(np.int64)
        self.total = float(self.counts.sum())

    def query_terms(self, text: str) -> tuple[IntArray, FloatArray]:
        """The query's known term ids and their counts in the query."""
        ids = [self.vocab[t] for t in self.analyzer(text) if t in self.vocab]
        if not ids:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        terms, counts = np.unique(np.asarray(ids, dtype=np.int64), return_counts=True)
        return terms, counts.astype(np.float64)

    def unit_scores(self, terms: IntArray) -> FloatArray:
        """How well each unit matches the query terms: a BM25-style sum of idf times a saturated term count
        (k1 = 1.2, no length normalisation), so a unit stating several rare words of the query scores high."""
        out = np.zeros(len(self.unit_lengths))
        n_units = len(self.unit_lengths)
        for term in terms.tolist():
            lo, hi = self.indptr[term], self.indptr[term + 1]
            df = hi - lo
            idf = np.log((n_units - df + 0.5) / (df + 0.5) + 1.0)
            tf = self.counts[lo:hi]
            out[self.unit_ids[lo:hi]] += idf * tf / (tf + 1.2)
        return out

    def weighted_counts(self, terms: IntArray, weights: FloatArray) -> FloatArray:
        """``out[i, c]``: the count of ``terms[i]`` summed over units with weights ``weights[:, c]``."""
        out = np.zeros((len(terms), weights.shape[1]))
        for row, term in enumerate(terms.tolist()):
            lo, hi = self.indptr[term], self.indptr[term + 1]
            out[row] = self.counts[lo:hi] @ weights[self.unit_ids[lo:hi]]
        return out
