"""GANDALF questions: the JSONL format, a strict loader, and a generator from (character, description) pairs.

One question a line::

    {"id": "emma-03-d2n", "book": "../books/emma.txt", "direction": "desc2name", "level": 1,
     "description": "A kind, nervous old invalid ...", "options": ["Nora", "Mr. Fenwick", ...], "answer": 1}

``book`` is relative to the data file; ``direction`` is ``desc2name`` (``description`` given, ``options``
are names) or ``name2desc`` (``name`` given, ``options`` are descriptions); ``answer`` indexes ``options``;
``level`` (0-4, how directly the book states the facts) is optional. A malformed line is an `InputError`
naming the file and the line.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import orjson

from fabula._files import atomic_open
from fabula._jsonl import read_jsonl
from fabula.errors import InputError

Direction = Literal["desc2name", "name2desc"]
DIRECTIONS: tuple[Direction, ...] = ("desc2name", "name2desc")
DEFAULT_OPTIONS = 10


@dataclass(frozen=True, slots=True)
class Question:
    """One multiple-choice question: which option fits ``query`` (a description or a name)."""

    id: str
    book: Path  # resolved against the data file's folder
    direction: Direction
    query: str  # the description (desc2name) or the name (name2desc)
    options: tuple[str, ...]
    answer: int
    level: int | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The character names of the question (the options, or the one name asked about)."""
        return self.options if self.direction == "desc2name" else (self.query,)

    def to_json(self, relative_to: Path | None = None) -> dict[str, Any]:
        book = self.book
        if relative_to is not None:
            book = Path(_relative_path(self.book, relative_to))
        row: dict[str, Any] = {"id": self.id, "book": book.as_posix(), "direction": self.direction}
        if self.level is not None:
            row["level"] = self.level
        row["description" if self.direction == "desc2name" else "name"] = self.query
        row["options"] = list(self.options)
        row["answer"] = self.answer
        return row


def _relative_path(target: Path, folder: Path) -> str:
    """``target`` relative to ``folder``, both made absolute without following symlinks, so a book reached
    through a link beside the checkout (``../shared``) is written that way and resolves from any checkout."""
    import os

    return Path(os.path.relpath(os.path.abspath(target), os.path.abspath(folder))).as_posix()


def load_questions(path: str | Path) -> list[Question]:
    """Read a question file; every problem is an `InputError` naming the file and line."""
    path = Path(path)
    questions: list[Question] = []
    seen: set[str] = set()
    for number, row in read_jsonl(path, "the question file"):
        where = f"{path}: line {number}"
        question = _parse_question(row, path.parent, where)
        if question.id in seen:
            raise InputError(f"duplicate question id {question.id!r}", where)
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise InputError("no questions in file", path)
    return questions


def _parse_question(row: dict[str, Any], folder: Path, where: str) -> Question:
    for key in ("id", "book", "direction", "options", "answer"):
        if key not in row:
            raise InputError(f"missing field {key!r}", where)
    direction = row["direction"]
    if direction not in DIRECTIONS:
        raise InputError(f"direction must be 'desc2name' or 'name2desc', not {direction!r}", where)
    query_key = "description" if direction == "desc2name" else "name"
    query = row.get(query_key)
    if not isinstance(query, str) or not query.strip():
        raise InputError(f"a {direction} question needs a non-empty {query_key!r}", where)
    options = row["options"]
    if (
        not isinstance(options, list)
        or len(options) < 2
        or not all(isinstance(o, str) and o.strip() for o in options)
    ):
        raise InputError("'options' must be a list of at least two non-empty strings", where)
    if len({o.strip() for o in options}) != len(options):
        raise InputError("'options' holds the same option twice", where)
    answer = row["answer"]
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(options):
        raise InputError(f"'answer' must be an index into 'options' (0..{len(options) - 1})", where)
    level = row.get("level")
    if level is not None and (isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 4):
        raise InputError("'level' must be an integer from 0 to 4", where)
    if not isinstance(row["id"], str | int) or not isinstance(row["book"], str) or not row["book"]:
        raise InputError("'id' must be a string and 'book' a path", where)
    return Question(
        id=str(row["id"]),
        book=(folder / row["book"]).resolve(),
        direction=cast(Direction, direction),
        query=query.strip(),
        options=tuple(o.strip() for o in options),
        answer=answer,
        level=level,
    )


