"""``fabula corpus OUT --to parquet DIR``: the per-book folders of ``fabula analyze -o OUT`` as corpus-wide
tables (books, characters, quotes, mentions) to query with DuckDB or polars (docs/corpus.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fabula._words import counted
from fabula.cli._app import app, stdout
from fabula.cli._progress import StepProgress
from fabula.corpus import write_parquet_tables
from fabula.errors import ConfigError

FORMATS = ("parquet",)


@app.command("corpus")
def corpus_command(
    analyzed: Annotated[
        Path, typer.Argument(metavar="OUT", help="The output folder of fabula analyze -o OUT.")
    ],
    destination: Annotated[
        Path,
        typer.Argument(metavar="DIR", help="Folder for the tables (books, characters, quotes, mentions)."),
    ],
    to: Annotated[
        str, typer.Option("--to", metavar="FORMAT", help="Table format: parquet (needs fabula[corpus]).")
    ] = "parquet",
) -> None:
    """Corpus tables from analysed books: one row per book, character, quotation and mention, each with its
    book_id; columns and types in docs/corpus.md."""
    if to not in FORMATS:
        raise ConfigError(f"unknown table format {to!r}; use one of {', '.join(FORMATS)}", "--to")
    if destination.exists() and not destination.is_dir():
        raise ConfigError("exists and is not a folder", destination)
    with StepProgress("reading books") as progress:
        counts = write_parquet_tables(analyzed, destination, on_book=progress)
    stdout.print(
        f"{counted(counts.books, 'book')}, {counted(counts.characters, 'character')}, "
        f"{counted(counts.quotes, 'quotation')}, {counted(counts.mentions, 'mention')} → "
        f"{destination}/{{books,characters,quotes,mentions}}.parquet",
        markup=False,
        soft_wrap=True,
    )
