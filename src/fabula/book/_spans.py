"""Character-offset spans and compact span layers.

Every structure fabula finds in a book (paragraphs, sentences, tokens, ...) is a half-open range
``[start, end)`` of character offsets into the untouched ``Book.text``. Large layers (tokens: ~200K
for a novel) are stored as two numpy arrays rather than as Python objects, which keeps a novel's
Book small and makes "which spans overlap this range" a binary search.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A half-open range ``[start, end)`` of character offsets into ``Book.text``."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"invalid span [{self.start}, {self.end})")

    def __len__(self) -> int:
        return self.end - self.start

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def contains(self, offset: int) -> bool:
        return self.start <= offset < self.end


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without the white space at either end (empty when it is all white space)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


IntArray = npt.NDArray[np.int64]


class SpanLayer(Sequence[Span]):
    """An ordered layer of spans stored as two int64 arrays (``starts``, ``ends``).

    Spans in a layer are sorted by start and do not overlap, so lookups by offset are binary searches.
    """

    __slots__ = ("ends", "starts")

    def __init__(self, starts: Sequence[int] | IntArray, ends: Sequence[int] | IntArray) -> None:
        self.starts: IntArray = np.asarray(starts, dtype=np.int64)
        self.ends: IntArray = np.asarray(ends, dtype=np.int64)
        if self.starts.shape != self.ends.shape or self.starts.ndim != 1:
            raise ValueError("starts and ends must be 1-D arrays of equal length")

    @classmethod
    def from_spans(cls, spans: Sequence[Span] | Sequence[tuple[int, int]]) -> SpanLayer:
        if not spans:
            return cls.empty()
        pairs = np.asarray([(s[0], s[1]) if isinstance(s, tuple) else (s.start, s.end) for s in spans])
        return cls(pairs[:, 0], pairs[:, 1])

    @classmethod
    def empty(cls) -> SpanLayer:
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return int(self.starts.shape[0])

    @overload
    def __getitem__(self, index: int) -> Span: ...
    @overload
    def __getitem__(self, index: slice) -> SpanLayer: ...
    def __getitem__(self, index: int | slice) -> Span | SpanLayer:
        if isinstance(index, slice):
            return SpanLayer(self.starts[index], self.ends[index])
        return Span(int(self.starts[index]), int(self.ends[index]))

    def __iter__(self) -> Iterator[Span]:
        for start, end in zip(self.starts.tolist(), self.ends.tolist(), strict=True):
            yield Span(start, end)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SpanLayer):
            return NotImplemented
        return bool(np.array_equal(self.starts, other.starts) and np.array_equal(self.ends, other.ends))

    def __hash__(self) -> int:  # layers are mutable containers of arrays; hash by identity is wrong
        raise TypeError("SpanLayer is unhashable")

    def __repr__(self) -> str:
        return f"SpanLayer({len(self)} spans)"

    def pairs(self) -> list[tuple[int, int]]:
        """The spans as plain ``(start, end)`` tuples."""
        return list(zip(self.starts.tolist(), self.ends.tolist(), strict=True))

    def index_at(self, offset: int) -> int | None:
        """Index of the span containing ``offset``, or None if it falls between spans."""
        i = int(np.searchsorted(self.starts, offset, side="right")) - 1
        if i >= 0 and offset < self.ends[i]:
            return i
        return None

    def index_before(self, offset: int) -> int:
        """Index of the last span starting at or before ``offset`` (-1 if none)."""
        return int(np.searchsorted(self.starts, offset, side="right")) - 1

    def overlapping(self, start: int, end: int) -> range:
        """Indices of the spans that overlap ``[start, end)``."""
        lo = int(np.searchsorted(self.ends, start, side="right"))
        hi = int(np.searchsorted(self.starts, end, side="left"))
        return range(lo, max(lo, hi))

    def overlapping_each(self, starts: Sequence[int], ends: Sequence[int]) -> list[range]:
        """`overlapping` of each range ``[starts[i], ends[i])``, in two array searches instead of two per range."""
        if not len(starts):
            return []
        los = np.searchsorted(self.ends, np.asarray(starts, dtype=np.int64), side="right")
        his = np.maximum(los, np.searchsorted(self.starts, np.asarray(ends, dtype=np.int64), side="left"))
        return [range(lo, hi) for lo, hi in zip(los.tolist(), his.tolist(), strict=True)]

    def within(self, start: int, end: int) -> range:
        """Indices of the spans lying entirely inside ``[start, end)``."""
        lo = int(np.searchsorted(self.starts, start, side="left"))
        hi = int(np.searchsorted(self.ends, end, side="right"))
        return range(lo, max(lo, hi))

    def until(self, offset: int) -> SpanLayer:
        """The spans that end at or before ``offset`` (what a reader at ``offset`` has read)."""
        hi = int(np.searchsorted(self.ends, offset, side="right"))
        return self[:hi]
