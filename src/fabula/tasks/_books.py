"""The harness's one book service: `Books.book(path, until, ...)` gives a task its book loaded,
anonymised (``--anonymize``), cut at a reading position and annotated, each once per run, thread-safe.

>>> book = self.books.book(path, until="45%", needs={"mentions"})      # doctest: +SKIP
>>> copy = self.books.copy(path)    # the AnonymizedBook behind it (names, offsets), or None
>>> index = self.books.derived(book, "bm25", lambda b: index_book(b, "bm25"))

A task reaches it as ``self.books`` (`Task.books`); the layers come from `fabula.annotation.annotate`, so a
task sees the same cast as ``fabula characters``/``analyze``/``serve`` for the same text.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from fabula.annotation import annotate
from fabula.errors import InputError

if TYPE_CHECKING:
    from fabula.anonymize import AnonymizedBook, Anonymizer
    from fabula.book import Book, Character

T = TypeVar("T")


class Books:
    """Books by (path, reading position), each prepared once; ``anonymizer``: renamed copies
    (the names of the book's annotated cast, or of ``gold`` when a task gives a gold list)."""

    def __init__(self, anonymizer: Anonymizer | None = None) -> None:
        self.anonymizer = anonymizer
        self._books: dict[tuple[Path, str | None], Book] = {}
        self._originals: dict[Path, Book] = {}
        self._copies: dict[Path, AnonymizedBook] = {}
        self._derived: dict[tuple[int, str], Any] = {}
        self._locks: dict[Any, threading.Lock] = {}
        self._lock = threading.Lock()

    def book(
        self,
        path: str | Path,
        until: str | int | None = None,
        *,
        needs: Iterable[str] = (),
        gold: list[Character] | None = None,
    ) -> Book:
        """The book at ``path`` as a reader at ``until`` knows it (``"45%"``, ``"chapter:3"``, an offset
        of the original text; None: all of it), renamed when anonymising, with the layers ``needs``
        (`fabula.annotation`; ``gold``: that cast instead of the discovered one)."""
        path = Path(path)
        key = (path, None if until is None else str(until))
        with self._key_lock(key):
            book = self._books.get(key)
            if book is None:
                book = self._prepare(path, until, gold)
                self._books[key] = book
        wanted = set(needs)
        if wanted:
            with self._key_lock(("annotate", id(book))):
                if gold is not None and self.copy(path) is not None:
                    copy = self.copy(path)
                    assert copy is not None
                    gold = [copy.character(c) for c in gold]
                settings: dict[str, Any] = {} if gold is None else {"gold": gold}
                annotate(book, wanted, **settings)
        return book

    def copy(self, path: str | Path) -> AnonymizedBook | None:
        """The anonymised copy of the whole book (its mapping and offset map), or None when not anonymising."""
        return self._copies.get(Path(path))

    def copies(self) -> list[AnonymizedBook]:
        """Every anonymised copy made so far (one per book)."""
        return list(self._copies.values())

    def derived(self, book: Book, name: str, make: Callable[[Book], T]) -> T:
        """An object built from ``book`` once (a retriever, a sentence index), cached under ``name``."""
        key = (id(book), name)
        with self._key_lock(key):
            if key not in self._derived:
                self._derived[key] = make(book)
            value: T = self._derived[key]
            return value

    def _prepare(self, path: Path, until: str | int | None, gold: list[Character] | None) -> Book:
        from fabula.book import load_book, resolve_position

        if not path.is_file():
            raise InputError("no such book", path)
        with self._key_lock(("original", path)):
            original = self._originals.get(path)
            if original is None:
                original = load_book(path)
                self._originals[path] = original
                if self.anonymizer is not None:  # one mapping per book: its whole cast's names
                    cast = gold if gold is not None else annotate(original, {"characters"}).characters
                    self._copies[path] = self.anonymizer.copy(original, cast)
        offset = resolve_position(original, None if until is None else str(until))
        copy = self._copies.get(path)
        book = original if copy is None else copy.book
        if copy is not None and offset is not None:
            offset = copy.offset(offset)
        return book if offset is None else book.truncated(offset)

    def _key_lock(self, key: Any) -> threading.Lock:
        with self._lock:
            return self._locks.setdefault(key, threading.Lock())
