"""LLM recap rankers (RECIDENT): listwise, pairwise, and the paper's pipeline (a cheap ranker keeps the
top 15 candidates, then one pairwise question each).

Answers are untrusted: they are parsed strictly (`fabula.llm.ask_json_many` with a pydantic schema, one
retry with a reminder); an answer that still cannot be read counts as "not related" and is logged.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, Field

from fabula.llm import LLM, GenerateOptions, ask_json_many
from fabula.prompts import load_prompt
from fabula.recap._construct import RecapTarget
from fabula.recap._rankers import Ranker, Ranking, RecapContext, create_ranker, register_ranker


class PairwiseAnswer(BaseModel):
    related: bool


class ListwisePick(BaseModel):
    id: int
    reason: str = ""


class ListwiseAnswer(BaseModel):
    selected: list[ListwisePick] = Field(default_factory=list)


PAIRWISE_SCHEMA: dict[str, Any] = PairwiseAnswer.model_json_schema()
LISTWISE_SCHEMA: dict[str, Any] = ListwiseAnswer.model_json_schema()


def ask_pairwise(
    llm: LLM, context: RecapContext, target: RecapTarget, indices: list[int], max_tokens: int = 16
) -> tuple[list[int], dict[str, Any]]:
    """One yes/no question per candidate in ``indices``; the related ones and a log."""
    prompt = load_prompt("recap/pairwise")
    target_text = context.text(target.target)
    prompts = [
        prompt.messages(candidate=context.text(target.candidates[i]), target=target_text) for i in indices
    ]
    options = GenerateOptions(max_tokens=max_tokens, json_schema=PAIRWISE_SCHEMA)
    answers = ask_json_many(llm, prompts, PairwiseAnswer, options)
    related = [i for i, a in zip(indices, answers, strict=True) if a.ok and a.value.related]
    log = {
        "prompt": prompt.id,
        "asked": indices,
        "answers": [a.generations[-1].text if a.generations else "" for a in answers],
        "errors": [a.error for a in answers if a.error],
    }
    return related, log


def _distance_order(scores_first: list[int], n: int) -> list[float]:
    """Scores putting ``scores_first`` (nearest first) above all others, the rest by distance."""
    chosen = set(scores_first)
    return [float(n + i) if i in chosen else float(i - n) for i in range(n)]


@register_ranker("llm-pairwise")
class PairwiseRanker(Ranker):
    """One yes/no question per candidate; the yes ones first, nearest first, then the rest by distance.
    Free selection: the yes ones."""

    needs_llm = True

    def __init__(self, *, llm: LLM) -> None:
        self.llm = llm

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        n = len(target.candidates)
        related, log = ask_pairwise(self.llm, context, target, list(range(n)))
        return Ranking(_distance_order(related, n), sorted(related, reverse=True), log)


@register_ranker("pipeline")
class PipelineRanker(Ranker):
    """The paper's pipeline: ``first`` (default the character filter over BM25) keeps the top ``keep``
    (15), only those go to the pairwise LLM; the yes ones first (nearest first), then the rest of the
    kept ones in ``first``'s order. Free selection: the yes ones."""

    needs_llm = True

    def __init__(self, *, llm: LLM, first: str = "character-filter", keep: int = 15) -> None:
        self.llm = llm
        self.first = create_ranker(first)
        self.keep = keep

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        n = len(target.candidates)
        cheap = self.first.rank(context, target)
        kept = cheap.top(self.keep)
        related, log = ask_pairwise(self.llm, context, target, kept)
        order = sorted(related, reverse=True) + [i for i in kept if i not in related]
        scores = [-math.inf] * n
        for position, index in enumerate(order):
            scores[index] = float(len(order) - position)
        log["kept"] = kept
        return Ranking(scores, sorted(related, reverse=True), log)


@register_ranker("llm-listwise")
class ListwiseRanker(Ranker):
    """All candidates numbered in one prompt (each cut to fit ``window_tokens``), the LLM picks up to
    ``k`` with reasons; picks first in the model's order, then the rest by distance. Free selection: the
    picks."""

    needs_llm = True

    def __init__(self, *, llm: LLM, k: int = 5, window_tokens: int = 4096, answer_tokens: int = 400) -> None:
        self.llm, self.k = llm, k
        self.window_tokens, self.answer_tokens = window_tokens, answer_tokens

    def _fit(self, text: str, budget: int) -> str:
        if self.llm.count_tokens(text) <= budget:
            return text
        words = text.split()
        while words and self.llm.count_tokens(" ".join(words) + " ...") > budget:
            words = words[: max(0, int(len(words) * 0.8))]
        return " ".join(words) + " ..."

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        n = len(target.candidates)
        prompt = load_prompt("recap/listwise")
        target_text = context.text(target.target)
        fixed = self.llm.count_tokens(prompt.render(count=n, candidates="", target=target_text, k=self.k))
        per_candidate = max(16, (self.window_tokens - self.answer_tokens - fixed) // max(1, n) - 4)
        numbered = "\n".join(
            f"[{i + 1}] {self._fit(context.text(c), per_candidate)}" for i, c in enumerate(target.candidates)
        )
        messages = prompt.messages(count=n, candidates=numbered, target=target_text, k=self.k)
        options = GenerateOptions(max_tokens=self.answer_tokens, json_schema=LISTWISE_SCHEMA)
        answer = ask_json_many(self.llm, [messages], ListwiseAnswer, options)[0]
        picks: list[int] = []
        reasons: dict[str, str] = {}
        if answer.ok:
            for pick in answer.value.selected:
                index = pick.id - 1
                if 0 <= index < n and index not in picks and len(picks) < self.k:
                    picks.append(index)
                    reasons[str(index)] = pick.reason
        scores = [float(i - n) for i in range(n)]
        for position, index in enumerate(picks):
            scores[index] = float(n + self.k - position)
        log = {
            "prompt": prompt.id,
            "answer": answer.generations[-1].text if answer.generations else "",
            "error": answer.error,
            "reasons": reasons,
            "candidate_tokens": per_candidate,
        }
        return Ranking(scores, picks, log)
