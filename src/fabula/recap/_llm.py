"""RECIDENT's LLM methods (Li et al., 2024, §5.1, §6 and Appendix A), with the paper's prompts:

- ``llm-listwise``: every candidate, full text, numbered in one prompt (Figure 6, "pick up to 5"); the
  model's window is 16k tokens and, only for prompts over 15k tokens, each candidate is cut to 220
  tokens. The ranking is the picks in the model's order; nothing else is ranked (the paper's
  Listwise @5 scores are that low for this reason).
- ``llm-listwise-free``: the same with Figure 7 ("pick up all the snippets"): the free selection.
- ``llm-listwise-filter``: Figure 6 over the candidates that survive the character filter (§5).
- ``llm-pairwise``: Figure 8 for each candidate (explanation, then Yes/No); the Yes ones ranked by
  distance, nearest first, the nearest 5 being the @5 answer.
- ``pipeline``: the paper's "SBERT (Char-Filter) + ChatGPT Pw" (Table 3): embedding cosine over the
  character-filtered candidates keeps the top 15, only those go to the pairwise prompt.

The paper gives no temperature or answer length for these calls: fabula sends temperature 0 and the
answer limits below (fabula's choices, recorded in every request). Answers are untrusted and parsed
strictly: a listwise pick is a line starting "(number)", a pairwise verdict is a final Yes or No; an
answer that cannot be read counts as no pick / "No" and is logged.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, ClassVar

from fabula.llm import LLM, GenerateOptions
from fabula.prompts import PromptTemplate, load_prompt
from fabula.recap._construct import RecapTarget
from fabula.recap._rankers import (
    CharacterFilterRanker,
    Ranker,
    Ranking,
    RecapContext,
    register_ranker,
)
from fabula.retrieval import DEFAULT_DENSE_MODEL

# §5.1: "the model's max length capacity is 16k. For samples exceeding 15k tokens, we truncate each
# candidate snippet to the length of 220."
LISTWISE_WINDOW_TOKENS = 16_384
LISTWISE_TRUNCATE_ABOVE = 15_000
LISTWISE_CANDIDATE_TOKENS = 220
# Not in the paper (fabula's choices): deterministic answers of bounded length.
TEMPERATURE = 0.0
LISTWISE_ANSWER_TOKENS = 1024
PAIRWISE_ANSWER_TOKENS = 512
# §6.1: "ChatGPT Pairwise only on the top-15 snippets filtered by" the first-stage model.
PIPELINE_KEEP = 15

_PICK = re.compile(r"^\s*\((\d+)\)")
_VERDICT = re.compile(r"\b(yes|no)\b[\W_]*$", re.IGNORECASE)


def token_prefix(llm: LLM, text: str, limit: int) -> str:
    """The longest whole-word prefix of ``text`` of at most ``limit`` tokens by ``llm.count_tokens``
    (the one place recap truncates by tokens; switch it when the backends offer a tokenizer cut)."""
    if llm.count_tokens(text) <= limit:
        return text
    words = text.split()
    lo, hi = 0, len(words)
    while lo < hi:  # the largest word count whose prefix fits
        mid = (lo + hi + 1) // 2
        if llm.count_tokens(" ".join(words[:mid])) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return " ".join(words[:lo])


def book_name(context: RecapContext) -> str:
    """BOOK_NAME of the listwise prompts: the book's title, else its file name."""
    meta = context.book.meta
    if meta.title:
        return meta.title
    if meta.source:
        path = Path(meta.source)
        return path.parent.name if path.name == "novel_text.txt" else path.stem
    return "the book"


def parse_listwise(text: str, n: int, limit: int | None) -> list[int]:
    """Candidate indices (0-based) picked in ``text``: lines starting "(number)", in the model's order,
    numbers outside 1..n and repeats dropped, at most ``limit`` kept."""
    picks: list[int] = []
    for line in text.splitlines():
        match = _PICK.match(line.replace("*", ""))
        if not match:
            continue
        index = int(match.group(1)) - 1
        if 0 <= index < n and index not in picks:
            picks.append(index)
        if limit is not None and len(picks) == limit:
            break
    return picks


def parse_pairwise(text: str) -> bool | None:
    """The Yes/No at the end of a Figure 8 answer; None when the answer does not end with one."""
    match = _VERDICT.search(text.strip())
    return None if match is None else match.group(1).lower() == "yes"


def _options(max_tokens: int) -> GenerateOptions:
    return GenerateOptions(max_tokens=max_tokens, temperature=TEMPERATURE)


def ask_pairwise(
    llm: LLM, context: RecapContext, target: RecapTarget, indices: list[int]
) -> tuple[list[int], dict[str, Any]]:
    """One Figure 8 question per candidate in ``indices``; the ones answered Yes, and a log."""
    prompt = load_prompt("recap/pairwise")
    target_text = context.text(target.target)
    prompts = [
        prompt.messages(candidate=context.text(target.candidates[i]), target=target_text) for i in indices
    ]
    generations = llm.generate_many(prompts, _options(PAIRWISE_ANSWER_TOKENS))
    verdicts = [parse_pairwise(g.text) if g.ok else None for g in generations]
    related = [i for i, v in zip(indices, verdicts, strict=True) if v]
    log = {
        "prompt": prompt.id,
        "asked": indices,
        "answers": [g.text for g in generations],
        "errors": [
            f"candidate {i}: " + (g.error or "no Yes/No at the end")
            for i, g, v in zip(indices, generations, verdicts, strict=True)
            if v is None
        ],
    }
    return related, log


