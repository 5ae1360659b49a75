"""Passage units: the pieces of a book that retrievers index and context builders assemble.

A unit is a span of ``Book.text`` (so it can always be shown in place and cut at a reading position)
plus its chapter and its text normalized for indexing (hard-wrapped lines joined, white space
collapsed). Sizes are measured in the book's own tokens (``Book.tokens``: words and punctuation
marks), which is fast (a binary search) and the same for every backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from fabula.book import Book, Span, SpanLayer
from fabula.errors import ConfigError

UnitKind = Literal["paragraph", "sentence", "window", "snippet"]
UNIT_KINDS: tuple[UnitKind, ...] = ("paragraph", "sentence", "window", "snippet")
DEFAULT_MAX_TOKENS = 512


@dataclass(frozen=True, slots=True)
class Unit:
    """One passage: ``id`` is its position in the unit list (book order)."""

    id: int
    start: int
    end: int
    chapter: int | None  # index into ``book.chapters`` (None outside any chapter)
    text: str  # normalized text, for indexing and display

    @property
    def span(self) -> Span:
        return Span(self.start, self.end)


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """How to cut a book into units; part of every index's cache key.

    ``paragraph``: paragraphs, long ones split at sentence (else token) boundaries to ``max_tokens``;
    ``sentence``: sentences; ``window``: ``max_tokens``-token windows every ``stride`` tokens;
    ``snippet``: ``sentences`` consecutive sentences every ``stride`` sentences (RECIDENT's snippets).
    ``stride`` defaults to the unit size (no overlap).
    """

    kind: UnitKind = "paragraph"
    max_tokens: int = DEFAULT_MAX_TOKENS
    sentences: int = 3
    stride: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in UNIT_KINDS:
            raise ConfigError(f"unknown unit kind {self.kind!r} (choose from {', '.join(UNIT_KINDS)})")
        if self.max_tokens < 1 or self.sentences < 1 or (self.stride is not None and self.stride < 1):
            raise ConfigError("unit sizes and stride must be at least 1")

    def key(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "max_tokens": self.max_tokens,
            "sentences": self.sentences,
            "stride": self.stride,
        }


def make_units(book: Book, spec: UnitSpec | UnitKind = "paragraph") -> list[Unit]:
    """Cut the book's body into units of one kind, in book order."""
    if isinstance(spec, str):
        spec = UnitSpec(kind=spec)
    if spec.kind == "paragraph":
        spans = _paragraph_spans(book, spec.max_tokens)
    elif spec.kind == "sentence":
        spans = _layer_spans(book, book.sentences)
    elif spec.kind == "window":
        spans = _windows(book, spec.max_tokens, spec.stride or spec.max_tokens)
    else:
        spans = _snippets(book, spec.sentences, spec.stride or spec.sentences)
    chapter_starts = np.asarray([c.start for c in book.chapters], dtype=np.int64)
    units: list[Unit] = []
    for start, end in spans:
        text = book.span_text((start, end), normalize=True)
        if not text:
            continue
        units.append(Unit(len(units), start, end, _chapter_index(book, chapter_starts, start), text))
    return units


def _chapter_index(book: Book, chapter_starts: np.ndarray, offset: int) -> int | None:
    i = int(np.searchsorted(chapter_starts, offset, side="right")) - 1
    if i >= 0 and offset < book.chapters[i].end:
        return i
    return None


def _layer_spans(book: Book, layer: SpanLayer) -> list[tuple[int, int]]:
    """The layer's spans inside the body (front and back matter are never retrieved)."""
    inside = layer.within(book.body.start, book.body.end)
    return layer[inside.start : inside.stop].pairs()


def _paragraph_spans(book: Book, max_tokens: int) -> list[tuple[int, int]]:
    tokens = book.tokens
    out: list[tuple[int, int]] = []
    for p_start, p_end in _layer_spans(book, book.paragraphs):
        lo = int(np.searchsorted(tokens.starts, p_start, side="left"))
        hi = int(np.searchsorted(tokens.ends, p_end, side="right"))
        if hi - lo <= max_tokens:
            out.append((p_start, p_end))
            continue
        out.extend(_split_paragraph(book, p_start, p_end, max_tokens))
    return out


def _token_count(book: Book, start: int, end: int) -> int:
    tokens = book.tokens
    lo = int(np.searchsorted(tokens.starts, start, side="left"))
    hi = int(np.searchsorted(tokens.ends, end, side="right"))
    return max(0, hi - lo)


def _split_paragraph(book: Book, p_start: int, p_end: int, max_tokens: int) -> list[tuple[int, int]]:
    """Pack the paragraph's sentences greedily into pieces of at most ``max_tokens`` tokens;
    a sentence longer than that is cut at token boundaries."""
    sentences = [book.sentences[i] for i in book.sentences.within(p_start, p_end)] or [Span(p_start, p_end)]
    pieces: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    current_tokens = 0
    for sentence in sentences:
        n = _token_count(book, sentence.start, sentence.end)
        if n > max_tokens:
            if current is not None:
                pieces.append(current)
                current, current_tokens = None, 0
            pieces.extend(_token_chunks(book, sentence.start, sentence.end, max_tokens, max_tokens))
            continue
        if current is not None and current_tokens + n <= max_tokens:
            current = (current[0], sentence.end)
            current_tokens += n
        else:
            if current is not None:
                pieces.append(current)
            current, current_tokens = (sentence.start, sentence.end), n
    if current is not None:
        pieces.append(current)
    return pieces


def _token_chunks(book: Book, start: int, end: int, size: int, stride: int) -> list[tuple[int, int]]:
    tokens = book.tokens
    lo = int(np.searchsorted(tokens.starts, start, side="left"))
    hi = int(np.searchsorted(tokens.ends, end, side="right"))
    out: list[tuple[int, int]] = []
    for first in range(lo, hi, stride):
        last = min(first + size, hi) - 1
        out.append((int(tokens.starts[first]), int(tokens.ends[last])))
        if last == hi - 1:
            break
    return out


def _windows(book: Book, size: int, stride: int) -> list[tuple[int, int]]:
    return _token_chunks(book, book.body.start, book.body.end, size, stride)


def _snippets(book: Book, size: int, stride: int) -> list[tuple[int, int]]:
    sentences = _layer_spans(book, book.sentences)
    out: list[tuple[int, int]] = []
    for first in range(0, len(sentences), stride):
        last = min(first + size, len(sentences)) - 1
        out.append((sentences[first][0], sentences[last][1]))
        if last == len(sentences) - 1:
            break
    return out
