"""Declared components and `annotate` (in the manner of spaCy's ``@Language.component(requires=...,
assigns=...)``).

A component is a function ``run(book, **settings) -> result`` registered with what it ``requires``
(layer names) and what it ``assigns`` (layer names; each layer has exactly one component that assigns
it) and the settings it reads with their defaults. The built-in layers and who assigns them:

========== ============================ ========================== ==========================
component  requires                     assigns                    settings
========== ============================ ========================== ==========================
quotes     –                            quotes                     –
characters quotes                       characters, mentions       gold, ner_model
attribution quotes, characters, mentions speakers                  method, method_options
profiles   speakers, characters, mentions profiles                 –
========== ============================ ========================== ==========================

(quotes precede characters because discovery skips pronouns inside quotations and gives a quote's "I"
to its speaker: a cast found without them differs.) The one order is the topological order of all
registered components, ties broken by name; ``annotate`` runs the needed ones in it.

What ran is recorded on the book (``book.annotations[name]``: settings, result, sequence number), so a
second ``annotate`` on the same book runs nothing, or only what is missing or stale: a component re-runs
when a setting given to this call differs from the one it ran with, or when a component it requires ran
after it. A setting not given keeps what ran (``annotate(book, {"mentions"})`` accepts a gold cast already
there); on a fresh book it takes the component's default. Layers put on a book by hand, without a record,
are recomputed. `Book.truncated` copies no records: the visible text is annotated afresh.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fabula._registry import Registry
from fabula.book import Annotation, Book
from fabula.errors import ConfigError


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""A setting not given to `annotate` (keep what ran, else the default)."""

F = TypeVar("F", bound=Callable[..., Any])
ProgressCallback = Callable[[str, float | None], None]


@dataclass(frozen=True, slots=True)
class Component:
    """A declared annotation step (see the module docstring)."""

    name: str
    run: Callable[..., Any]
    requires: frozenset[str] = frozenset()
    assigns: frozenset[str] = frozenset()
    settings: Mapping[str, Any] = field(default_factory=dict)  # setting -> default


COMPONENTS: Registry[Component] = Registry(
    "annotation component",
    entry_point_group="fabula.components",
    lazy={
        "quotes": "fabula.quotes",
        "attribution": "fabula.quotes",
        "characters": "fabula.characters",
        "profiles": "fabula.pipeline",
    },
)
_sequence = itertools.count(1)
_lock = threading.Lock()


def component(
    name: str,
    *,
    requires: Iterable[str] = (),
    assigns: Iterable[str] = (),
    settings: Mapping[str, Any] | None = None,
) -> Callable[[F], F]:
    """Decorator: register ``run(book, **settings)`` as the component ``name`` that needs the layers
    ``requires`` and adds ``assigns``. Its return value is kept as ``book.annotations[name].result``."""

    def decorate(run: F) -> F:
        entry = Component(name, run, frozenset(requires), frozenset(assigns), dict(settings or {}))
        existing = COMPONENTS._entries.get(name)
        if existing is not None and existing.run.__qualname__ == run.__qualname__:
            COMPONENTS.remove(name)  # the same definition again (a module reload)
        COMPONENTS.add(name, entry)
        return run

    return decorate


def component_order() -> list[Component]:
    """Every registered component in the one declared order (dependencies first, ties by name)."""
    components = dict(COMPONENTS.items())
    providers = _providers(components)
    remaining = {
        name: {providers[layer].name for layer in c.requires if layer in providers}
        for name, c in components.items()
    }
    for name, c in components.items():
        missing = sorted(layer for layer in c.requires if layer not in providers)
        if missing:
            raise ConfigError(f"component {name!r} requires {', '.join(missing)}, which no component assigns")
    order: list[Component] = []
    while remaining:
        ready = sorted(n for n, deps in remaining.items() if not deps)
        if not ready:
            raise ConfigError(f"components {', '.join(sorted(remaining))} require each other in a cycle")
        order.append(components[ready[0]])
        del remaining[ready[0]]
        for deps in remaining.values():
            deps.discard(ready[0])
    return order


