"""The registry of attribution methods: ``@attribution_method("name")`` plugs a method in.

A method is a function ``(book, **options) -> AttributionResult`` that fills ``speaker_id``,
``addressee_ids``, ``type``, ``confidence``, ``method`` (and ``mention``) of ``book.quotes`` in place and
returns them with its own account of the run (the LLM method's failures, unmapped names, prompt and usage),
as a value: nothing about a run is kept in module state. The rule sieve registers itself as ``"rules"``;
an LLM method registers from its own module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fabula._registry import Registry
from fabula.book import Book, Quote

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(slots=True)
class AttributionResult:
    """What an attribution method returns: the quotes it attributed and its account of the run.

    ``report`` is method-specific and JSON-ready (empty for the rule and ranker methods; for the LLM
    methods: prompt version, windows, failures, unmapped names, usage).
    """

    quotes: list[Quote]
    report: dict[str, Any] = field(default_factory=dict)


DEFAULT_METHOD = "ranker"  # what `fabula quotes`, `fabula analyze` and the evaluation use unless told
LLM_METHODS = (
    "llm",
    "llm-windows",
    "hybrid",
)  # the methods that take a model (``llm=``); the others take none
# Methods that live in modules with optional dependencies are imported on first use.
METHODS: Registry[Callable[..., AttributionResult]] = Registry(
    "attribution method",
    entry_point_group="fabula.attribution_methods",
    lazy={
        "llm": "fabula.quotes._michel",
        "llm-windows": "fabula.quotes._llm_attribution",
        "hybrid": "fabula.quotes._llm_attribution",
    },
    option="--method",
)


def attribution_method(name: str) -> Callable[[F], F]:
    """Register a quote attribution method under ``name`` (a decorator; a duplicate name is an error)."""
    return METHODS.register(name)


def available_methods() -> list[str]:
    """Names of the registered attribution methods."""
    return METHODS.names()


def attribute_quotes(book: Book, *, method: str = DEFAULT_METHOD, **options: Any) -> AttributionResult:
    """Attribute a speaker (and addressees, type, confidence) to each of ``book.quotes``.

    Needs ``book.quotes`` (`detect_quotes`) and ``book.characters``/``book.mentions``
    (`fabula.characters.find_characters`, run after detection so pronouns inside quotes are skipped).
    """
    return METHODS.get(method)(book, **options)
