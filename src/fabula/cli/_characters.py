"""``fabula characters BOOK``: the cast of a novel (discovered or from a gold list) as a table or JSON."""

from __future__ import annotations

import sys
from collections import Counter
from typing import Annotated, Any

import orjson
import typer
from rich.table import Table

from fabula.annotation import annotate
from fabula.book import DEFAULT_MAX_BYTES, Book, Character
from fabula.characters import SET_ASIDE_REASON, load_character_list, set_aside_list, shown_aliases
from fabula.cli._app import app, stdout
from fabula.cli._options import (
    BookArgument,
    GoldCharactersOption,
    MaxBytesOption,
    UntilChapterOption,
    UntilOption,
    chapter_number,
    load_reading,
)
from fabula.errors import ConfigError


@app.command("characters")
def characters_command(
    book_path: BookArgument,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the cast (and mention counts) as JSON instead of a table.")
    ] = False,
    gold_characters: GoldCharactersOption = None,
    until: UntilOption = None,
    until_chapter: UntilChapterOption = None,
    ner_model: Annotated[
        str | None,
        typer.Option(
            "--ner-model",
            metavar="NAME",
            help="A spaCy pipeline (installed package name or path) whose PERSON entities add evidence.",
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, help="Show at most this many characters in the table.")
    ] = 40,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """List the characters of a novel: rank, name, aliases, gender, mentions, first appearance.

    Discovered names the book never once shows as a person (a place, a book) are set aside, out of the
    cast: named under the table, listed with the reason under "set_aside" in --json."""
    if gold_characters is not None and ner_model is not None:  # refused, not dropped
        raise ConfigError(
            "only character discovery reads it; with --gold-characters the given list is matched",
            "--ner-model",
        )
    gold = load_character_list(gold_characters) if gold_characters is not None else None
    book = load_reading(book_path, max_bytes=max_bytes, until=until, until_chapter=until_chapter)
    annotate(book, {"characters"}, gold=gold, ner_model=ner_model)
    cast = sorted(book.characters, key=lambda c: c.rank)
    if json_out:
        payload = {
            "book": str(book_path),
            "until": book.until,
            "characters": [_character_json(book, c) for c in cast],
            "set_aside": [{**_character_json(book, c), "reason": SET_ASIDE_REASON} for c in book.set_aside],
        }
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
        return
    if not cast:
        stdout.print(
            "No characters found"
            + (" in the text up to the reading position." if book.until is not None else ".")
        )
        return
    names = Counter(m.character_id for m in book.mentions if m.kind != "pronoun")
    table = Table(title=f"Characters of {book.meta.title or book_path.name}" + _until_note(book))
    for column, justify in [
        ("rank", "right"),
        ("name", "left"),
        ("aliases", "left"),
        ("gender", "left"),
        ("mentions", "right"),
        ("names", "right"),
        ("first chapter", "right"),
    ]:
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for character in cast[:limit]:
        aliases = shown_aliases(character.name, character.aliases)
        chapter = chapter_number(book, character.first)
        table.add_row(
            str(character.rank),
            character.name,
            ", ".join(aliases[:6]) + (" …" if len(aliases) > 6 else ""),
            character.gender if character.gender_confidence >= 0.5 else f"{character.gender}?",
            str(character.mention_count),
            str(names[character.id]),
            str(chapter) if chapter is not None else "–",
        )
    stdout.print(table)
    if len(cast) > limit:
        stdout.print(f"… and {len(cast) - limit} more (use --limit or --json)")
    if book.set_aside:
        stdout.print(
            f"Set aside, {SET_ASIDE_REASON}: {set_aside_list(book)} (--json lists them)", highlight=False
        )


def _until_note(book: Book) -> str:
    return f" (up to offset {book.until})" if book.until is not None else ""


def _character_json(book: Book, character: Character) -> dict[str, Any]:
    return {
        "id": character.id,
        "name": character.name,
        "aliases": character.aliases,
        "gender": character.gender,
        "gender_confidence": character.gender_confidence,
        "mention_count": character.mention_count,
        "first": character.first,
        "last": character.last,
        "first_chapter": chapter_number(book, character.first),
        "rank": character.rank,
        "source": character.source,
        "category": character.category,
    }
