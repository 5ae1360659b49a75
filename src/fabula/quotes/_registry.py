"""The registry of attribution methods: ``@attribution_method("name")`` plugs a method in.

A method is a function ``(book, **options) -> list[Quote]`` that fills ``speaker_id``,
``addressee_ids``, ``type``, ``confidence``, ``method`` (and ``mention``) of ``book.quotes`` in place.
The rule sieve registers itself as ``"rules"``; an LLM method registers from its own module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TypeVar

from fabula.book import Book, Quote
from fabula.errors import ConfigError

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_METHOD = "ranker"  # what `fabula quotes`, `fabula analyze` and the evaluation use unless told
_METHODS: dict[str, Callable[..., list[Quote]]] = {}
# Methods that live in modules with optional dependencies, imported on first use.
_LAZY_MODULES = {"llm": "fabula.quotes._llm_attribution"}


def attribution_method(name: str) -> Callable[[F], F]:
    """Register a quote attribution method under ``name`` (a decorator)."""

    def register(function: F) -> F:
        _METHODS[name] = function
        return function

    return register


def _load_lazy() -> None:
    for name, module in _LAZY_MODULES.items():
        if name not in _METHODS:
            try:
                importlib.import_module(module)
            except ImportError:
                continue


def available_methods() -> list[str]:
    """Names of the registered attribution methods."""
    _load_lazy()
    return sorted(_METHODS)


def attribute_quotes(book: Book, *, method: str = DEFAULT_METHOD, **options: Any) -> list[Quote]:
    """Attribute a speaker (and addressees, type, confidence) to each of ``book.quotes``.

    Needs ``book.quotes`` (`detect_quotes`) and ``book.characters``/``book.mentions``
    (`fabula.characters.find_characters`, run after detection so pronouns inside quotes are skipped).
    """
    if method not in _METHODS:
        _load_lazy()
    function = _METHODS.get(method)
    if function is None:
        raise ConfigError(
            f"unknown attribution method {method!r} (available: {', '.join(available_methods())})",
            "--method",
        )
    return function(book, **options)
