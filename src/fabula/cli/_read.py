"""``fabula read BOOK``: load and segment a book, print a summary or write the Book JSON."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from fabula._files import check_output_path, write_bytes_atomic
from fabula.book import DEFAULT_MAX_BYTES, Book, book_to_json, prose_problem
from fabula.cli._app import app, stdout
from fabula.cli._options import (
    BookArgument,
    MaxBytesOption,
    UntilChapterOption,
    UntilOption,
    load_reading,
)


@app.command("read")
def read_command(
    book_path: BookArgument,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json", help="Write the Book (text and every span layer) as JSON instead of a summary."
        ),
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Write the Book JSON to FILE (implies --json); written atomically, never half a file.",
        ),
    ] = None,
    chapters: Annotated[
        bool, typer.Option("--chapters", help="Also list every chapter: part, title, words.")
    ] = False,
    until: UntilOption = None,
    until_chapter: UntilChapterOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Load a book and print what fabula found: title, encoding, chapters, paragraphs, sentences, words."""
    if output is not None:
        check_output_path(output)
    book = load_reading(book_path, max_bytes=max_bytes, until=until, until_chapter=until_chapter, prose=False)
    if json_out or output is not None:
        data = book_to_json(book)
        if output is not None:
            write_bytes_atomic(output, data)
        else:
            sys.stdout.buffer.write(data + b"\n")
            sys.stdout.flush()
        return
    _print_summary(book, book_path)
    if chapters:
        _print_chapters(book)


def _print_summary(book: Book, book_path: Path) -> None:
    synthetic = bool(book.chapters) and book.chapters[0].synthetic
    rows = [
        ("file", str(book_path)),
        ("title", book.meta.title or "(unknown)"),
        ("author", book.meta.author or "(unknown)"),
        ("language", book.meta.language),
        ("format", f"{book.meta.source_format}, {book.meta.encoding}"),
        ("gutenberg boilerplate", "excluded" if book.meta.gutenberg else "none found"),
        ("body", f"characters {book.body.start:,}-{book.body.end:,} of {len(book.text):,}"),
        *([("read up to", f"character {book.until:,} (--until)")] if book.until is not None else []),
        (
            "chapters",
            f"{len(book.chapters)}" + (" (no headings found: synthetic sections)" if synthetic else ""),
        ),
        ("paragraphs", f"{len(book.paragraphs):,}"),
        ("sentences", f"{len(book.sentences):,}"),
        ("tokens", f"{len(book.tokens):,}"),
        ("words", f"{book.word_count:,}"),
        ("characters of text", f"{book.body.end - book.body.start:,}"),
    ]
    if problem := prose_problem(book):
        rows.append(("warning", problem))
    if book.chapters:
        rows.append(("first chapter", book.chapters[0].title or "(untitled)"))
        rows.append(("last chapter", book.chapters[-1].title or "(untitled)"))
    table = Table(show_header=False, box=None)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in rows:
        table.add_row(key, value)
    stdout.print(table, markup=False)


def _print_chapters(book: Book) -> None:
    table = Table("#", "part", "title", "words", box=None)
    for chapter in book.chapters:
        tokens = book.tokens.within(chapter.start, chapter.end)
        words = sum(1 for i in tokens if book.text[int(book.tokens.starts[i])].isalnum())
        table.add_row(str(chapter.id + 1), chapter.part or "", chapter.title or "", f"{words:,}")
    stdout.print(table, markup=False)
