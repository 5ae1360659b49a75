"""Building a `Book` from a file or a string: decode, find the body, segment."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fabula._parallel import take_ahead
from fabula.book._decode import DEFAULT_MAX_BYTES, read_book_file
from fabula.book._model import ALPHA, PUNCTUATION, Book, BookMeta, text_kinds
from fabula.book._segment import detect_language, segment
from fabula.book._structure import find_body, find_chapters, find_paragraphs, is_heading_line

_BY_LINE = re.compile(r"^\s*by\s+([A-Z][^\n]{2,60})$", re.I)
_META_LINE = re.compile(r"^(Title|Author)\s*:\s*(.+)$", re.I)


def load_book(path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES, language: str | None = None) -> Book:
    """Read a .txt (any common encoding) or .epub novel into a segmented `Book`.

    Raises `fabula.errors.InputError` with a one-line message for anything that is not a book. Where this
    process had the book read ahead in a forked child (``fabula analyze BOOK``: `read_ahead_record`), that
    book is taken instead, when it was read with the same settings from the same, unchanged file.
    """
    taken, ahead = take_ahead(("load_book", str(path)))  # the key `fabula.cli` starts it under
    if taken and language is None and ahead[0] == max_bytes and ahead[1] == _file_state(path):
        return ahead[2]
    decoded = read_book_file(path, max_bytes=max_bytes)
    book = book_from_text(decoded.text, language=language, source=str(path), headings=decoded.headings)
    book.meta.encoding = decoded.encoding
    book.meta.source_format = decoded.source_format
    book.meta.title = decoded.title or book.meta.title or title_from_file_name(path)
    book.meta.author = decoded.author or book.meta.author
    return book


def read_ahead_record(path: str | Path) -> tuple[int, tuple[int, ...], Book]:
    """What a child forked to read a book ahead (`fabula._parallel.start_ahead`) sends back for `load_book`:
    ``load_book(path)`` with its defaults, the limit it read with, and the file's state before and
    after (a file changed meanwhile raises). Raises as well when reading the book logs or warns anything: the
    parent then reads it itself, so that the message comes out as it would have."""
    import logging
    import warnings

    before = _file_state(path)
    messages: list[logging.LogRecord] = []

    class _Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record)

    logger, keep = logging.getLogger("fabula"), _Keep(logging.WARNING)
    logger.addHandler(keep)
    propagate, logger.propagate = logger.propagate, False
    try:
        with warnings.catch_warnings(record=True) as warned:
            book = load_book(path)
    finally:
        logger.removeHandler(keep)
        logger.propagate = propagate
    if messages or warned or _file_state(path) != before:
        raise RuntimeError("read again in the parent")
    return DEFAULT_MAX_BYTES, before, book


def _file_state(path: str | Path) -> tuple[int, ...]:
    """What tells a file's content changed: device, inode, size, modification time (-1s when it is gone)."""
    try:
        state = os.stat(path)
    except OSError:
        return (-1,)
    return state.st_dev, state.st_ino, state.st_size, state.st_mtime_ns


GENERIC_FILE_STEMS = frozenset(
    {"novel_text", "novel", "text", "book", "index", "content", "contents", "input", "main"}
)  # file names that say nothing about the book (PDNC's novel_text.txt): the folder's name is read instead

TITLE_SMALL_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "but",
        "by",
        "for",
        "from",
        "in",
        "into",
        "nor",
        "of",
        "on",
        "or",
        "the",
        "to",
        "with",
    ]
)  # kept lower case inside a title made from a file name


def title_from_file_name(path: str | Path) -> str | None:
    """A title read off a file name when the book has no title page: "the_long_road.txt" -> "The Long
    Road", "TheSignOfTheFour/novel_text.txt" -> "The Sign of the Four" (a generic file name gives way to its
    folder's); None for a name without letters or a bare catalogue number ("pg1342")."""
    file = Path(path)
    stem = file.stem
    if stem.lower() in GENERIC_FILE_STEMS and file.resolve().parent.name:
        stem = file.resolve().parent.name
    # CamelCase folder names, a one-letter word too ("ARoomWithAView": "A Room With A View")
    stem = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", stem)
    stem = re.sub(r"[_\s]+|(?<=\w)-(?=\w)", " ", stem).strip()
    if not re.search(r"[^\W\d_]{2}", stem) or re.fullmatch(r"[A-Za-z]{0,3}\d+", stem):
        return None
    words = stem.split()
    return " ".join(
        w.lower()
        if 0 < i < len(words) - 1 and w.lower() in TITLE_SMALL_WORDS
        else (w[:1].upper() + w[1:] if w.islower() else w)
        for i, w in enumerate(words)
    )


