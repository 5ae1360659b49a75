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

import itertools
import math
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from fabula._registry import Registry
from fabula.book import Book
from fabula.errors import ConfigError
from fabula.recap._construct import RecapTarget, SentenceIndex, Snippet, ensure_characters
from fabula.retrieval import DEFAULT_DENSE_MODEL

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
    def _sentence_terms(self) -> _SentenceTerms:
        language = self.book.meta.language if self.book.meta.language in ("en", "zh") else "en"
        texts = [self.book.text[s:e] for s, e in zip(self.sentences.starts, self.sentences.ends, strict=True)]
        return sentence_terms(language, texts)

    @property
    def _terms(self) -> tuple[list[IntArray], dict[str, int]]:
        """Each sentence's term ids (ids in order of first use) and the vocabulary."""
        terms = self._sentence_terms
        return terms.ids, terms.vocab

    @cached_property
    def _flat_terms(self) -> tuple[IntArray, IntArray, int]:
        """All sentences' term ids in one array, ``ptr[i]:ptr[i+1]`` being sentence i's."""
        ids, vocab = self._terms
        lengths = np.fromiter((a.size for a in ids), dtype=np.int64, count=len(ids))
        ptr = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(lengths, out=ptr[1:])
        flat = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        return flat, ptr, max(1, len(vocab))

    def terms(self, snippets: list[Snippet]) -> tuple[IntArray, IntArray, int]:
        """(row, term id) of every term of the snippets (row = index in ``snippets``) and the vocabulary
        size, gathered from the per-sentence analysis (no text is analyzed twice)."""
        flat, ptr, size = self._flat_terms
        firsts = np.fromiter((s.first for s in snippets), dtype=np.int64, count=len(snippets))
        stops = np.fromiter((s.stop for s in snippets), dtype=np.int64, count=len(snippets))
        starts, lengths = ptr[firsts], ptr[stops] - ptr[firsts]
        rows = np.repeat(np.arange(len(snippets), dtype=np.int64), lengths)
        offsets = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
        return rows, flat[np.arange(rows.size, dtype=np.int64) + offsets], size

    @cached_property
    def _characters(self) -> tuple[npt.NDArray[np.int32], dict[str, int]]:
        """Running counts of each character's naming mentions over sentences (row i: the sentences
        before i), so whether a sentence range names someone is one subtraction."""
        ensure_characters(self.book)
        columns: dict[str, int] = {}
        hits: list[tuple[int, int]] = []
        n = len(self.sentences)
        for mention in self.book.mentions:
            if mention.character_id is None or mention.kind not in NAMING_KINDS:
                continue
            i = self.sentences.last_before(mention.start)
            if i < n and self.sentences.starts[i] <= mention.start:
                hits.append((i, columns.setdefault(mention.character_id, len(columns))))
        counts = np.zeros((n + 1, max(1, len(columns))), dtype=np.int32)
        if hits:
            where = np.asarray(hits, dtype=np.int64)
            np.add.at(counts, (where[:, 0] + 1, where[:, 1]), 1)
        return np.cumsum(counts, axis=0, dtype=np.int32), columns

    def characters(self, snippet: Snippet) -> frozenset[str]:
        """Characters named (by name, alias, title) in the snippet (`fabula.characters`)."""
        cumulative, columns = self._characters
        present = cumulative[snippet.stop] - cumulative[snippet.first] > 0
        return frozenset(cid for cid, column in columns.items() if present[column])

    def shared_characters(self, target: Snippet, candidates: list[Snippet]) -> tuple[FloatArray, int]:
        """How many of the target's characters each candidate names, and how many the target names."""
        cumulative, _ = self._characters
        wanted = np.flatnonzero(cumulative[target.stop] - cumulative[target.first] > 0)
        if wanted.size == 0 or not candidates:
            return np.zeros(len(candidates)), int(wanted.size)
        firsts = np.fromiter((c.first for c in candidates), dtype=np.int64, count=len(candidates))
        stops = np.fromiter((c.stop for c in candidates), dtype=np.int64, count=len(candidates))
        present = cumulative[np.ix_(stops, wanted)] - cumulative[np.ix_(firsts, wanted)] > 0
        return present.sum(axis=1).astype(np.float64), int(wanted.size)

    @cached_property
    def book_idf(self) -> FloatArray:
        """log(sentences / (1 + sentences containing the term)) over the context book's sentences (the
        book as read: `fabula.recap.reader_context` cuts it at the reading position): how rare a term is
        in it (what a scene "turns on" is rare: a letter, a place, an illness)."""
        terms = self._sentence_terms
        present = np.concatenate(terms.unique) if terms.unique else np.zeros(0, dtype=np.int64)
        df = np.bincount(present, minlength=max(1, len(terms.vocab))).astype(np.int64)
        return np.maximum(0.0, np.log(max(1, len(terms.ids)) / (1.0 + df)))

    def chapter_of(self, snippet: Snippet) -> int:
        """Index of the chapter the snippet starts in (-1 before the first chapter)."""
        import bisect

        starts = [c.start for c in self.book.chapters]
        return bisect.bisect_right(starts, snippet.start) - 1

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


