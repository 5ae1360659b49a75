"""The LLM recognition methods.

``llm``: for each option the passages about it that best match the question (BM25 among the
paragraphs that mention the character, pronouns included) go into one prompt; the model answers a
number, read strictly (`read_choice`: JSON ``{"answer": n}``, else a lone number, else exactly one
option's text) — an unreadable answer is no prediction and counts wrong. ``llm-loglik``: each option
is scored by its log-likelihood after the same evidence, minus its log-likelihood without it (so a
name or description that is likely anyway does not win), on backends that return prompt
log-probabilities (llama.cpp, vLLM-style ``/v1/completions`` with ``echo``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from fabula.errors import BackendError
from fabula.llm import GenerateOptions, ParseError, parse_json_answer
from fabula.prompts import load_prompt
from fabula.recognition._index import EVIDENCE_WEIGHTS, BookIndex
from fabula.recognition._methods import Prediction, Recognizer, _need_index, best_option, register_method
from fabula.recognition._questions import Question

if TYPE_CHECKING:
    from fabula.llm import LLM

_NUMBER = re.compile(r"(?<![\d.])(\d{1,2})(?!\.?\d)")


def supporting_passages(index: BookIndex, name: str, text: str, k: int) -> list[str]:
    """The ``k`` paragraphs mentioning ``name``'s character (pronouns included) that best match
    ``text`` (BM25), in book order; the first mentions when none matches."""
    weights = index.mention_weights(name, EVIDENCE_WEIGHTS)
    about = np.flatnonzero(weights > 0)
    if about.size == 0:
        return []
    scores = np.asarray(index.retriever("bm25").scores(text))[about]
    scores = np.where(np.isfinite(scores), scores, -1.0)
    order = about[np.argsort(-scores, kind="stable")[:k]]
    return [index.units[int(i)].text for i in sorted(order.tolist())]


def _clip(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def read_choice(answer: str, options: tuple[str, ...]) -> int | None:
    """The option an answer picks (0-based), or None: ``{"answer": n}`` (1-based), else the only
    number in range, else the only option whose text the answer contains."""
    try:
        value = parse_json_answer(answer)
    except ParseError:
        value = None
    if isinstance(value, dict):
        value = value.get("answer")
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= len(options):
        return value - 1
    if isinstance(value, str):
        answer = value
    numbers = {int(n) for n in _NUMBER.findall(answer) if 1 <= int(n) <= len(options)}
    if len(numbers) == 1:
        return numbers.pop() - 1
    lowered = answer.casefold()
    named = [i for i, o in enumerate(options) if o.casefold() in lowered]
    return named[0] if len(named) == 1 else None


class _EvidencePrompts(Recognizer):
    """Shared evidence gathering for the two LLM methods."""

    needs_llm = True

    def __init__(self, llm: LLM | None = None, *, passages: int = 2, words: int = 80) -> None:
        super().__init__(llm)
        self.passages, self.words = passages, words

    def evidence(self, question: Question, index: BookIndex) -> str:
        if question.direction == "desc2name":
            blocks = []
            for number, option in enumerate(question.options, start=1):
                found = supporting_passages(index, option, question.query, self.passages)
                quoted = " / ".join(f'"{_clip(p, self.words)}"' for p in found) or "(no passage found)"
                blocks.append(f"{number}. {option}: {quoted}")
            return "\n".join(blocks)
        found = supporting_passages(index, question.query, " ".join(question.options), self.passages * 3)
        return "\n".join(f'- "{_clip(p, self.words)}"' for p in found) or "(no passage found)"


@register_method("llm")
class LLMRecognizer(_EvidencePrompts):
    """Ask the model which option fits, with passages about each option (see the module docstring)."""

    def predict(self, question: Question, index: BookIndex | None) -> Prediction:
        assert self.llm is not None
        index = _need_index(index, self.name)
        evidence = self.evidence(question, index)
        n = len(question.options)
        if question.direction == "desc2name":
            template = load_prompt("recognition/desc2name")
            messages = template.messages(evidence=evidence, description=question.query)
        else:
            template = load_prompt("recognition/name2desc")
            listed = "\n".join(f"{i}. {o}" for i, o in enumerate(question.options, start=1))
            messages = template.messages(evidence=evidence, name=question.query, options=listed)
        schema = {
            "type": "object",
            "properties": {"answer": {"type": "integer", "enum": list(range(1, n + 1))}},
            "required": ["answer"],
        }
        generation = self.llm.generate(messages, GenerateOptions(max_tokens=16, json_schema=schema))
        log: dict[str, Any] = {"prompt": template.id, "raw": generation.text, "cached": generation.cached}
        if generation.error is not None:
            log["error"] = generation.error
            return Prediction(None, None, log)
        return Prediction(read_choice(generation.text, question.options), None, log)

    def scores(self, question: Question, index: BookIndex | None) -> list[float]:
        choice = self.predict(question, index).choice
        return [1.0 if i == choice else 0.0 for i in range(len(question.options))]


@register_method("llm-loglik")
class LogLikelihoodRecognizer(_EvidencePrompts):
    """Score each option by log P(option | evidence, question) - log P(option | question alone)."""

    def scores(self, question: Question, index: BookIndex | None) -> list[float]:
        index = _need_index(index, self.name)
        evidence = self.evidence(question, index)
        if question.direction == "desc2name":
            with_evidence = f"{evidence}\n\nDescription: {question.query}\nThe character described is"
            without = f"Description: {question.query}\nThe character described is"
            endings = [f" {o}." for o in question.options]
        else:
            with_evidence = f"{evidence}\n\nThe character {question.query} is described as follows:"
            without = f"The character {question.query} is described as follows:"
            endings = [f" {o}" for o in question.options]
        # every text with the evidence first, then every text without: consecutive texts share their
        # long prefix, which a backend that keeps evaluated tokens (llama.cpp) then evaluates once
        informed = [self._continuation(with_evidence, ending) for ending in endings]
        prior = [self._continuation(without, ending) for ending in endings]
        return [a - b for a, b in zip(informed, prior, strict=True)]

    def predict(self, question: Question, index: BookIndex | None) -> Prediction:
        scores = self.scores(question, index)
        return Prediction(best_option(scores), scores, {"scores": [round(s, 4) for s in scores]})

    def _continuation(self, prefix: str, ending: str) -> float:
        """Summed log-probability of ``ending``'s tokens after ``prefix``."""
        return self._total(prefix + ending) - self._total(prefix)

    def _total(self, text: str) -> float:
        assert self.llm is not None
        return total_logprob(self.llm, text, self.name)


