"""Recognition methods behind one registry: given a `Question` and the book's `BookIndex`, a score for
every option (higher is better); the prediction is the best-scoring option.

The paper's baselines (GANDALF: Carlsson, Sahlgren, Olsson and Cuba Gyllensten, MRQA 2021, section 5), under
its names; every one picks the alternative that "maximizes the probability of the description being stated
after the character name":

- ``bow-tfidf`` ("BoW + TF-IDF", 5.1): one query per alternative, the character's name followed by the
  description; TF-IDF cosine of each query with every paragraph of the book; the alternative whose query is
  most similar to *any* paragraph wins.
- ``query-only`` ("Query Only", 5.3, the paper's GPT-2 rows): no book; each alternative scored by the
  log-likelihood of the description after the name under a causal language model (``--llm`` with prompt
  log-probabilities: llama.cpp, or an OpenAI-compatible ``/v1/completions`` with ``echo``), in
  `fabula.recognition._llm_methods`.

fabula's own methods:

- ``best-passage-tfidf``, ``bm25``, ``dense``: the option whose single best
  passage — among the passages that *name* the character — is most similar to the description (Name2Desc:
  the description most similar to one of the named character's passages). ``best-passage-tfidf`` was called
  ``tfidf`` before; that name is refused now, since it is not the paper's TF-IDF.
- ``evidence``: aggregates over *all* passages about each character, pronoun and nominal mentions
  included (see `EvidenceRecognizer`), plus the description's gender against the character's.
- ``query-cues``: reads no book (gender words and shared words only) — what the question alone leaks to rules
  (was ``query-only`` before that name went to the paper's baseline).
- ``llm`` and ``llm-loglik`` live in `fabula.recognition._llm_methods`.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np

from fabula._registry import Registry
from fabula.characters import HONORIFICS
from fabula.errors import ConfigError
from fabula.recognition._gender import agreement, description_gender, name_gender
from fabula.recognition._index import EVIDENCE_WEIGHTS, NAME_WEIGHTS, BookIndex, FloatArray, TermPostings
from fabula.recognition._questions import Question

if TYPE_CHECKING:
    from fabula.llm import LLM

_MISSING = -1e9  # score of an option with no passage at all


@dataclass(slots=True)
class Prediction:
    """A method's answer: the chosen option (None when an LLM answer could not be read), the scores
    behind it, and what to log (prompt, raw answer)."""

    choice: int | None
    scores: list[float] | None = None
    log: dict[str, Any] = field(default_factory=dict)


class Recognizer(ABC):
    """One recognition method. ``needs_book``: reads the book's `BookIndex`; ``needs_llm``: needs a model."""

    name: ClassVar[str] = ""
    needs_book: ClassVar[bool] = True
    needs_llm: ClassVar[bool] = False

    def __init__(self, llm: LLM | None = None) -> None:
        if self.needs_llm and llm is None:
            raise ConfigError(f"method {self.name!r} needs a model (--llm SPEC)")
        self.llm = llm

    def predict(self, question: Question, index: BookIndex | None) -> Prediction:
        scores = self.scores(question, index)
        return Prediction(best_option(scores), scores)

    @abstractmethod
    def scores(self, question: Question, index: BookIndex | None) -> list[float]:
        """One score per option, higher is better."""


def best_option(scores: list[float]) -> int:
    """The best-scoring option (the first of equals)."""
    return int(np.argmax(np.asarray(scores, dtype=np.float64)))


R = TypeVar("R", bound=type[Recognizer])
METHODS: Registry[type[Recognizer]] = Registry(
    "recognition method",
    lazy={name: "fabula.recognition._llm_methods" for name in ("llm", "llm-loglik", "query-only")},
    option="--method",
)
#: names given up, with what to use instead (a run asking for one stops with this message)
RENAMED = {
    "tfidf": "'tfidf' was fabula's best-passage method, not GANDALF's TF-IDF baseline: use bow-tfidf "
    "(the paper's BoW + TF-IDF) or best-passage-tfidf (the old method)",
}


