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
strictly, in the format each prompt asks for: a listwise pick is a line "(number) - explanation" (Figures
6 and 7: "in the format of ({number}) - {explanation}"; a bare "(1) ..." enumeration line is no pick, nor
is a line the token limit cut); a pairwise verdict is an explanation, then a final Yes or No (Figure 8:
"Explanation Yes/No") in an answer the model ended itself — an answer cut at the token limit has no
verdict, however it happens to end, and a closing "Yes/No" or "Yes or No" repeats the prompt's format
and is none either. An answer that cannot be read counts as no pick / "No", and the per-sample log
counts it (``unreadable``) and says why.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, ClassVar

from fabula.llm import LLM, GenerateOptions, Generation
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

# "({number}) - {explanation}": the number in brackets, a dash (typographic dashes too), some text
_PICK = re.compile(r"^\s*\((\d+)\)\s*[-\u2013\u2014]\s*\S")
_NUMBERED = re.compile(r"^\s*\(\d+\)")
# "Explanation Yes/No": some explanation, then Yes or No as the answer's last word
_VERDICT = re.compile(r"(?P<before>.*?)\b(?P<verdict>yes|no)\b[\W_]*$", re.IGNORECASE | re.DOTALL)
_FORMAT_ECHO = re.compile(r"\b(yes|no)\s*(/|\bor\b)\s*$", re.IGNORECASE)


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


def parse_listwise(text: str, n: int, limit: int | None, *, cut: bool = False) -> tuple[list[int], int]:
    """Candidate indices (0-based) picked in ``text`` and how many numbered lines were not picks.

    A pick is a line "(number) - explanation" (Figures 6/7; ``**`` emphasis ignored), in the model's
    order; numbers outside 1..n and repeats are dropped, at most ``limit`` kept. Lines starting "(number)"
    without the dash and an explanation (a bare enumeration, a copied snippet) are not picks, and with
    ``cut`` (the answer stopped at the token limit) the last line is incomplete and not read either."""
    lines = text.splitlines()
    if cut and lines:
        lines = lines[:-1]
    picks: list[int] = []
    ignored = 0
    for line in lines:
        line = line.replace("*", "")
        match = _PICK.match(line)
        if not match:
            ignored += bool(_NUMBERED.match(line))
            continue
        index = int(match.group(1)) - 1
        if not 0 <= index < n or index in picks:
            ignored += 1
            continue
        if limit is not None and len(picks) == limit:
            ignored += 1
            continue
        picks.append(index)
    return picks, ignored


def parse_pairwise(text: str, *, cut: bool = False) -> bool | None:
    """The verdict of a Figure 8 answer ("Explanation Yes/No"): True for Yes, False for No, None when
    the answer was ``cut`` at the token limit, does not end with Yes or No, has no explanation before
    it, or ends by repeating the prompt's "Yes/No" ("Yes or No")."""
    if cut:
        return None
    match = _VERDICT.fullmatch(text.strip())
    if match is None or not re.search(r"\w", match.group("before")):
        return None
    if _FORMAT_ECHO.search(match.group("before")):
        return None
    return match.group("verdict").lower() == "yes"


def _cut(generation: Generation) -> bool:
    """Whether the backend stopped the answer at the token limit (it did not end it itself)."""
    return generation.finish_reason == "length"


def _why_unreadable(generation: Generation) -> str:
    if not generation.ok:
        return generation.error or "no answer"
    if _cut(generation):
        return "cut at the token limit: no final Yes/No"
    return "no explanation then Yes/No at the end"


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
    verdicts = [parse_pairwise(g.text, cut=_cut(g)) if g.ok else None for g in generations]
    related = [i for i, v in zip(indices, verdicts, strict=True) if v]
    log = {
        "prompt": prompt.id,
        "asked": indices,
        "answers": [g.text for g in generations],
        "unreadable": sum(v is None for v in verdicts),
        "errors": [
            f"candidate {i}: {_why_unreadable(g)}"
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
        found, ignored = parse_listwise(generation.text, len(listed), self.limit, cut=_cut(generation))
        picks = [listed[i] for i in found]
        scores = [-math.inf] * n
        for position, index in enumerate(picks):
            scores[index] = float(len(picks) - position)
        log.update(
            answer=generation.text,
            truncated=truncated,
            cut=_cut(generation),
            ignored_lines=ignored,
            unreadable=int(not picks),
            error=generation.error,
        )
        if generation.ok and not picks:
            log["error"] = 'no line "(number) - explanation"' + (
                " before the token limit cut the answer" if _cut(generation) else ""
            )
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
