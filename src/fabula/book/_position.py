"""Reading positions: "how far has the reader got", as a character offset into the book.

Users say ``45%``, ``chapter:12`` (the end of chapter 12), ``char:120000`` or a bare offset; every
spoiler-safe output is limited to the text before that offset.
"""

from __future__ import annotations

import re

from fabula.book._model import Book
from fabula.errors import ConfigError

_PERCENT = re.compile(r"^(\d+(?:\.\d+)?)\s*%$")
_CHAPTER = re.compile(r"^(?:chapter|ch)[:= ]?\s*(\d+)$", re.I)
_OFFSET = re.compile(r"^(?:char[:=])?(\d+)$", re.I)


def resolve_position(
    book: Book, position: str | int | None = None, *, until_chapter: int | None = None
) -> int | None:
    """Turn a reading position into a character offset (None = the whole book).

    ``until_chapter=N`` means "has read chapters 1..N" (1-based, as printed in the book's table). A
    position inside a sentence ("45%" or an offset rarely falls between two) moves back to the end of the
    previous sentence: a reader has not finished the sentence, and no output shows half of one
    ("A wooden-legged ma").
    """
    if until_chapter is not None:
        return _chapter_end(book, until_chapter)
    if position is None:
        return None
    if isinstance(position, int):
        return _sentence_boundary(book, _clamp(book, position))
    spec = position.strip()
    if match := _PERCENT.match(spec):
        fraction = float(match.group(1)) / 100
        if not 0 <= fraction <= 1:
            raise ConfigError(f"reading position {spec!r} must be between 0% and 100%")
        body = book.body
        return _sentence_boundary(book, body.start + round((body.end - body.start) * fraction))
    if match := _CHAPTER.match(spec):
        return _chapter_end(book, int(match.group(1)))
    if match := _OFFSET.match(spec):
        return _sentence_boundary(book, _clamp(book, int(match.group(1))))
    raise ConfigError(
        f"cannot read reading position {spec!r} (use e.g. 45%, chapter:12 or a character offset)"
    )


def _chapter_end(book: Book, number: int) -> int:
    if number < 1 or number > len(book.chapters):
        raise ConfigError(f"chapter {number} does not exist (the book has {len(book.chapters)} chapters)")
    return book.chapters[number - 1].end


def _clamp(book: Book, offset: int) -> int:
    return max(book.body.start, min(offset, book.body.end))


def _sentence_boundary(book: Book, offset: int) -> int:
    """``offset``, or the end of the last sentence before it when ``offset`` cuts a sentence."""
    i = book.sentences.index_at(offset)
    if i is None or offset <= int(book.sentences.starts[i]):
        return offset
    return int(book.sentences.ends[i - 1]) if i > 0 else book.body.start