def register_method(name: str) -> Callable[[R], R]:
    """Class decorator: make a recognition method available by ``name`` (the CLI's ``--method``)."""
    return METHODS.register_class(name)


def method_names() -> list[str]:
    return METHODS.names()


def llm_method_names() -> list[str]:
    """The methods that take a model (``needs_llm``)."""
    return [name for name in method_names() if METHODS.get(name).needs_llm]


def get_method(name: str, llm: LLM | None = None, **options: Any) -> Recognizer:
    """A new recognizer of the named kind (``ConfigError`` for an unknown name or option)."""
    names = method_names()
    if name in RENAMED:
        raise ConfigError(RENAMED[name], "--method")
    if name not in names:
        raise ConfigError(f"unknown recognition method {name!r} (choose from {', '.join(names)})")
    try:
        return METHODS.get(name)(llm=llm, **options)
    except TypeError as exc:
        raise ConfigError(f"method {name!r}: {exc}") from exc


def _need_index(index: BookIndex | None, method: str) -> BookIndex:
    if index is None:
        raise ConfigError(f"method {method!r} needs the book")
    return index


# --- the paper's TF-IDF baseline -----------------------------------------------------------------
def name_and_description(question: Question) -> list[tuple[str, str]]:
    """(name, description) of every alternative: the paper scores "the description being stated after
    the character name"."""
    if question.direction == "desc2name":
        return [(option, question.query) for option in question.options]
    return [(question.query, option) for option in question.options]


@register_method("bow-tfidf")
class BowTfidfRecognizer(Recognizer):
    """GANDALF's "BoW + TF-IDF" baseline (section 5.1): a TF-IDF query per alternative (name, then
    description), cosine with every paragraph of the book; the alternative most similar to any paragraph.
    TF-IDF weights are fabula's `tfidf` retriever's (scikit-learn's formula, stemmed, stop words removed;
    the paper does not say how it tokenised)."""

    def scores(self, question: Question, index: BookIndex | None) -> list[float]:
        index = _need_index(index, self.name)
        retriever = index.retriever("tfidf")
        out = []
        for name, description in name_and_description(question):
            similarity = np.asarray(retriever.scores(f"{name} {description}"))
            finite = similarity[np.isfinite(similarity)]
            out.append(float(finite.max()) if finite.size else _MISSING)
        return out


# --- fabula's best-passage methods: the single best passage naming the character -----------------
class BestPassageRecognizer(Recognizer):
    """The option whose best passage naming the character is most similar to the description."""

    retriever: ClassVar[str] = "tfidf"

    def scores(self, question: Question, index: BookIndex | None) -> list[float]:
        index = _need_index(index, self.name)
        retriever = index.retriever(self.retriever)
        if question.direction == "desc2name":
            similarity = retriever.scores(question.query)
            return [_best(similarity, index.mention_weights(o, NAME_WEIGHTS)) for o in question.options]
        weights = index.mention_weights(question.query, NAME_WEIGHTS)
        return [_best(retriever.scores(o), weights) for o in question.options]


def _best(similarity: FloatArray, weights: FloatArray) -> float:
    values = np.asarray(similarity)[weights > 0]
    values = values[np.isfinite(values)]
    return float(values.max()) if values.size else _MISSING


@register_method("best-passage-tfidf")
class TfidfRecognizer(BestPassageRecognizer):
    """fabula's: TF-IDF cosine of the description with the best passage naming the option (not the
    paper's baseline, which is ``bow-tfidf``)."""

    retriever = "tfidf"


@register_method("bm25")
class BM25Recognizer(BestPassageRecognizer):
    """The baseline with BM25 instead of TF-IDF."""

    retriever = "bm25"


@register_method("dense")
class DenseRecognizer(BestPassageRecognizer):
    """The baseline with embeddings (the ``dense`` retriever: all-MiniLM-L6-v2 unless ``dense_model`` names
    another)."""

    retriever = "dense"


