"""``fabula anonymize BOOK -o DIR``: the book with its characters renamed (GANDALF), the mapping, and
question files mapped the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fabula._files import check_output_path, write_text_atomic
from fabula._words import counted
from fabula.book import DEFAULT_MAX_BYTES
from fabula.cli._app import app, stderr
from fabula.cli._options import BookArgument, MaxBytesOption, UntilChapterOption, UntilOption, load_reading


@app.command("anonymize")
def anonymize_command(
    book_path: BookArgument,
    out: Annotated[
        Path,
        typer.Option("-o", "--out", metavar="DIR", help="Folder for the new book, mapping and questions."),
    ],
    seed: Annotated[int, typer.Option("--seed", help="Seed for drawing the new names.")] = 0,
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="census (fabula's: drawn gender-matched names), rep (GANDALF's -Rep: the cast's own names "
            "shuffled, first and last names separately), swap-gender, all-female, all-male (the paper's probes).",
        ),
    ] = "census",
    characters: Annotated[
        Path | None,
        typer.Option(
            "--characters",
            metavar="FILE",
            help="Rename the characters of this list (PDNC character_info.csv, CSV or JSON) instead of fabula's.",
        ),
    ] = None,
    questions: Annotated[
        list[Path] | None,
        typer.Option(
            "--questions", metavar="FILE", help="A question file about this book to map too; repeatable."
        ),
    ] = None,
    allow_remaining: Annotated[
        bool,
        typer.Option(
            "--allow-remaining",
            help="Write the output even when cast names remain in it (they are still reported).",
        ),
    ] = False,
    until: UntilOption = None,
    until_chapter: UntilChapterOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Replace every unambiguous first name and surname of the book's characters, consistently and
    gender-matched, with names that never occur in the book; write BOOK.txt and BOOK.mapping.json to DIR
    (with --until, the text up to that point only). Any cast name still standing where it names a person in
    the output is reported, and then nothing is written (the command fails) unless --allow-remaining.

    Names discovery sets aside as never shown as a person (`fabula characters` lists them under its table)
    are no characters: they stay as written."""
    from fabula.anonymize import anonymize_book, remaining_names
    from fabula.characters import load_character_list
    from fabula.errors import InputError
    from fabula.recognition import load_questions, map_question, write_questions

    check_output_path(out, folder=True)  # before the work: "DIR/BOOK.txt: cannot write here (File exists)"
    loaded_questions = [(path, load_questions(path)) for path in questions or []]
    book = load_reading(book_path, max_bytes=max_bytes, until=until, until_chapter=until_chapter)
    cast = load_character_list(characters) if characters is not None else None
    text, mapping = anonymize_book(book, cast, seed=seed, mode=mode)
    if mode != "rep":  # -Rep gives the cast's own names back by design
        end = book.body.end + len(text) - len(book.text)
        remaining = remaining_names(text, cast if cast is not None else book.characters, book.body.start, end)
        if remaining:
            listed = ", ".join(f"{name} ×{count}" for name, count in remaining.most_common(10))
            problem = f"{counted(sum(remaining.values()), 'use')} of {counted(len(remaining), 'cast name')} remain in the output: {listed}"
            if not allow_remaining:
                raise InputError(
                    f"{problem}; nothing written (--allow-remaining writes it anyway)", book_path
                )
            stderr.print(f"warning: {problem}", markup=False)
    stem = book_path.parent.name if book_path.stem == "novel_text" else book_path.stem
    new_book = out / f"{stem}.txt"
    write_text_atomic(new_book, text)
    mapping.save(out / f"{stem}.mapping.json")
    for path, items in loaded_questions:
        target = book_path.resolve()
        mapped = [map_question(q, mapping, new_book.resolve()) if q.book == target else q for q in items]
        write_questions(out / path.name, mapped)
    stderr.print(
        f"{counted(len(mapping.names), 'name')} replaced; wrote {new_book} and {out / f'{stem}.mapping.json'}"
        + (f" and {counted(len(loaded_questions), 'question file')}" if loaded_questions else ""),
        markup=False,
    )