def plan(needs: Iterable[str]) -> list[Component]:
    """The components that must have run for the layers ``needs``, in the declared order."""
    components = dict(COMPONENTS.items())
    providers = _providers(components)
    wanted: set[str] = set()
    stack = list(needs)
    while stack:
        layer = stack.pop()
        provider = providers.get(layer)
        if provider is None:
            known = ", ".join(sorted(providers))
            raise ConfigError(f"no annotation component assigns {layer!r} (layers: {known})")
        if provider.name not in wanted:
            wanted.add(provider.name)
            stack.extend(provider.requires)
    return [c for c in component_order() if c.name in wanted]


def annotate(
    book: Book, needs: Iterable[str], *, progress: ProgressCallback | None = None, **settings: Any
) -> Book:
    """Make sure ``book`` has the layers ``needs`` (e.g. ``{"mentions"}``, ``{"speakers"}``), running the
    needed components in the declared order, and return it. ``settings`` go to the components that
    declare them (``gold``: a list of `Character`s or None for discovery; ``ner_model``; ``method`` and
    ``method_options`` of attribution); a name no component declares is a `ConfigError`. ``progress`` is
    called as ``(component, None)`` before and ``(component, seconds)`` after each component that runs."""
    steps = plan(needs)
    declared = {s for c in COMPONENTS.items() for s in c[1].settings}
    unknown = sorted(set(settings) - declared)
    if unknown:
        raise ConfigError(f"no annotation component takes the setting(s) {', '.join(unknown)}")
    ran_now: set[str] = set()
    for step in steps:
        given = {k: v for k, v in settings.items() if k in step.settings and v is not UNSET}
        record = book.annotations.get(step.name)
        if record is not None and not _stale(book, step, record, given, ran_now):
            continue
        values = {**step.settings, **(record.settings if record is not None else {}), **given}
        if progress:
            progress(step.name, None)
        started = time.perf_counter()
        result = step.run(book, **values)
        seconds = round(time.perf_counter() - started, 3)
        with _lock:
            sequence = next(_sequence)
        book.annotations[step.name] = Annotation(step.name, values, result, sequence, seconds)
        ran_now.add(step.name)
        if progress:
            progress(step.name, seconds)
    return book


def result_of(book: Book, name: str) -> Any:
    """What component ``name`` returned when it last ran on ``book`` (`ConfigError` if it has not)."""
    record = book.annotations.get(name)
    if record is None:
        raise ConfigError(f"component {name!r} has not run on this book: annotate it first")
    return record.result


def _stale(book: Book, step: Component, record: Annotation, given: dict[str, Any], ran_now: set[str]) -> bool:
    if any(_fingerprint(v) != _fingerprint(record.settings.get(k)) for k, v in given.items()):
        return True
    providers = _providers(dict(COMPONENTS.items()))
    for layer in step.requires:
        upstream = providers[layer].name
        before = book.annotations.get(upstream)
        if upstream in ran_now or before is None or before.sequence > record.sequence:
            return True
    return False


def _providers(components: Mapping[str, Component]) -> dict[str, Component]:
    providers: dict[str, Component] = {}
    for name in sorted(components):
        for layer in components[name].assigns:
            if layer in providers:
                raise ConfigError(
                    f"layer {layer!r} is assigned by two components: {providers[layer].name} and {name}"
                )
            providers[layer] = components[name]
    return providers


def _fingerprint(value: Any) -> Any:
    """A comparable stand-in for a setting: characters by id, names, aliases and gender; a model by its
    spec; callables (progress callbacks) all alike."""
    from fabula.book import Character

    if isinstance(value, list | tuple):
        return tuple(_fingerprint(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _fingerprint(v)) for k, v in value.items() if k != "progress"))
    if isinstance(value, Character):
        return ("character", value.id, value.name, tuple(sorted(value.aliases)), value.gender)
    if hasattr(value, "spec") and hasattr(value, "generate"):
        return ("llm", str(value.spec))
    if callable(value):
        return "callable"
    return value if isinstance(value, str | int | float | bool | None) else repr(value)