def _nearest_first(chosen: list[int], n: int) -> Ranking:
    """The paper's pairwise ranking: the chosen candidates by distance, nearest first; the rest unranked."""
    order = sorted(chosen, reverse=True)
    scores = [-math.inf] * n
    for position, index in enumerate(order):
        scores[index] = float(len(order) - position)
    return Ranking(scores, order)


@register_ranker("llm-pairwise")
class PairwiseRanker(Ranker):
    """RECIDENT pairwise (Figure 8): one question per candidate; the Yes ones nearest first."""

    needs_llm = True

    def __init__(self, *, llm: LLM) -> None:
        self.llm = llm

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        n = len(target.candidates)
        related, log = ask_pairwise(self.llm, context, target, list(range(n)))
        ranking = _nearest_first(related, n)
        ranking.log = log
        return ranking


@register_ranker("pipeline")
class PipelineRanker(Ranker):
    """RECIDENT's pipeline, "SBERT (Char-Filter) + ChatGPT Pw": embedding cosine (``dense_model``; the
    paper: all-mpnet-base-v2, fabula's default: all-MiniLM-L6-v2) over the candidates naming one of the
    target's characters keeps the top ``keep`` (15); only those get the pairwise prompt; the Yes ones,
    nearest first, are the answer.

    Never zero questions: when the filter leaves no candidate (the target names people no candidate
    names), stage one falls back to the unfiltered cosine order, and the log says so (``fallback``)."""

    needs_llm = True

    def __init__(
        self, *, llm: LLM, keep: int = PIPELINE_KEEP, dense_model: str = DEFAULT_DENSE_MODEL
    ) -> None:
        self.llm = llm
        self.keep = keep
        self.first = CharacterFilterRanker(inner="dense", model=dense_model)

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        n = len(target.candidates)
        cheap = self.first.rank(context, target)
        kept = cheap.top(self.keep)
        fallback = not kept and n > 0
        if fallback:
            kept = self.first.inner.rank(context, target).top(self.keep)
        related, log = ask_pairwise(self.llm, context, target, kept)
        ranking = _nearest_first(related, n)
        ranking.log = {**log, "kept": kept, "fallback": fallback}
        return ranking


class _Listwise(Ranker):
    """One prompt listing candidates "(1) ... (n)", full text unless the prompt exceeds 15k tokens."""

    needs_llm = True
    prompt_name: ClassVar[str] = "recap/listwise"
    limit: ClassVar[int | None] = 5
    character_filter: ClassVar[bool] = False

    def __init__(
        self,
        *,
        llm: LLM,
        truncate_above: int = LISTWISE_TRUNCATE_ABOVE,
        candidate_tokens: int = LISTWISE_CANDIDATE_TOKENS,
        answer_tokens: int = LISTWISE_ANSWER_TOKENS,
    ) -> None:
        self.llm = llm
        self.truncate_above, self.candidate_tokens = truncate_above, candidate_tokens
        self.answer_tokens = answer_tokens

    def listed(self, context: RecapContext, target: RecapTarget) -> list[int]:
        """Candidate indices put in the prompt, in book order."""
        if not self.character_filter:
            return list(range(len(target.candidates)))
        keep = CharacterFilterRanker(inner="closest").kept(context, target)
        return [i for i, k in enumerate(keep) if k]

    def messages(
        self, prompt: PromptTemplate, context: RecapContext, target: RecapTarget, listed: list[int]
    ) -> tuple[list[Any], bool]:
        texts = [context.text(target.candidates[i]) for i in listed]
        variables = {"book": book_name(context), "target": context.text(target.target)}

        def render(parts: list[str]) -> list[Any]:
            numbered = "\n".join(f"({number}) {text}" for number, text in enumerate(parts, start=1))
            return prompt.messages(candidates=numbered, **variables)

        turns = render(texts)
        size = sum(self.llm.count_tokens(t.content) for t in turns)
        if size <= self.truncate_above:
            return turns, False
        return render([token_prefix(self.llm, t, self.candidate_tokens) for t in texts]), True

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        n = len(target.candidates)
        prompt = load_prompt(self.prompt_name)
        listed = self.listed(context, target)
        log: dict[str, Any] = {"prompt": prompt.id, "listed": len(listed)}
        if not listed:  # the filter left nothing: no question to ask
            log["error"] = "no candidate names the target's characters: nothing to ask"
            return Ranking([-math.inf] * n, [], log)
        turns, truncated = self.messages(prompt, context, target, listed)
        generation = self.llm.generate(turns, _options(self.answer_tokens))
        picks = [listed[i] for i in parse_listwise(generation.text, len(listed), self.limit)]
        scores = [-math.inf] * n
        for position, index in enumerate(picks):
            scores[index] = float(len(picks) - position)
        log.update(answer=generation.text, truncated=truncated, error=generation.error)
        if generation.ok and not picks:
            log["error"] = "no line starting with (number)"
        return Ranking(scores, picks, log)


@register_ranker("llm-listwise")
class ListwiseRanker(_Listwise):
    """RECIDENT listwise top-5 (Figure 6): the model picks up to 5 of all 60 candidates."""


@register_ranker("llm-listwise-free")
class ListwiseFreeRanker(_Listwise):
    """RECIDENT listwise free selection (Figure 7): the model picks all the candidates it thinks recaps."""

    prompt_name = "recap/listwise_free"
    limit = None


@register_ranker("llm-listwise-filter")
class ListwiseFilterRanker(_Listwise):
    """RECIDENT listwise + Char-Filter: Figure 6 over the candidates naming a character the target
    names (all of them when the target names no one); no call when none survives."""

    character_filter = True
