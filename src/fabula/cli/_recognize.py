"""``fabula recognize BOOK "description"`` (which character a description fits, with the passages behind
it) and ``fabula recognize make --pairs FILE BOOK…`` (GANDALF questions from written descriptions)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from fabula._files import write_bytes_atomic
from fabula._words import counted
from fabula.book import DEFAULT_MAX_BYTES
from fabula.cli._app import app, default_command_group, stderr, stdout
from fabula.cli._options import (
    BookArgument,
    ConcurrencyOption,
    GoldCharactersOption,
    JsonOutOption,
    LlmOption,
    MaxBytesOption,
    NoCacheOption,
    StructuredOption,
    TimeoutOption,
    UntilChapterOption,
    UntilOption,
    load_reading,
    open_llm,
    refuse_model_options_without_llm,
)
from fabula.errors import ConfigError, InputError, unused_model
from fabula.llm import DEFAULT_TIMEOUT

recognize_app = typer.Typer(
    cls=default_command_group("ask"),
    help='Character description recognition (GANDALF): `fabula recognize [ask] BOOK "description"` ranks '
    "the characters a description fits (ask is the default command: see fabula recognize ask --help for "
    "its options); `fabula recognize make` builds question files.",
    no_args_is_help=True,
)
app.add_typer(recognize_app, name="recognize")


@recognize_app.command("ask")
def recognize_command(
    book_path: BookArgument,
    description: Annotated[
        str, typer.Argument(metavar="DESCRIPTION", help="What the character is like or does.")
    ],
    method: Annotated[
        str,
        typer.Option(
            "--method",
            metavar="NAME",
            help="evidence, bow-tfidf, best-passage-tfidf, bm25, dense, query-cues, query-only, llm, llm-loglik.",
        ),
    ] = "evidence",
    top: Annotated[int, typer.Option("-k", "--top", min=1, help="How many characters to show.")] = 5,
    candidates: Annotated[
        int, typer.Option("--candidates", min=2, help="Rank the book's N most-mentioned characters.")
    ] = 20,
    passages: Annotated[
        int, typer.Option("--passages", min=0, help="Supporting passages per character.")
    ] = 2,
    gold: GoldCharactersOption = None,
    llm: LlmOption = None,
    no_cache: NoCacheOption = False,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    structured: StructuredOption = "auto",
    concurrency: ConcurrencyOption = None,
    json_out: JsonOutOption = None,
    until: UntilOption = None,
    until_chapter: UntilChapterOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Rank the book's characters by how well DESCRIPTION fits them, with the passages that support each
    (with --until, only what the reader has read so far)."""
    refuse_model_options_without_llm(
        llm, timeout=timeout, no_cache=no_cache, structured=structured, concurrency=concurrency
    )
    from fabula.characters import load_character_list
    from fabula.recognition import (
        METHODS,
        BookIndex,
        Question,
        get_method,
        llm_method_names,
        method_names,
        supporting_passages,
    )

    if not description.strip():  # every character would be "ranked" against nothing
        raise ConfigError("DESCRIPTION is empty: say what the character is like or does")
    model = None
    if llm is not None:
        if method in method_names() and not METHODS.get(method).needs_llm:  # opened, never asked
            raise unused_model(method, llm_method_names())
        model = open_llm(
            llm, no_cache=no_cache, timeout=timeout, structured=structured, concurrency=concurrency
        )
    recognizer = get_method(method, llm=model)
    book = load_reading(book_path, max_bytes=max_bytes, until=until, until_chapter=until_chapter)
    index = BookIndex(book, gold=load_character_list(gold) if gold is not None else None)
    names = [c.name for c in index.main_characters if c.mention_count > 0][:candidates]
    if len(names) < 2:
        where = "the book" if book.until is None else "the text up to the reading position"
        raise InputError(f"fewer than two characters found in {where}", book_path)
    question = Question("cli", book_path.resolve(), "desc2name", description, tuple(names), 0)
    prediction = recognizer.predict(question, index)
    if prediction.scores is not None:
        order = sorted(range(len(names)), key=lambda i: -prediction.scores[i])  # type: ignore[index]
    elif prediction.choice is not None:
        order = [prediction.choice] + [i for i in range(len(names)) if i != prediction.choice]
    else:
        raise InputError(f"the model's answer names no character: {prediction.log.get('raw', '')!r}")
    ranked: list[dict[str, Any]] = []
    for rank, i in enumerate(order[:top], start=1):
        support = supporting_passages(index, names[i], description, passages) if passages else []
        score = prediction.scores[i] if prediction.scores is not None else None
        ranked.append({"rank": rank, "character": names[i], "score": score, "passages": support})
        shown = f"{score:.2f}" if score is not None else "-"
        stdout.print(f"{rank}. {names[i]}  (score {shown})", markup=False)
        for passage in support:
            stdout.print(f"     “{_shorten(passage, 220)}”", markup=False)
    if model is not None:
        stderr.print(model.usage.line(), markup=False)
    if json_out is not None:
        payload = {"book": str(book_path), "description": description, "method": method, "ranked": ranked}
        write_bytes_atomic(json_out, orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


@recognize_app.command("make")
def make_command(
    pairs: Annotated[
        Path,
        typer.Option(
            "--pairs",
            metavar="FILE",
            help="JSONL of {book, character, description, level?}; 'book' names a BOOK by folder name or file stem.",
        ),
    ],
    books: Annotated[list[Path], typer.Argument(metavar="BOOK", help="The books the pairs are about.")],
    out: Annotated[
        Path, typer.Option("-o", "--out", metavar="FILE", help="Where to write the questions (JSONL).")
    ],
    seed: Annotated[int, typer.Option("--seed", help="Seed for distractors and answer positions.")] = 0,
    options: Annotated[int, typer.Option("--options", min=2, help="Options per question.")] = 10,
    candidates: Annotated[
        int,
        typer.Option(
            "--candidates", min=2, help="Draw name distractors from the book's N most-mentioned characters."
        ),
    ] = 20,
    distractors: Annotated[
        str,
        typer.Option(
            "--distractors",
            help="top: name distractors from the --candidates most-mentioned characters (fabula's); paper: from "
            "every named character of the book, as GANDALF draws them.",
        ),
    ] = "top",
    until: UntilOption = None,
    until_chapter: UntilChapterOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Questions of both directions from (character, description) pairs; distractors from the same book
    (its character_info.csv when one is beside it, else fabula's characters; with --until, characters
    the reader has met by then)."""
    from fabula.recognition import candidate_names, load_pairs, make_questions, write_questions

    if distractors not in ("top", "paper"):
        raise ConfigError(f"--distractors must be top or paper, not {distractors!r}", "--distractors")
    loaded = load_pairs(pairs)
    by_name: dict[str, Path] = {}
    for path in books:
        if not path.is_file():
            raise InputError("no such book", path)
        for key in (path.parent.name, path.stem, path.name):
            by_name.setdefault(key, Path(os.path.abspath(path)))
    wanted = {p.book for p in loaded}
    missing = sorted(wanted - set(by_name))
    if missing:
        raise ConfigError(f"the pairs name books not given on the command line: {', '.join(missing)}", pairs)
    chosen = {name: by_name[name] for name in wanted}
    names = {
        name: candidate_names(
            load_reading(path, max_bytes=max_bytes, until=until, until_chapter=until_chapter),
            limit=candidates if distractors == "top" else None,
        )
        for name, path in chosen.items()
    }
    questions = make_questions(loaded, chosen, names, seed=seed, n_options=options)
    write_questions(out, questions)
    stderr.print(
        f"{counted(len(questions), 'question')} from {counted(len(loaded), 'pair')} written to {out}",
        markup=False,
    )
