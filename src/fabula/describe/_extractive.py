"""Extractive character descriptions: k sentences of the book that mention the character (no LLM).

BookWorm (Papoudakis et al., 2024) reports ``lead`` (the first k sentences naming the character) as an
extractive baseline, with k = 4 for descriptions and 25 for analyses (on its data lead "performs poorly").
Methods here, all over the same candidates (sentences with a named mention of the character, pronoun
mentions when there is none):

- ``lead``: the first k candidates;
- ``random``: k candidates drawn with a seed;
- ``centroid``: the candidates closest (TF-IDF cosine) to the centroid of all of them — what is said
  about the character most often — skipping near-duplicates (Radev et al.'s centroid summariser);
- ``textrank``: PageRank over the candidates' TF-IDF similarity graph (Mihalcea and Tarau, 2004).

On fabula's reference set (data/describe) ``lead`` scores best of these (docs/benchmarks.md), so it is
the default.

The output is in book order. No library offers sentence salience over a span layer with a reading
position, and scikit-learn/networkx would be heavy dependencies for two small matrix products, so the
TF-IDF and PageRank steps are a few lines of numpy over `fabula.retrieval.Analyzer` terms.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fabula.book import Book
from fabula.errors import ConfigError

K_BY_KIND = {"description": 4, "analysis": 25}  # the paper's k
MAX_SENTENCE_CHARS = 600  # a longer "sentence" is a segmentation failure (a letter, a list): cut it
TEXTRANK_CANDIDATES = 400  # PageRank's similarity matrix is quadratic: an even sample of this many
DUPLICATE_COSINE = 0.6
FULL_SENTENCE_WORDS = 20  # a candidate this similar to a chosen one adds nothing


@dataclass(frozen=True, slots=True)
class Candidate:
    """A sentence that mentions the character: its sentence index, span and display text."""

    index: int
    start: int
    end: int
    text: str


def whole_sentence(book: Book, index: int) -> tuple[int, str]:
    """Start offset and text of sentence ``index``, joined with the sentences before it in its paragraph
    while a quotation mark is left open (sentence splitting cuts ``"Oh dear! I shall be late!" said the
    Badger.`` after ``dear!``)."""
    start, end = book.sentences[index].start, book.sentences[index].end
    paragraph = book.paragraphs.index_at(start)
    first = index
    while (
        first > 0
        and _quote_left_open(book.text[book.sentences[first].start : end])
        and book.paragraphs.index_at(book.sentences[first - 1].start) == paragraph
        and index - first < 3
    ):
        first -= 1
    begin = book.sentences[first].start
    return begin, book.span_text((begin, end), normalize=True)


def _quote_left_open(text: str) -> bool:
    return (text.count('"') + text.count("\u201c") + text.count("\u201d")) % 2 == 1


def sentences_at(book: Book, offsets: Sequence[int], limit: int | None = None) -> list[Candidate]:
    """Distinct, non-overlapping sentences containing the given offsets, in the offsets' order (at most
    ``limit``); offsets should be sorted."""
    covered: list[tuple[int, int]] = []  # spans already given (joined sentences may overlap)
    out: list[Candidate] = []
    for offset in offsets:
        index = book.sentences.index_at(offset)
        if index is None:
            index = book.sentences.index_before(offset)
            if index < 0:
                continue
        start, text = whole_sentence(book, index)
        end = book.sentences[index].end
        if any(start < e and s < end for s, e in covered[-8:]):
            continue
        covered.append((start, end))
        if len(text) > MAX_SENTENCE_CHARS:
            text = text[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"
        out.append(Candidate(index, start, end, text))
        if limit is not None and len(out) >= limit:
            break
    return out


def candidate_sentences(book: Book, character_id: str, *, coreference: bool = False) -> list[Candidate]:
    """Sentences naming the character, in book order (sentences with its pronouns when none names it).
    ``coreference``: every sentence with any mention of the character, resolved pronouns included — the
    paper's lead-k / random baselines, which take the sentences BookNLP's coreference finds the
    character in (fabula's mention layer stands in for BookNLP)."""
    if coreference:
        return sentences_at(book, sorted(m.start for m in book.mentions if m.character_id == character_id))
    named = sorted(m.start for m in book.mentions if m.character_id == character_id and m.kind != "pronoun")
    if not named:
        named = sorted(m.start for m in book.mentions if m.character_id == character_id)
    return sentences_at(book, named)


Selector = Callable[[list[Candidate], int, int, str], list[int]]
_SELECTORS: dict[str, Selector] = {}


def _selector(name: str) -> Callable[[Selector], Selector]:
    def add(function: Selector) -> Selector:
        _SELECTORS[name] = function
        return function

    return add


def extractive_methods() -> list[str]:
    return sorted(_SELECTORS)


def select_sentences(
    book: Book,
    character_id: str,
    *,
    k: int = K_BY_KIND["description"],
    method: str = "lead",
    seed: int = 0,
    candidates: list[Candidate] | None = None,
) -> list[Candidate]:
    """The ``k`` sentences ``method`` picks for the character, in book order. ``book`` may be truncated
    (`Book.truncated`): only its text is seen."""
    if method not in _SELECTORS:
        raise ConfigError(
            f"unknown extractive method {method!r} (choose from {', '.join(extractive_methods())})"
        )
    if k < 1:
        raise ConfigError(f"k must be at least 1, not {k}")
    pool = candidate_sentences(book, character_id) if candidates is None else candidates
    if len(pool) <= k:
        return list(pool)
    chosen = _SELECTORS[method](pool, k, seed, book.meta.language)
    return [pool[i] for i in sorted(chosen)]


@_selector("lead")
def _lead(pool: list[Candidate], k: int, seed: int, language: str) -> list[int]:
    return list(range(k))


@_selector("random")
def _random(pool: list[Candidate], k: int, seed: int, language: str) -> list[int]:
    return random.Random(seed).sample(range(len(pool)), k)


@_selector("centroid")
def _centroid(pool: list[Candidate], k: int, seed: int, language: str) -> list[int]:
    vectors = _tfidf([c.text for c in pool], language)
    return _greedy(vectors, (vectors @ vectors.mean(axis=0)) * _length_prior(pool), k)


@_selector("textrank")
def _textrank(pool: list[Candidate], k: int, seed: int, language: str) -> list[int]:
    sample = np.unique(np.linspace(0, len(pool) - 1, min(len(pool), TEXTRANK_CANDIDATES)).astype(int))
    vectors = _tfidf([pool[i].text for i in sample], language)
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, 0.0)
    totals = similarity.sum(axis=1, keepdims=True)
    transition = np.divide(similarity, totals, out=np.zeros_like(similarity), where=totals > 0)
    rank = np.full(len(sample), 1.0 / len(sample))
    for _ in range(50):
        updated = 0.15 / len(sample) + 0.85 * transition.T @ rank
        if np.abs(updated - rank).sum() < 1e-6:
            rank = updated
            break
        rank = updated
    return [int(sample[i]) for i in _greedy(vectors, rank, k)]


