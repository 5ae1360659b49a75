"""`BookShelf`: every book of a question set loaded and indexed once (thread-safe), optionally
anonymised first — what the evaluation task, the CLI and the benchmark share."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

from fabula.annotation import annotate
from fabula.anonymize import NameMapping, anonymized_copy
from fabula.book import Character, load_book
from fabula.characters import load_character_list
from fabula.recognition._index import BookIndex
from fabula.recognition._make import sibling_character_list
from fabula.recognition._questions import Question
from fabula.retrieval import DEFAULT_DENSE_MODEL


class BookShelf:
    """Books by path, each read once. ``gold``: use the character list beside each book
    (``character_info.csv``) instead of fabula's discovered characters; ``anonymize``: rename the
    characters first (``seed``) and map the questions with the same mapping; ``dense_model``: the
    embedding model of the ``dense`` retriever."""

    def __init__(
        self,
        *,
        gold: bool = False,
        anonymize: bool = False,
        seed: int = 0,
        mode: str = "census",
        cache: bool = True,
        dense_model: str = DEFAULT_DENSE_MODEL,
    ) -> None:
        self.gold, self.anonymize, self.seed, self.cache = gold, anonymize, seed, cache
        self.mode = mode
        self.dense_model = dense_model
        self._indexes: dict[Path, BookIndex] = {}
        self._mappings: dict[Path, NameMapping] = {}
        self._locks: dict[Path, threading.Lock] = {}
        self._lock = threading.Lock()

    def _characters(self, path: Path) -> list[Character] | None:
        listed = sibling_character_list(path) if self.gold else None
        return load_character_list(listed) if listed is not None else None

    def index(self, path: Path) -> BookIndex:
        with self._lock:
            lock = self._locks.setdefault(path, threading.Lock())
        with lock:
            if path not in self._indexes:
                gold = self._characters(path)
                book = load_book(path)
                if self.anonymize:  # the names of the annotated cast (gold or discovered)
                    annotate(book, {"characters"}, gold=gold)
                    copy = anonymized_copy(
                        book, book.characters if gold is None else gold, seed=self.seed, mode=self.mode
                    )
                    self._mappings[path] = copy.mapping
                    book = copy.book
                    if gold is not None:
                        gold = [copy.character(c) for c in gold]
                self._indexes[path] = BookIndex(
                    book, gold=gold, cache=self.cache, dense_model=self.dense_model
                )
            return self._indexes[path]

    def mapping(self, path: Path) -> NameMapping | None:
        if not self.anonymize:
            return None
        self.index(path)
        return self._mappings[path]

    def question(self, question: Question) -> Question:
        """The question as asked of this shelf's copy of its book (names replaced when anonymising)."""
        mapping = self.mapping(question.book)
        return map_question(question, mapping) if mapping is not None else question


def map_question(question: Question, mapping: NameMapping, book: Path | None = None) -> Question:
    """The question with the mapping applied to its text and options (and a new book path)."""
    return dataclasses.replace(
        question,
        query=mapping.apply(question.query),
        options=tuple(mapping.apply(o) for o in question.options),
        book=book or question.book,
    )
