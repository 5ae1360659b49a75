"""The one declared annotation pipeline: components say what they need and what they add, `annotate` runs
exactly the ones a caller needs, in the one declared order.

>>> from fabula.annotation import annotate
>>> book = annotate(load_book(path), needs={"speakers"}, gold=None, method="ranker")  # doctest: +SKIP

Every command, task, the report and ``serve`` get their layers this way, so the same book gets the same
cast whatever asked for it (see docs/architecture.md, "The annotation pipeline").
"""

from fabula.annotation._pipeline import (
    COMPONENTS,
    UNSET,
    Component,
    annotate,
    component,
    component_order,
    plan,
    result_of,
)

__all__ = [
    "COMPONENTS",
    "UNSET",
    "Component",
    "annotate",
    "component",
    "component_order",
    "plan",
    "result_of",
]
