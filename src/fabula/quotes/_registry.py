"""The registry of attribution methods: ``@attribution_method("name")`` plugs a method in.

A method is a function ``(book, **options) -> list[Quote]`` that fills ``speaker_id``,
``addressee_ids``, ``type``, ``confidence``, ``method`` (and ``mention``) of ``book.quotes`` in place.
The rule sieve registers itself as ``"rules"``; an LLM method registers from its own module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fabula._registry import Registry
from fabula.book import Book, Quote

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_METHOD = "ranker"  # what `fabula quotes`, `fabula analyze` and the evaluation use unless told
# Methods that live in modules with optional dependencies are imported on first use.
METHODS: Registry[Callable[..., list[Quote]]] = Registry(
    "attribution method",
    entry_point_group="fabula.attribution_methods",
    lazy={"llm": "fabula.quotes._llm_attribution", "hybrid": "fabula.quotes._llm_attribution"},
    option="--method",
)


def attribution_method(name: str) -> Callable[[F], F]:
    """Register a quote attribution method under ``name`` (a decorator; a duplicate name is an error)."""

    def register(function: F) -> F:
        METHODS.add(name, function)
        return function

    return register


def available_methods() -> list[str]:
    """Names of the registered attribution methods."""
    return METHODS.names()


def attribute_quotes(book: Book, *, method: str = DEFAULT_METHOD, **options: Any) -> list[Quote]:
    """Attribute a speaker (and addressees, type, confidence) to each of ``book.quotes``.

    Needs ``book.quotes`` (`detect_quotes`) and ``book.characters``/``book.mentions``
    (`fabula.characters.find_characters`, run after detection so pronouns inside quotes are skipped).
    """
    return METHODS.get(method)(book, **options)