def book_from_text(
    text: str,
    *,
    language: str | None = None,
    source: str | None = None,
    headings: Sequence[int] = (),
) -> Book:
    """Segment already-decoded text into a `Book` (the text is kept exactly as given).

    ``headings``: offsets where the source itself says chapters begin (an EPUB's content documents);
    used when the text has no recognisable CHAPTER headings of its own.
    """
    front = find_body(text)
    lang = language or detect_language(text[front.body.start : front.body.end])
    paragraphs = find_paragraphs(text, front.body)
    chapters = find_chapters(text, paragraphs, front.body, language=lang, known_headings=headings)
    sentences, tokens = segment(text, paragraphs, lang)
    title, author = front.title, front.author
    if title is None and chapters and len(paragraphs):
        title, author = _guess_title(text, paragraphs.pairs(), chapters[0].start, author)
    meta = BookMeta(title=title, author=author, language=lang, source=source, gutenberg=front.gutenberg)
    return Book(
        text=text,
        meta=meta,
        body=front.body,
        chapters=chapters,
        paragraphs=paragraphs,
        sentences=sentences,
        tokens=tokens,
    )


def _guess_title(
    text: str, paragraphs: list[tuple[int, int]], first_chapter: int, author: str | None
) -> tuple[str | None, str | None]:
    """Title and author from the front matter before the first chapter.

    Understands "EMMA" / "By Jane Austen", "Persuasion" / "by" / "Jane Austen", and the
    "Title: ..." / "Author: ..." lines of Gutenberg-style headers.
    """
    front = [" ".join(text[s:e].split()) for s, e in paragraphs[:8] if e <= first_chapter]
    title: str | None = None
    for k, line in enumerate(front):
        if match := _META_LINE.match(line):
            if match.group(1).lower() == "title" and title is None:
                title = match.group(2).strip()
            elif match.group(1).lower() == "author" and author is None:
                author = match.group(2).strip()
            continue
        if author is None and k > 0:
            if match := _BY_LINE.match(line):
                author = match.group(1).strip()
            elif line.lower() == "by" and k + 1 < len(front) and len(front[k + 1]) <= 60:
                author = front[k + 1]
        if (
            title is None
            and k == 0
            and len(line) <= 80
            and not line.endswith((".", ","))
            and not is_heading_line(line)
        ):
            title = line
    return title, author


# Leaving punctuation aside, a novel's tokens are words: 99.9-100% on all 21 PDNC novels (dialogue-heavy
# ones too) and on Chinese text. Code, configuration and data files are full of numbers and symbols:
# pyproject.toml 48% words, a CSV 43%, docs with tables 52-70%, Python modules 74-84%. Short texts are
# not judged.
_MIN_WORD_SHARE = 0.9
_MIN_TOKENS_TO_JUDGE = 200


def prose_problem(book: Book) -> str | None:
    """Why ``book`` does not look like prose (a novel's running text), or None when it does."""
    starts, ends = book.tokens.starts, book.tokens.ends
    # per character (`text_kinds`: punctuation is Unicode's, less the symbols of code and data), then per token
    # as arrays: a one-character punctuation token is not counted; a counted token is a word when it holds a letter
    kinds = text_kinds(book.text)
    letters = np.concatenate(([0], np.cumsum((kinds & ALPHA) != 0)))
    skipped = ((ends - starts) == 1) & ((kinds[starts] & PUNCTUATION) != 0)
    counted = int(len(starts) - np.count_nonzero(skipped))
    words = int(np.count_nonzero((letters[ends] > letters[starts]) & ~skipped))
    if counted < _MIN_TOKENS_TO_JUDGE or words / counted >= _MIN_WORD_SHARE:
        return None
    return (
        f"does not look like prose: {100 * (1 - words / counted):.0f}% of its {counted:,} tokens other than "
        "punctuation are numbers or symbols (a novel has under 1%); is it code, markup or data rather than a book?"
    )