@register_method("query-only")
class QueryOnlyLMRecognizer(Recognizer):
    """GANDALF's "Query Only" baseline (section 5.3, the paper's GPT-2 rows): no book; each alternative
    scored by log P(description | name) under a causal language model — the summed log-probability of the
    description's tokens after the character's name — and the likeliest wins. With any model that returns
    prompt log-probabilities (``llamacpp:model.gguf``, or an OpenAI-compatible ``/v1/completions`` with
    ``echo``); what a question leaks to a language model that never read the book."""

    needs_book = False
    needs_llm = True

    def scores(self, question: Question, index: BookIndex | None) -> list[float]:
        from fabula.recognition._methods import name_and_description

        return [
            self._total(f"{name} {description}") - self._total(name)
            for name, description in name_and_description(question)
        ]

    def predict(self, question: Question, index: BookIndex | None) -> Prediction:
        scores = self.scores(question, index)
        return Prediction(best_option(scores), scores, {"scores": [round(s, 4) for s in scores]})

    def _total(self, text: str) -> float:
        assert self.llm is not None
        return total_logprob(self.llm, text, self.name)


def total_logprob(llm: LLM, text: str, method: str) -> float:
    """Summed log-probability of ``text``'s tokens (after the first); `BackendError` on a backend that
    gives none."""
    values = llm.prompt_logprobs(text)
    if values is None:
        raise BackendError(
            f"{llm.spec} returns no prompt log-probabilities; {method} needs a backend that does "
            "(llamacpp:, or an OpenAI-compatible server answering /v1/completions with echo)"
        )
    return float(sum(values))
