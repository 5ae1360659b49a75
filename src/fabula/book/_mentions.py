"""An index over a book's mention layer: the mentions that start in a range, or walking back/forward
from an offset, without each caller keeping its own sorted list of starts and bisecting it."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator

from fabula.book._model import Mention


class MentionIndex:
    """Mentions sorted by start offset, optionally filtered (e.g. names with a character only)."""

    __slots__ = ("_mentions", "_starts")

    def __init__(self, mentions: Iterable[Mention], keep: Callable[[Mention], bool] | None = None) -> None:
        chosen = [m for m in mentions if keep is None or keep(m)]
        chosen.sort(key=lambda m: m.start)
        self._mentions = chosen
        self._starts = [m.start for m in chosen]

    def __len__(self) -> int:
        return len(self._mentions)

    def __iter__(self) -> Iterator[Mention]:
        return iter(self._mentions)

    def between(self, start: int, end: int) -> list[Mention]:
        """The mentions that start in ``[start, end)``, in text order."""
        lo = bisect.bisect_left(self._starts, start)
        hi = bisect.bisect_left(self._starts, end)
        return self._mentions[lo:hi]

    def before(self, offset: int) -> Iterator[Mention]:
        """The mentions that start before ``offset``, nearest first."""
        for i in range(bisect.bisect_left(self._starts, offset) - 1, -1, -1):
            yield self._mentions[i]

    def after(self, offset: int) -> Iterator[Mention]:
        """The mentions that start at or after ``offset``, nearest first."""
        for i in range(bisect.bisect_left(self._starts, offset), len(self._mentions)):
            yield self._mentions[i]
