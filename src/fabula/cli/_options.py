"""CLI options shared by several subcommands, defined once so every command spells them the same way."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from fabula.book import Book, resolve_position
from fabula.cli._app import stderr
from fabula.quotes import available_methods

BookArgument = Annotated[
    Path, typer.Argument(metavar="BOOK", help="A .txt (any common encoding) or .epub novel.")
]
UntilOption = Annotated[
    str | None,
    typer.Option(
        "--until",
        metavar="POS",
        help="Spoiler-safe: use only the text a reader has read, up to POS (e.g. 45%, chapter:12, or a character offset).",
    ),
]
UntilChapterOption = Annotated[
    int | None,
    typer.Option("--until-chapter", metavar="N", help="Spoiler-safe: use only chapters 1..N."),
]
GoldCharactersOption = Annotated[
    Path | None,
    typer.Option(
        "--gold-characters",
        "--gold",
        metavar="FILE",
        help="Use this character list (PDNC character_info.csv, a name/aliases CSV, or JSON) instead of discovering characters.",
    ),
]
LlmOption = Annotated[
    str | None,
    typer.Option(
        "--llm",
        metavar="SPEC",
        help="Model to use, e.g. openai:gpt-4o-mini, openai:MODEL@http://127.0.0.1:8080/v1, llamacpp:/path/model.gguf.",
    ),
]
NoCacheOption = Annotated[
    bool, typer.Option("--no-cache", help="Do not read or write the LLM response cache.")
]
JsonOutOption = Annotated[
    Path | None, typer.Option("--json", metavar="OUT", help="Also write the results as JSON to OUT.")
]


AttributionMethodOption = Annotated[
    str,
    typer.Option("--method", metavar="NAME", help=f"Attribution method: {', '.join(available_methods())}."),
]
StrategyOption = Annotated[
    str,
    typer.Option(
        "--strategy",
        metavar="first|incremental",
        help="LLM attribution: first prediction wins, or incremental prompting that may revise earlier windows.",
    ),
]


@contextlib.contextmanager
def llm_method_options(llm: str | None, no_cache: bool, strategy: str) -> Iterator[dict[str, Any]]:
    """Options for an LLM-backed method: one model object for the whole run, its usage printed at the end."""
    if llm is None:
        yield {}
        return
    from fabula.llm import get_llm

    model = get_llm(llm, cache=not no_cache)
    try:
        yield {"llm": model, "strategy": strategy}
    finally:
        stderr.print(model.usage.line(), markup=False, highlight=False)
        model.close()


def reading_limit(book: Book, until: str | None, until_chapter: int | None) -> Book:
    """The book as far as the reader has read (the whole book when neither option is given)."""
    offset = resolve_position(book, until, until_chapter=until_chapter)
    return book if offset is None else book.truncated(offset)
