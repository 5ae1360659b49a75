"""Registries for how a task asks and how it reads the answer, so methods compare prompt variants by name.

* ``@prompt_format("name")``: a function building a prompt (str or chat messages) from a task's item,
  e.g. an MCQ question with lettered options; tasks pick one with an option.
* ``@answer_filter("name")``: a function turning a model's raw answer into the parsed one (``str -> Any``),
  raising `fabula.llm.ParseError` when the answer does not parse (LLM output is untrusted: parse strictly).

The harness logs both the raw and the parsed answer of every item.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fabula._registry import Registry

F = TypeVar("F", bound=Callable[..., Any])

PROMPT_FORMATS: Registry[Callable[..., Any]] = Registry("prompt format", entry_point_group="fabula.prompts")
ANSWER_FILTERS: Registry[Callable[[str], Any]] = Registry(
    "answer filter", entry_point_group="fabula.answer_filters"
)


def prompt_format(name: str) -> Callable[[F], F]:
    """Register a prompt-building function under ``name`` (a decorator)."""
    return PROMPT_FORMATS.register(name)


def answer_filter(name: str) -> Callable[[F], F]:
    """Register an answer filter (raw text -> parsed answer) under ``name`` (a decorator)."""
    return ANSWER_FILTERS.register(name)


@answer_filter("strip")
def strip_answer(raw: str) -> str:
    """The answer without surrounding white space."""
    return raw.strip()


@answer_filter("first_line")
def first_line(raw: str) -> str:
    """The first non-empty line of the answer, stripped (models often add an explanation below)."""
    return next((line.strip() for line in raw.splitlines() if line.strip()), "")
