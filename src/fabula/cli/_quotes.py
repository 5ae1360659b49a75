"""``fabula quotes BOOK``: detect the quotations of a novel and say who speaks each one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from fabula._files import check_output_path
from fabula._words import counted
from fabula.annotation import annotate
from fabula.book import DEFAULT_MAX_BYTES
from fabula.characters import load_character_list
from fabula.cli._app import app, stderr
from fabula.cli._options import (
    BookArgument,
    ConcurrencyOption,
    GoldCharactersOption,
    LlmOption,
    MaxBytesOption,
    NoCacheOption,
    StrategyOption,
    StructuredOption,
    TimeoutOption,
    UntilChapterOption,
    UntilOption,
    llm_method_options,
    load_reading,
    refuse_model_options_without_llm,
    require_model,
)
from fabula.errors import InputError
from fabula.llm import DEFAULT_TIMEOUT
from fabula.quotes import (
    DEFAULT_METHOD,
    QuoteFormat,
    available_methods,
    quotes_bytes,
    write_quotes,
)

# listing the methods imports the LLM ones, so this option lives with the one command that offers them
AttributionMethodOption = Annotated[
    str,
    typer.Option("--method", metavar="NAME", help=f"Attribution method: {', '.join(available_methods())}."),
]


@app.command("quotes")
def quotes_command(
    book_path: BookArgument,
    gold_characters: GoldCharactersOption = None,
    output_format: Annotated[
        str,
        typer.Option(
            "--format", metavar="jsonl|tsv", help="jsonl (one record a line) or tsv (BookNLP .quotes layout)."
        ),
    ] = "jsonl",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", metavar="OUT", help="Write to OUT (atomically) instead of stdout."),
    ] = None,
    method: AttributionMethodOption = DEFAULT_METHOD,
    llm: LlmOption = None,
    strategy: StrategyOption = None,
    no_cache: NoCacheOption = False,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    structured: StructuredOption = "auto",
    concurrency: ConcurrencyOption = None,
    until: UntilOption = None,
    until_chapter: UntilChapterOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Find every quotation and its speaker, addressees, type (explicit/anaphoric/implicit) and confidence."""
    refuse_model_options_without_llm(
        llm, timeout=timeout, no_cache=no_cache, structured=structured, concurrency=concurrency
    )
    if output_format not in ("jsonl", "tsv"):
        raise InputError(f"unknown format {output_format!r} (use jsonl or tsv)", "--format")
    fmt: QuoteFormat = "jsonl" if output_format == "jsonl" else "tsv"
    require_model(method, llm, strategy)
    if output is not None:
        check_output_path(output)
    gold = load_character_list(gold_characters) if gold_characters is not None else None
    book = load_reading(book_path, max_bytes=max_bytes, until=until, until_chapter=until_chapter)
    with llm_method_options(llm, no_cache, strategy, timeout, structured, concurrency) as options:
        annotate(book, {"speakers"}, gold=gold, method=method, method_options=options)
    if output is not None:
        write_quotes(book, output, format=fmt)
        stderr.print(
            f"{counted(len(book.quotes), 'quote')} written to {output}", markup=False, highlight=False
        )
        return
    sys.stdout.buffer.write(quotes_bytes(book, fmt))