@dataclass(frozen=True, slots=True)
class _SentenceTerms:
    """The analysed sentences of one book (or a prefix of it): their texts, each one's term ids and
    distinct term ids, the vocabulary size after each, and the vocabulary (ids by first use)."""

    language: str
    texts: list[str]
    ids: list[IntArray]
    unique: list[IntArray]
    sizes: list[int]
    vocab: dict[str, int]


_TERMS: list[_SentenceTerms] = []  # the books analysed lately, newest last
_TERMS_KEPT = 4
_TERMS_LOCK = threading.Lock()


def sentence_terms(language: str, texts: list[str]) -> _SentenceTerms:
    """The term ids of each sentence text (`fabula.retrieval.Analyzer` for ``language``), ids given in
    order of first use. A sentence's terms depend on its text alone, and ids by first use make a
    prefix's ids the same as its own, so a book whose sentences begin with those of one analysed lately
    (the same novel read up to another position: ``fabula serve``'s checkpoints) takes that prefix's ids
    and analyses only the sentences after it — the same result as analysing all of them."""
    from fabula.retrieval import Analyzer

    with _TERMS_LOCK:
        best, shared = None, 0
        for entry in _TERMS:
            common = _common_prefix(entry.texts, texts) if entry.language == language else 0
            if common > shared:
                best, shared = entry, common
    if best is None:
        ids: list[IntArray] = []
        unique: list[IntArray] = []
        sizes: list[int] = []
        vocab: dict[str, int] = {}
    else:
        ids, unique, sizes = best.ids[:shared], best.unique[:shared], best.sizes[:shared]
        vocab = dict(itertools.islice(best.vocab.items(), sizes[-1]))
    for doc in Analyzer(language).analyze_many(texts[shared:]):
        row = np.asarray([vocab.setdefault(t, len(vocab)) for t in doc], dtype=np.int64)
        ids.append(row)
        unique.append(np.unique(row))
        sizes.append(len(vocab))
    made = _SentenceTerms(language, list(texts), ids, unique, sizes, vocab)
    with _TERMS_LOCK:
        if best is not None and shared == len(texts):
            return made  # a prefix of a kept book: that one serves more
        if best is not None and shared == len(best.texts) and best in _TERMS:
            _TERMS.remove(best)  # this book continues that one
        _TERMS.append(made)
        del _TERMS[:-_TERMS_KEPT]
    return made


