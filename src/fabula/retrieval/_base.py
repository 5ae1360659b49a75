"""The retriever interface, its hits, and the registry that names retrievers (``bm25``, ``dense``, ...).

Every retriever scores *all* units for a query (``scores``: one float per unit, ``-inf`` = not a
hit); ranking, ``k``, and the reading position (``until``) are handled once here, so every retriever
is spoiler-safe the same way: a unit is visible only if it ends at or before ``until``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from fabula._registry import Registry
from fabula.book import Book
from fabula.errors import ConfigError
from fabula.retrieval._units import Unit

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked unit: ``rank`` is 1-based, higher ``score`` is better (scales differ by retriever)."""

    unit: Unit
    score: float
    rank: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, chapters numbered from 1 as users see them (``fabula search --json``, the server)."""
        chapter = self.unit.chapter + 1 if self.unit.chapter is not None else None
        return {
            "rank": self.rank,
            "score": self.score,
            "start": self.unit.start,
            "end": self.unit.end,
            "chapter": chapter,
            "text": self.unit.text,
        }


class Retriever(ABC):
    """Index units once, then answer queries. Subclasses implement `index` and `scores`."""

    name: ClassVar[str] = ""
    cacheable: ClassVar[bool] = False  # True when `save`/`load` persist the index

    def __init__(self) -> None:
        self.units: list[Unit] = []
        self._ends: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)

    @classmethod
    def for_book(cls, book: Book | None, **options: Any) -> Retriever:
        """Make a retriever for this book (subclasses read e.g. its language or mentions)."""
        return cls(**options)

    def settings(self) -> dict[str, Any]:
        """Everything that changes the index; part of the cache key."""
        return {}

    def index(self, units: Sequence[Unit]) -> None:
        """Build the index over ``units`` (in book order)."""
        self._set_units(units)
        self._build()

    def _set_units(self, units: Sequence[Unit]) -> None:
        self.units = list(units)
        self._ends = np.asarray([u.end for u in self.units], dtype=np.int64)

    @abstractmethod
    def _build(self) -> None: ...

    @abstractmethod
    def scores(self, query: str, until: int | None = None) -> FloatArray:
        """A score for every unit (``-inf`` where the unit is not a hit for ``query``)."""

    def visible(self, until: int | None) -> npt.NDArray[np.bool_]:
        """Which units a reader at ``until`` has finished (all when ``until`` is None)."""
        if until is None:
            return np.ones(len(self.units), dtype=bool)
        return self._ends <= until

    def search(self, query: str, k: int = 10, until: int | None = None) -> list[Hit]:
        """The ``k`` best units for ``query`` among those ending at or before ``until``."""
        if k < 1 or not self.units:
            return []
        scores = np.asarray(self.scores(query, until), dtype=np.float64)
        if until is not None:
            scores = np.where(self.visible(until), scores, -np.inf)
        return rank_scores(self.units, scores, k)

    # Persistence (only for cacheable retrievers) ----------------------------------------------
    def save(self, folder: Path) -> None:
        raise NotImplementedError(f"{type(self).__name__} cannot be saved")

    def load(self, folder: Path, units: Sequence[Unit]) -> None:
        raise NotImplementedError(f"{type(self).__name__} cannot be loaded")


def rank_scores(units: Sequence[Unit], scores: FloatArray, k: int) -> list[Hit]:
    """Top ``k`` finite scores, best first; ties go to the earlier unit (book order)."""
    candidates = np.flatnonzero(np.isfinite(scores))
    if candidates.size == 0:
        return []
    if candidates.size > k:
        part = np.argpartition(-scores[candidates], k - 1)[:k]
        threshold = scores[candidates[part]].min()
        candidates = candidates[scores[candidates] >= threshold]  # keep every tie at the cut
    order = np.lexsort((candidates, -scores[candidates]))[:k]
    return [
        Hit(units[int(i)], float(scores[i]), rank)
        for rank, i in enumerate(candidates[order].tolist(), start=1)
    ]


R = TypeVar("R", bound=type[Retriever])
RETRIEVERS: Registry[type[Retriever]] = Registry(
    "retriever",
    entry_point_group="fabula.retrievers",
    option="--retriever",
    # fabula.retrieval loads its modules on first use (PEP 562), so each built-in registers when named
    lazy={
        "bm25": "fabula.retrieval._bm25",
        "dense": "fabula.retrieval._dense",
        "hybrid": "fabula.retrieval._hybrid",
        "mentions": "fabula.retrieval._mentions",
        "tfidf": "fabula.retrieval._tfidf",
    },
)


def register_retriever(name: str) -> Callable[[R], R]:
    """Class decorator: make a retriever available by ``name`` to `create_retriever` and the CLI."""
    return RETRIEVERS.register_class(name)


def retriever_names() -> list[str]:
    return RETRIEVERS.names()


def create_retriever(name: str, book: Book | None = None, **options: Any) -> Retriever:
    """A new, empty retriever of the named kind (``ConfigError`` for an unknown name or option)."""
    cls = RETRIEVERS.get(name)
    try:
        return cls.for_book(book, **options)
    except TypeError as exc:
        if "argument" not in str(exc):  # a bug, not a misspelt option: let it surface
            raise
        raise ConfigError(f"retriever {name!r}: {exc}") from exc