# --- evidence: everything the book says about each character ------------------------------------
#: the evidence method's features, in the order of `EvidenceRecognizer.features`' columns
EVIDENCE_FEATURES = ("fit", "window", "local", "gender", "prior")


@register_method("evidence")
class EvidenceRecognizer(Recognizer):
    """Aggregates over all passages about each character, not one best paragraph.

    Five features per option, added with weights (``fit`` weighs 1; the others' defaults were learned on
    the tuning novels, see below):

    - ``fit``: a character's *context* is every paragraph that mentions them — names, titles, nominals
      and pronouns the characters layer resolved — weighted by the mentions (capped at ``cap`` per
      paragraph). The description's fit is the log-likelihood ratio of its words under the context
      against the whole book (a query-likelihood model with Dirichlet smoothing ``mu``: common words and
      words every context shares count for little).
    - ``window``: the same over *mention windows* — the sentences that mention the character, and the
      sentences beside them at half weight (smoothing ``window_mu``) — so a fact stated beside one of
      several characters of a paragraph goes to the one it is stated about.
    - ``local``: the best single mention window: the highest BM25-style match of the description's words
      (idf from the book's sentences) in a sentence times the character's mention weight there; one
      sentence that states a rare fact can decide.
    - ``gender``: the description's gender words against the character's gender (honorific, characters
      layer, given name): +1, 0, -1.
    - ``prior`` (Desc2Name only): how much the book is about the character (log of the summed mention
      weight), so the most-talked-about characters, whose contexts are nearly the whole book, are not
      pushed down by the likelihood ratio.

    ``fit``, ``window``, ``local`` and ``prior`` are z-normalised over the options and the book's
    ``reference`` most-mentioned characters, so a description that fits everyone (Name2Desc) does not win.
    The default weights are the ratios learned by a conditional logit on the nine tuning novels' 206
    questions (L2 penalty 0.1; `benchmarks/learn_evidence.py`, which also scores each novel with weights
    learned on the other eight); ``window_weight=local_weight=prior_weight=0`` and ``gender_weight=1`` is
    the method before issue 26's third round.
    """

    def __init__(
        self,
        llm: LLM | None = None,
        *,
        mu: float = 8000.0,
        cap: float = 2.0,
        reference: int = 30,
        gender_weight: float = 1.073,
        prior_weight: float = 0.294,
        window_weight: float = 1.126,
        local_weight: float = 0.673,
        window_mu: float = 2000.0,
    ) -> None:
        super().__init__(llm)
        self.mu, self.cap, self.reference, self.gender_weight = mu, cap, reference, gender_weight
        self.prior_weight, self.window_weight, self.local_weight = prior_weight, window_weight, local_weight
        self.window_mu = window_mu

    @property
    def weights(self) -> FloatArray:
        """The features' weights, in `EVIDENCE_FEATURES` order."""
        return np.asarray(
            [1.0, self.window_weight, self.local_weight, self.gender_weight, self.prior_weight],
            dtype=np.float64,
        )

    def scores(self, question: Question, index: BookIndex | None) -> list[float]:
        return [float(s) for s in self.features(question, _need_index(index, self.name)) @ self.weights]

    def features(self, question: Question, index: BookIndex) -> FloatArray:
        """One row per option, one column per feature (`EVIDENCE_FEATURES`)."""
        names = list(question.names)
        seen = {id(index.character(n)) for n in names if index.character(n) is not None}
        for character in index.main_characters[: self.reference]:
            if id(character) not in seen:
                seen.add(id(character))
                names.append(character.name)
        weights = np.stack(
            [np.minimum(index.mention_weights(n, EVIDENCE_WEIGHTS), self.cap) for n in names], axis=1
        )
        windows = None
        if self.window_weight or self.local_weight:
            windows = _beside(
                np.stack(
                    [
                        np.minimum(index.mention_weights(n, EVIDENCE_WEIGHTS, sentences=True), self.cap)
                        for n in names
                    ],
                    axis=1,
                )
            )

        def columns(text: str) -> FloatArray:  # (4, characters): fit, window, local, and a zero row
            out = np.zeros((4, weights.shape[1]))
            out[0] = self.fit(index, text, weights)
            if windows is not None:
                out[1] = _z(_likelihood_ratio(index.sentence_postings, text, windows, self.window_mu))
                out[2] = _z(_best_window(index.sentence_postings, text, windows))
            return out

        if question.direction == "desc2name":
            found = columns(question.query)
            wanted = description_gender(question.query)
            prior = _z(np.log1p(weights.sum(axis=0)))
            return np.asarray(
                [
                    [
                        *found[:3, i],
                        agreement(wanted, name_gender(o, index.character(o))),
                        prior[i],
                    ]
                    for i, o in enumerate(question.options)
                ]
            )
        gender = name_gender(question.query, index.character(question.query))
        return np.asarray(
            [[*columns(o)[:3, 0], agreement(description_gender(o), gender), 0.0] for o in question.options]
        )

    def fit(self, index: BookIndex, text: str, weights: FloatArray) -> FloatArray:
        """z-normalised log-likelihood ratio of ``text`` under each column's context."""
        return _z(_likelihood_ratio(index.postings, text, weights, self.mu))