def _common_prefix(a: list[str], b: list[str]) -> int:
    """How many leading items ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    i = 0
    while a[i] == b[i]:
        i += 1
    return i


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
# RECIDENT's LLM methods (fabula.recap._llm, imported when first asked for)
LLM_METHODS = ("llm-listwise", "llm-listwise-free", "llm-listwise-filter", "llm-pairwise", "pipeline")
RANKERS: Registry[type[Ranker]] = Registry(
    "recap method",
    lazy={
        **{name: "fabula.recap._llm" for name in LLM_METHODS},
        "pairwise-model": "fabula.train._pairs",  # a model trained by `fabula train recap-pairwise`
    },
    option="--method",
)
# Methods named with an argument, ``NAME:ARG`` (``pairwise-model:DIR``): the option that ARG sets.
ARGUMENT_OPTIONS = {"pairwise-model": "model"}


def register_ranker(name: str) -> Callable[[R], R]:
    """Class decorator: make a ranker available by ``name`` (`create_ranker`, ``--method``)."""
    return RANKERS.register_class(name)


def ranker_names() -> list[str]:
    return RANKERS.names()


def ranker_needs_llm(name: str) -> bool:
    """Whether the recap method ``name`` (``NAME:ARG`` too) takes a model; ``ConfigError`` for an unknown
    name. Commands refuse ``--llm`` for the others, which `create_ranker` drops silently."""
    base = name.partition(":")[0]
    if base not in ranker_names():
        create_ranker(name)  # the registry's one-line error
    return RANKERS.get(base).needs_llm


def create_ranker(name: str, **options: Any) -> Ranker:
    """A ranker by name (``NAME:ARG`` for the methods of `ARGUMENT_OPTIONS`); ``ConfigError`` for an
    unknown name or option, or a missing ``llm``."""
    base, colon, argument = name.partition(":")
    if colon and base in ARGUMENT_OPTIONS:
        name, options = base, {**options, ARGUMENT_OPTIONS[base]: argument}
    names = ranker_names()
    if name not in names:
        raise ConfigError(f"unknown recap method {name!r} (choose from {', '.join(names)})")
    cls = RANKERS.get(name)
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


@register_ranker("select-all")
class SelectAllRanker(Ranker):
    """RECIDENT's Select-All baseline (Tables 6, 7): every candidate is selected (recall 1 in the free
    setting); its @5 ranking is the nearest five, as every score ties."""

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        n = len(target.candidates)
        return Ranking([0.0] * n, list(range(n - 1, -1, -1)))


def _counts(context: RecapContext, target: RecapTarget) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Sparse term counts of the candidates (rows 0..n-1) and the target (row n): (rows, terms, counts,
    lengths in terms)."""
    n = len(target.candidates)
    rows, terms, size = context.terms([*target.candidates, target.target])
    lengths = np.bincount(rows, minlength=n + 1).astype(np.int64)
    keys, counts = np.unique(rows * size + terms, return_counts=True)
    return keys // size, keys % size, counts.astype(np.int64), lengths


