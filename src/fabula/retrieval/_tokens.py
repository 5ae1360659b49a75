"""Token counting for context budgets: the LLM's own counter when there is an LLM, else the LLM
layer's offline heuristic (`fabula.llm.heuristic_token_count`: words and marks × 1.2, one per CJK
character — slightly over-counts real tokenizers on English fiction, the safe side for a budget)."""

from __future__ import annotations

from collections.abc import Callable

TokenCounter = Callable[[str], int]


def token_counter(counter: object | None = None) -> TokenCounter:
    """The counter to use: an LLM's ``count_tokens``, a plain callable, or (None) the heuristic."""
    if counter is None:
        from fabula.llm import heuristic_token_count

        return heuristic_token_count
    count = getattr(counter, "count_tokens", None)
    if callable(count):
        return count
    if callable(counter):
        return counter
    raise TypeError(f"not a token counter: {counter!r}")
