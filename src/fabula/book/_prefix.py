"""Prefix-stable layers: local work a component did on a whole book, reused for that book cut at a position.

A component run on ``book.truncated(offset)`` must give exactly what it gives on any copy of the cut text:
nothing after the offset may matter (spoiler safety). Part of some components' work is *local*: each
element it finds (a name candidate, a pronoun, a lowercase word) depends only on the text near the
element, and before the offset the whole book's text and the cut book's are the same characters. A
reading companion (``fabula serve``) analyses one book cut at many offsets; instead of scanning the same
text again for every cut, it makes one `PrefixLayers` of the whole book and cuts through it
(`PrefixLayers.truncated`). A component that knows a local part of its work finds the store with
`prefix_layers`, computes that part once on the whole book (`PrefixLayers.layer`), keeps the elements that
start before `PrefixLayers.settled` and computes the rest on the cut book itself, resuming from where the
whole-book computation stood there. Books cut the plain way (`Book.truncated`) carry no store: every
component then computes everything from the cut text, as before.

Why that is exact: `settled` is the first character of a blank line (a line break, optional spaces, tabs or
carriage returns, and another line break) that ends at least `READ_REACH` characters before the cut. A
local computation qualifies when whatever it reads to make an element starting at ``x`` lies before the
first blank line after ``x`` or within `READ_REACH` characters after the element's end, and its elements
do not run over a blank line: then for an element starting before `settled` it reads the same characters
in the whole book and in the cut one, so it finds the same element; and a scan that goes on from where the
whole book's stood after its last settled element is the cut book's own scan from there. Each user says
why its reads are so bounded, and ``tests/book/test_prefix.py`` and ``tests/serve/test_reuse.py`` compare
every layer and output with a fresh analysis of the cut book at many cuts (inside quotes, paragraphs,
names and pronouns).

A second kind of reuse needs no settled offset: a value computed from a range of the text alone, kept
per range (`text_memo`). Every cut's text is a prefix of the whole book's, so the characters in
``[start, end)`` are the same in every cut whose text reaches ``end``; a value that reads only those (and
whatever its key holds) is the same in each of them. A user keys its entries by everything it reads but
the text — the offsets that fix which characters it reads — and stores or reuses an entry only when the
range it reads lies inside the cut's text (a read past the end of a cut is clipped, and sees less).

The store holds the whole book, so it never travels with a cut book: pickling a cut book drops it.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from fabula.book._model import Book

F = TypeVar("F", bound="Callable[[Book], Any]")

_COMPUTE: dict[str, Callable[[Book], Any]] = {}  # layer name -> how the whole book's is computed


def prefix_stable(name: str) -> Callable[[F], F]:
    """Register the decorated ``compute(whole_book)`` as the prefix-stable layer ``name`` (the
    component's own name for it, ``"characters.candidates"``): `PrefixLayers.layer` computes it."""

    def register(compute: F) -> F:
        if _COMPUTE.setdefault(name, compute) is not compute:
            raise ValueError(f"a prefix-stable layer {name!r} is registered already")
        return compute

    return register


#: characters after an element's end that a local computation may read (a word after a name, "he" or
#: "she" a few words on); a qualifying computation reads no further past a blank line
READ_REACH = 80

#: a blank line (a line break, optional spaces, tabs or carriage returns, another line break): a local
#: element never runs over one, so a book's text may be cut there (here, and for `fork_call` halves)
BLANK_LINE = re.compile(r"\n[ \t\r]*\n")


class PrefixLayers:
    """The whole book's local layers, computed once each on first use, for books cut from it."""

    def __init__(self, whole: Book) -> None:
        if whole.until is not None and whole.partial:
            raise ValueError("PrefixLayers needs the whole book, not one already cut at a position")
        self._whole = whole
        self._layers: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._blank_lines: tuple[list[int], list[int]] | None = None  # every blank line's ends, starts
        self._memos: dict[str, dict[Any, Any]] = {}  # `text_memo` name -> its entries

    def truncated(self, until: int) -> Book:
        """``whole.truncated(until)`` that carries this store (`prefix_layers` finds it)."""
        book = self._whole.truncated(until)
        book.prefix_layers = self
        return book

    def layer(self, name: str) -> Any:
        """The registered layer ``name`` (`prefix_stable`) of the whole book, computed on first use and
        kept (thread-safe: a second caller waits for the first's). It covers the whole book: the caller
        keeps what starts before `settled`, and never changes it."""
        with self._lock:
            if name not in self._layers:
                self._layers[name] = _COMPUTE[name](self._whole)
            return self._layers[name]

    def settled(self, book: Book) -> int:
        """The offset before which a qualifying local computation finds, in ``book`` (cut from this
        whole book), exactly the elements it finds in the whole book: the first character of the last
        blank line ending at least `READ_REACH` characters before the cut, else the body's start (nothing
        is settled)."""
        with self._lock:
            if self._blank_lines is None:
                found = list(BLANK_LINE.finditer(self._whole.text))
                self._blank_lines = ([m.end() for m in found], [m.start() for m in found])
            ends, starts = self._blank_lines
        index = bisect.bisect_right(ends, len(book.text) - READ_REACH) - 1
        if index < 0 or starts[index] < book.body.start:
            return book.body.start
        return starts[index]

    def memo(self, name: str) -> dict[Any, Any]:
        """The entries kept under ``name`` for every cut of this book (`text_memo`): a plain dict, which
        its one user reads and fills (a lost race between two threads stores the same value twice)."""
        with self._lock:
            return self._memos.setdefault(name, {})

    def __reduce__(self) -> tuple[Callable[[], None], tuple[()]]:
        return _dropped, ()


def _dropped() -> None:
    """What a pickled `PrefixLayers` comes back as: nothing (a cut book does not carry the whole one)."""
    return None


def prefix_layers(book: Book) -> PrefixLayers | None:
    """The store ``book`` was cut through (`PrefixLayers.truncated`), None for any other book — and for a
    book that carries one but is no cut of its whole book (say a copy with other text: a comparison of
    the texts, well under a millisecond for a novel)."""
    layers = book.prefix_layers
    if layers is None:
        return None
    whole = layers._whole
    if book.body.start != whole.body.start or not whole.text.startswith(book.text):
        return None
    return layers


def text_memo(book: Book, name: str) -> dict[Any, Any] | None:
    """Values kept under ``name`` across the cuts of ``book``'s whole book (`PrefixLayers.memo`), or None
    for a book not cut through a store (then everything is computed, as before). An entry must hold a
    value computed from the characters of one range of the text (and what its key holds) alone, and be
    stored and reused only where that range lies inside the cut's text: then it is the value the cut
    would compute itself (see the module docstring)."""
    layers = prefix_layers(book)
    return None if layers is None else layers.memo(name)
