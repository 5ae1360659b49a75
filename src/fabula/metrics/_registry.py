"""The metric registry: ``@metric("name")`` makes a pure scoring function findable by name."""

from __future__ import annotations

from collections.abc import Callable
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