def _likelihood_ratio(postings: TermPostings, text: str, weights: FloatArray, mu: float) -> FloatArray:
    """Log-likelihood ratio of ``text``'s words under each column's weighted units against the whole
    book, Dirichlet-smoothed with ``mu``."""
    terms, query_counts = postings.query_terms(text)
    if terms.size == 0:
        return np.zeros(weights.shape[1])
    counts = postings.weighted_counts(terms, weights)  # (terms, characters)
    lengths = postings.unit_lengths @ weights  # (characters,)
    background = postings.term_totals[terms] / postings.total
    ratio = np.log((counts + mu * background[:, None]) / ((lengths + mu)[None, :] * background[:, None]))
    return np.asarray(query_counts @ ratio, dtype=np.float64)


def _best_window(postings: TermPostings, text: str, weights: FloatArray) -> FloatArray:
    """Per column: the best unit's match of ``text`` times the column's weight there."""
    terms, _ = postings.query_terms(text)
    if terms.size == 0:
        return np.zeros(weights.shape[1])
    return np.asarray((postings.unit_scores(terms)[:, None] * weights).max(axis=0), dtype=np.float64)


def _beside(weights: FloatArray, share: float = 0.5) -> FloatArray:
    """Weights spread to the units next to each unit at ``share`` (the larger value kept)."""
    out = weights.copy()
    out[1:] = np.maximum(out[1:], share * weights[:-1])
    out[:-1] = np.maximum(out[:-1], share * weights[1:])
    return out


def _z(raw: FloatArray) -> FloatArray:
    spread = raw.std()
    return (raw - raw.mean()) / spread if spread > 0 else np.zeros_like(raw)


# --- the question alone -------------------------------------------------------------------------
_WORDS = re.compile(r"[A-Za-z]{3,}")


@register_method("query-cues")
class QueryCuesRecognizer(Recognizer):
    """No book: gender words of the description against the name's gender, plus words the name and
    the description share — the cues a question leaks by itself."""

    needs_book = False

    def scores(self, question: Question, index: BookIndex | None) -> list[float]:
        if question.direction == "desc2name":
            wanted = description_gender(question.query)
            return [agreement(wanted, name_gender(o)) + _shared(o, question.query) for o in question.options]
        gender = name_gender(question.query)
        return [
            agreement(description_gender(o), gender) + _shared(question.query, o) for o in question.options
        ]


def _shared(name: str, text: str) -> float:
    """Words of the name that the text contains (a leaked surname, say), 0.5 each."""
    words = {w.lower() for w in _WORDS.findall(text)}
    return 0.5 * sum(1 for w in _WORDS.findall(name) if w.lower() in words and w.lower() not in HONORIFICS)