def write_questions(path: str | Path, questions: Iterable[Question]) -> None:
    """Write questions as JSONL (atomically), book paths relative to the file's folder."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    with atomic_open(path) as handle:
        for question in questions:
            handle.write(orjson.dumps(question.to_json(relative_to=folder)).decode() + "\n")


@dataclass(frozen=True, slots=True)
class Pair:
    """One (character, description) pair written for a book; ``book`` names it (folder or file stem)."""

    book: str
    character: str
    description: str
    level: int | None = None


def load_pairs(path: str | Path) -> list[Pair]:
    """Read a pairs file (JSONL: book, character, description, optional level; other keys ignored)."""
    path = Path(path)
    pairs: list[Pair] = []
    for number, row in read_jsonl(path, "the pairs file"):
        where = f"{path}: line {number}"
        if not all(
            isinstance(row.get(k), str) and row[k].strip() for k in ("book", "character", "description")
        ):
            raise InputError("a pair needs non-empty 'book', 'character' and 'description' strings", where)
        level = row.get("level")
        if level is not None and (
            isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 4
        ):
            raise InputError("'level' must be an integer from 0 to 4", where)
        pairs.append(Pair(row["book"].strip(), row["character"].strip(), row["description"].strip(), level))
    if not pairs:
        raise InputError("no pairs in file", path)
    return pairs


def make_questions(
    pairs: Sequence[Pair],
    books: Mapping[str, Path],
    candidates: Mapping[str, Sequence[str]],
    *,
    seed: int = 0,
    n_options: int = DEFAULT_OPTIONS,
    directions: Sequence[Direction] = DIRECTIONS,
) -> list[Question]:
    """Questions of both directions from the pairs, distractors from the same book.

    Desc2Name distractors are other characters of the book (``candidates[book]``: names, described
    characters first is not required); Name2Desc distractors are descriptions of *other* characters of
    the same book. The right option appears exactly once; its position and the distractors are drawn
    with ``random.Random(seed)`` per question, so the output is reproducible. A book with too few
    characters (or described characters) for ``n_options`` is an `InputError`.
    """
    rng = random.Random(seed)
    by_book: dict[str, list[Pair]] = {}
    for pair in pairs:
        if pair.book not in books:
            raise InputError(f"pair for {pair.character!r} names book {pair.book!r}, which was not given")
        by_book.setdefault(pair.book, []).append(pair)
    questions: list[Question] = []
    for book_name, book_pairs in by_book.items():
        for i, pair in enumerate(book_pairs, start=1):
            stem = f"{book_name}-{i:02d}"
            if "desc2name" in directions:
                names = _unique([p.character for p in book_pairs] + list(candidates.get(book_name, ())))
                others = [n for n in names if _key(n) != _key(pair.character)]
                options, answer = _draw(pair.character, others, n_options, rng, book_name)
                questions.append(
                    Question(
                        f"{stem}-d2n",
                        books[book_name],
                        "desc2name",
                        pair.description,
                        options,
                        answer,
                        pair.level,
                    )
                )
            if "name2desc" in directions:
                others = _unique(
                    p.description for p in book_pairs if _key(p.character) != _key(pair.character)
                )
                options, answer = _draw(pair.description, others, n_options, rng, book_name)
                questions.append(
                    Question(
                        f"{stem}-n2d",
                        books[book_name],
                        "name2desc",
                        pair.character,
                        options,
                        answer,
                        pair.level,
                    )
                )
    return questions


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if _key(item) not in seen:
            seen.add(_key(item))
            out.append(item)
    return out


def _draw(
    right: str, others: list[str], n_options: int, rng: random.Random, book: str
) -> tuple[tuple[str, ...], int]:
    others = [o for o in others if _key(o) != _key(right)]
    if len(others) < n_options - 1:
        raise InputError(f"{book}: only {len(others)} distractors for {n_options} options")
    options = rng.sample(others, n_options - 1)
    answer = rng.randrange(n_options)
    options.insert(answer, right)
    return tuple(options), answer
