"""Reciprocal-rank fusion (Cormack et al., 2009) of any retrievers: score = Σ 1 / (k + rank)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fabula.book import Book
from fabula.errors import ConfigError
from fabula.retrieval._base import FloatArray, Retriever, create_retriever, register_retriever

DEFAULT_MEMBERS = ("bm25", "dense")


@register_retriever("hybrid")
class HybridRetriever(Retriever):
    """Fuses the rankings of ``members`` (each sees only the units visible at ``until``).

    ``k`` = 60 as in the original paper; ``depth`` caps how many hits of each member count.
    """

    def __init__(self, members: Sequence[Retriever], *, k: int = 60, depth: int = 1000) -> None:
        super().__init__()
        if not members:
            raise ConfigError("hybrid retrieval needs at least one member retriever")
        self.members = list(members)
        self.k, self.depth = k, depth

    @classmethod
    def for_book(cls, book: Book | None, **options: Any) -> HybridRetriever:
        names = options.pop("members", DEFAULT_MEMBERS)
        member_options: dict[str, dict[str, Any]] = options.pop("member_options", {})
        members = [
            m if isinstance(m, Retriever) else create_retriever(m, book, **member_options.get(m, {}))
            for m in names
        ]
        return cls(members, **options)

    def settings(self) -> dict[str, Any]:
        return {"k": self.k, "depth": self.depth, "members": [(m.name, m.settings()) for m in self.members]}

    def _build(self) -> None:
        for member in self.members:
            if member.units != self.units:  # members indexed (or loaded from cache) beforehand are kept
                member.index(self.units)

    def scores(self, query: str, until: int | None = None) -> FloatArray:
        n = len(self.units)
        fused = np.zeros(n)
        hit = np.zeros(n, dtype=bool)
        visible = self.visible(until)
        for member in self.members:
            scores = np.where(visible, member.scores(query, until), -np.inf)
            candidates = np.flatnonzero(np.isfinite(scores))
            order = candidates[np.lexsort((candidates, -scores[candidates]))][: self.depth]
            fused[order] += 1.0 / (self.k + np.arange(1, order.size + 1))
            hit[order] = True
        return np.where(hit, fused, -np.inf)