def _length_prior(pool: list[Candidate]) -> np.ndarray:
    """Up to 1 for sentences of ``FULL_SENTENCE_WORDS`` words or more: a short line ("Nora!") is
    close to any centroid but says nothing."""
    words = np.asarray([len(c.text.split()) for c in pool], dtype=np.float64)
    return np.minimum(1.0, words / FULL_SENTENCE_WORDS)


def _greedy(vectors: np.ndarray, scores: np.ndarray, k: int) -> list[int]:
    """Best-scoring rows, skipping rows too similar to one already chosen."""
    chosen: list[int] = []
    for i in np.argsort(-scores, kind="stable").tolist():
        if all(float(vectors[i] @ vectors[j]) < DUPLICATE_COSINE for j in chosen):
            chosen.append(i)
            if len(chosen) == k:
                break
    return chosen


def _tfidf(texts: list[str], language: str) -> np.ndarray:
    """L2-normalised TF-IDF rows (sublinear tf, idf over these texts: a term in all of them — the
    character's name — weighs nothing)."""
    from fabula.retrieval import Analyzer

    docs = Analyzer("zh" if language == "zh" else "en").analyze_many(texts)
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(set(doc))
    vocabulary = {term: i for i, term in enumerate(t for t, n in df.items() if n >= 2)}
    matrix = np.zeros((len(texts), max(1, len(vocabulary))), dtype=np.float32)
    n = len(texts)
    for row, doc in enumerate(docs):
        for term, count in Counter(doc).items():
            column = vocabulary.get(term)
            if column is not None:
                matrix[row, column] = (1.0 + math.log(count)) * math.log((1 + n) / (1 + df[term]))
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def oracle_sentences(
    pool: list[Candidate], reference: str, k: int, *, language: str = "en"
) -> list[Candidate]:
    """The extractive upper bound: greedily the candidates that most raise ROUGE-1 + ROUGE-2 F1 against
    ``reference`` (stopping when none raises it), at most ``k``, in book order. Uses ROUGE's own
    tokens (`fabula.metrics.rouge_tokens`) and counts, so each step costs one pass over the pool."""
    from fabula.metrics import rouge_tokens

    gold = rouge_tokens(reference, language=language)
    gold_uni, gold_bi = Counter(gold), Counter(itertools.pairwise(gold))
    tokens = [rouge_tokens(c.text, language=language) for c in pool]
    chosen: list[int] = []
    uni: Counter[str] = Counter()
    bi: Counter[tuple[str, str]] = Counter()
    best_score = 0.0
    while len(chosen) < k:
        best: tuple[float, int] | None = None
        for i, words in enumerate(tokens):
            if i in chosen:
                continue
            cand_uni = uni + Counter(words)
            cand_bi = bi + Counter(itertools.pairwise(words))
            score = _f1(cand_uni, gold_uni) + _f1(cand_bi, gold_bi)
            if best is None or score > best[0]:
                best = (score, i)
        if best is None or best[0] <= best_score:
            break
        best_score, index = best
        chosen.append(index)
        uni += Counter(tokens[index])
        bi += Counter(zip(tokens[index], tokens[index][1:], strict=False))
    return [pool[i] for i in sorted(chosen)]


def _f1(predicted: Counter[Any], gold: Counter[Any]) -> float:
    overlap = sum((predicted & gold).values())
    if not overlap:
        return 0.0
    precision, recall = overlap / sum(predicted.values()), overlap / sum(gold.values())
    return 2 * precision * recall / (precision + recall)
