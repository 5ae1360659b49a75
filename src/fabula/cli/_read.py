"""``fabula read BOOK``: load and segment a book, print a summary or write the Book JSON."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from fabula._files import write_bytes_atomic
from fabula.book import DEFAULT_MAX_BYTES, book_to_json, load_book
from fabula.cli._app import app, stdout


@app.command("read")
def read_command(
    book_path: Annotated[
        Path, typer.Argument(metavar="BOOK", help="A .txt (any common encoding) or .epub novel.")
    ],
    json_out: Annotated[
        bool,
        typer.Option(
            "--json", help="Write the Book (text and every span layer) as JSON instead of a summary."
        ),
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="With --json: write to this file (atomically) instead of stdout."
        ),
    ] = None,
    max_bytes: Annotated[
        int, typer.Option(help="Refuse files larger than this many bytes.")
    ] = DEFAULT_MAX_BYTES,
) -> None:
    """Load a book and print what fabula found: title, encoding, chapters, paragraphs, sentences, words."""
    book = load_book(book_path, max_bytes=max_bytes)
    if json_out:
        data = book_to_json(book)
        if output is not None:
            write_bytes_atomic(output, data)
        else:
            sys.stdout.buffer.write(data + b"\n")
        return
    table = Table(show_header=False, box=None)
    rows = [
        ("file", str(book_path)),
        ("title", book.meta.title or "(unknown)"),
        ("author", book.meta.author or "(unknown)"),
        ("language", book.meta.language),
        ("format", f"{book.meta.source_format}, {book.meta.encoding}"),
        ("gutenberg boilerplate", "excluded" if book.meta.gutenberg else "none found"),
        ("body", f"characters {book.body.start}-{book.body.end} of {len(book.text)}"),
        (
            "chapters",
            f"{len(book.chapters)}"
            + (
                " (no headings found: synthetic sections)"
                if book.chapters and book.chapters[0].synthetic
                else ""
            ),
        ),
        ("paragraphs", f"{len(book.paragraphs):,}"),
        ("sentences", f"{len(book.sentences):,}"),
        ("tokens", f"{len(book.tokens):,}"),
        ("words", f"{book.word_count:,}"),
        ("characters of text", f"{book.body.end - book.body.start:,}"),
    ]
    for key, value in rows:
        table.add_row(f"[bold]{key}[/bold]", value)
    stdout.print(table)
    if book.chapters:
        first, last = book.chapters[0], book.chapters[-1]
        stdout.print(f"first chapter: {first.title!s}; last chapter: {last.title!s}", markup=False)
