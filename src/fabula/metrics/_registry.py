"""The metric registries: ``@metric("name")`` makes a pure scoring function findable by name;
``@aggregation("name")`` a function that turns one metric's per-item values into a group's value
(``mean``), which a task declares per metric (`fabula.tasks.Task.aggregation`, as lm-evaluation-harness's
and inspect_ai's tasks declare theirs) and the harness applies to every group and to the item mean."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fabula._registry import Registry

F = TypeVar("F", bound=Callable[..., Any])

METRICS: Registry[Callable[..., Any]] = Registry("metric", entry_point_group="fabula.metrics")


def metric(name: str) -> Callable[[F], F]:
    """Register a metric function under ``name`` (a decorator; the function is returned unchanged)."""
    return METRICS.register(name)


def get_metric(name: str) -> Callable[..., Any]:
    """The metric function registered as ``name`` (ConfigError listing the names when unknown)."""
    return METRICS.get(name)


def metric_names() -> list[str]:
    """Names of every registered metric."""
    return METRICS.names()


Aggregation = Callable[[Sequence[float | int | None]], float | None]
AGGREGATIONS: Registry[Aggregation] = Registry("aggregation", entry_point_group="fabula.aggregations")


def aggregation(name: str) -> Callable[[F], F]:
    """Register an aggregation (per-item values -> one value; None values are missing) under ``name``."""
    return AGGREGATIONS.register(name)


def get_aggregation(name: str) -> Aggregation:
    """The aggregation registered as ``name`` (ConfigError listing the names when unknown)."""
    return AGGREGATIONS.get(name)