@register_ranker("bm25")
class BM25Ranker(Ranker):
    """BM25 (Lucene's variant, k1 1.5, b 0.75) of each candidate for the target's text as the query."""

    def __init__(self, *, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b

    def similarities(self, context: RecapContext, target: RecapTarget) -> FloatArray:
        """BM25 of each candidate; only the query's terms are counted (no sort over all terms)."""
        n = len(target.candidates)
        rows, terms, size = context.terms([*target.candidates, target.target])
        is_query = rows == n
        query_terms, query_counts = np.unique(terms[is_query], return_counts=True)
        if n == 0 or query_terms.size == 0:
            return np.zeros(n)
        lengths = np.bincount(rows, minlength=n + 1)[:n].astype(np.float64)
        column = np.full(size, -1, dtype=np.int64)
        column[query_terms] = np.arange(query_terms.size)
        doc_rows, doc_columns = rows[~is_query], column[terms[~is_query]]
        hit = doc_columns >= 0
        width = query_terms.size
        tf = np.bincount(doc_rows[hit] * width + doc_columns[hit], minlength=n * width)
        tf = tf.reshape(n, width).astype(np.float64)
        df = (tf > 0).sum(axis=0)
        idf = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
        norm = self.k1 * (1.0 - self.b + self.b * lengths / max(float(lengths.mean()), 1e-9))
        # a term repeated in the query counts that many times (as bm25s sums the query's ids)
        return np.asarray((tf / (tf + norm[:, None])) @ (idf * query_counts), dtype=np.float64)

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
    """Cosine of embeddings (``model``: as for the ``dense`` retriever; default minilm, never downloaded)."""

    def __init__(self, *, model: str = DEFAULT_DENSE_MODEL) -> None:
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
        shared, wanted = context.shared_characters(target.target, list(target.candidates))
        if not wanted:
            return [True] * len(target.candidates)
        return (shared > 0).tolist()

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
        dense_model: str = DEFAULT_DENSE_MODEL,
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
        shared, wanted = context.shared_characters(target.target, list(target.candidates))
        if wanted:
            shared = shared / wanted
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


@register_ranker("reach-back")
class ReachBackRanker(Ranker):
    """No LLM, the default: the lead-in, plus the earlier passages that explain the scene — the last
    meeting of the characters present, and earlier mentions of what the scene turns on.

    Score = exp(-(d-1)/``decay``) (d = 1 for the nearest candidate: the scene's own lead-in)
    + ``character_weight`` x the share of the target's characters the candidate names
    + ``meeting_weight`` for each of the ``meetings`` most recent candidates before the target's chapter
      that name at least two of the target's characters (one, if the target names one): where these
      people were last together
    + ``salient_weight`` x the candidate's shared terms weighted by their rarity in the book read so
      far (`RecapContext.book_idf`; scaled to the target's best candidate), and ``salient_top_weight`` more for the best such
      candidate when it lies beyond the nearest ``near``: the earlier mention of what the scene turns on.
    Weights chosen on the 16 PP and SF tuning targets of data/recap (docs/benchmarks.md: tuning and frozen
    numbers; on the 64-target set it is within half a point of closest-5 on frozen, below it)."""

    def __init__(
        self,
        *,
        decay: float = 4.0,
        character_weight: float = 0.2,
        meeting_weight: float = 0.2,
        meetings: int = 2,
        salient_weight: float = 0.2,
        salient_top_weight: float = 0.2,
        near: int = 5,
    ) -> None:
        if decay <= 0:
            raise ConfigError("reach-back: decay must be positive")
        self.decay, self.near, self.meetings = decay, near, meetings
        self.weights = {
            "characters": character_weight,
            "meeting": meeting_weight,
            "salient": salient_weight,
            "salient_top": salient_top_weight,
        }

    def salience(self, context: RecapContext, target: RecapTarget) -> FloatArray:
        """Per candidate: the book-rarity (idf) summed over the distinct terms it shares with the target."""
        n = len(target.candidates)
        rows, terms, _size = context.terms([*target.candidates, target.target])
        if n == 0 or terms.size == 0:
            return np.zeros(n)
        wanted = np.unique(terms[rows == n])
        pairs = np.unique(rows[rows < n] * (int(terms.max()) + 1) + terms[rows < n])
        cand_rows, cand_terms = pairs // (int(terms.max()) + 1), pairs % (int(terms.max()) + 1)
        hit = np.isin(cand_terms, wanted)
        scores = np.zeros(n)
        np.add.at(scores, cand_rows[hit], context.book_idf[cand_terms[hit]])
        return scores

    def components(self, context: RecapContext, target: RecapTarget) -> dict[str, FloatArray]:
        """Each feature for every candidate (book order), before weighting."""
        n = len(target.candidates)
        distance = np.asarray([target.distance(i) for i in range(n)], dtype=np.float64)
        shared, wanted = context.shared_characters(target.target, list(target.candidates))
        meeting = np.zeros(n)
        if wanted:
            need = min(2, wanted)
            chapter = context.chapter_of(target.target)
            earlier = [
                i
                for i in range(n)
                if shared[i] >= need and context.chapter_of(target.candidates[i]) < chapter
            ]
            meeting[sorted(earlier, reverse=True)[: self.meetings]] = 1.0
        salient = self.salience(context, target)
        best = salient.max() if n else 0.0
        top = np.zeros(n)
        if best > 0:
            index = int(np.argmax(salient))
            top[index] = float(distance[index] > self.near)
        return {
            "closeness": np.exp(-(distance - 1.0) / self.decay),
            "characters": shared / wanted if wanted else np.zeros(n),
            "meeting": meeting,
            "salient": salient / best if best > 0 else salient,
            "salient_top": top,
        }

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        parts = self.components(context, target)
        scores = parts["closeness"].copy()
        for name, weight in self.weights.items():
            scores += weight * parts[name]
        return Ranking(scores.tolist())
