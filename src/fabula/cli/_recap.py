"""``fabula recap BOOK --at POS``: the "previously on..." snippets for a reading position (RECIDENT), and
``fabula recap build BOOK -o FILE``: a recap data file (targets and candidates, no gold) to annotate."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from fabula._files import write_bytes_atomic
from fabula._words import counted
from fabula.book import DEFAULT_MAX_BYTES, resolve_position
from fabula.cli._app import app, default_command_group, stderr, stdout
from fabula.cli._options import (
    BookArgument,
    ConcurrencyOption,
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
from fabula.errors import BackendError, ConfigError, unused_model
from fabula.llm import DEFAULT_TIMEOUT

recap_app = typer.Typer(
    cls=default_command_group("show"),
    help="Recap snippets: which earlier passages the passage at a reading position follows from (RECIDENT). `fabula recap BOOK --at POS` shows them; `fabula recap build BOOK -o FILE` writes targets to annotate.",
    no_args_is_help=True,
)
app.add_typer(recap_app, name="recap")

W_OPTION = Annotated[int, typer.Option("--w", min=1, help="Sentences per target (the paper's w: 7, or 10).")]
CANDIDATE_W_OPTION = Annotated[
    int,
    typer.Option(
        "--candidate-w", min=1, help="Sentences per candidate snippet (the paper: 6, or 10 with w 10)."
    ),
]
CANDIDATES_OPTION = Annotated[
    int, typer.Option("--candidates", min=1, help="Candidate snippets before each target (the paper: 60).")
]


def _method_help() -> str:
    from fabula.recap import ranker_names

    return f"Ranker: {', '.join(ranker_names())} (llm-* and pipeline: RECIDENT's LLM methods, need --llm)."


@recap_app.command("show")
def show_command(
    book_path: BookArgument,
    at: Annotated[
        str | None,
        typer.Option(
            "--at",
            "--until",
            metavar="POS",
            help="Reading position: a percentage (45%), chapter:N (its end) or a character offset.",
        ),
    ] = None,
    until_chapter: UntilChapterOption = None,
    k: Annotated[int, typer.Option("-k", "--top", min=1, help="How many snippets.")] = 5,
    method: Annotated[str, typer.Option("--method", metavar="NAME", help=_method_help())] = "reach-back",
    llm: LlmOption = None,
    no_cache: NoCacheOption = False,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    structured: StructuredOption = "auto",
    concurrency: ConcurrencyOption = None,
    w: W_OPTION = 7,
    candidate_w: CANDIDATE_W_OPTION = 6,
    candidates: CANDIDATES_OPTION = 60,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Print the recap snippets for a reader at POS (--at or --until; --until-chapter N: the end of
    chapter N): chapter, offsets and text, best first. Nothing at or after POS is ever used or shown."""
    refuse_model_options_without_llm(
        llm, timeout=timeout, no_cache=no_cache, structured=structured, concurrency=concurrency
    )
    from fabula.llm import redact_credentials
    from fabula.recap import LLM_METHODS, RecapSpec, create_ranker, ranker_needs_llm, recap

    if at is None and until_chapter is None:
        raise ConfigError(
            "say where the reader is: --at POS (45%, chapter:12, an offset) or --until-chapter N"
        )
    book = load_reading(book_path, max_bytes=max_bytes)
    position = resolve_position(book, at, until_chapter=until_chapter)
    assert position is not None
    model = None
    if llm is not None:
        if not ranker_needs_llm(method):  # it was ignored without a word
            raise unused_model(method, LLM_METHODS)
        model = open_llm(
            llm, no_cache=no_cache, timeout=timeout, structured=structured, concurrency=concurrency
        )
    else:
        create_ranker(method)  # a clear error: unknown method, or one that needs --llm
    try:
        result = recap(
            book,
            position,
            k=k,
            method=method,
            spec=RecapSpec(w=w, candidate_w=candidate_w, n_candidates=candidates),
            llm=model,
        )
    finally:
        if model is not None:
            stderr.print(model.usage.line(), markup=False, highlight=False)
            model.close()
    log = result.log
    if not result.snippets and log.get("unreadable"):  # it said "No earlier passage to recap.", exit 0
        errors = log.get("errors") or [log.get("error") or "unreadable"]
        raise BackendError(
            f"{log['unreadable']} of the model's answers could not be read (e.g. {errors[0]}): no recap",
            redact_credentials(llm) if llm is not None else method,
        )
    # the chapter the reader is in (the passage just read may begin in the chapter before: its own
    # chapter is the target's)
    chapter = book.chapter_at(max(book.body.start, position - 1))
    if as_json:
        reader = {"position_chapter": chapter.id + 1 if chapter is not None else None}
        stdout.print(
            orjson.dumps({"book": str(book_path), **reader, **result.to_dict()}).decode(),
            markup=False,
            soft_wrap=True,
        )
        return
    t = result.target
    where = f"chapter {chapter.id + 1}" if chapter is not None else "before the first chapter"
    stdout.print(f"Reading position {position} ({where}); the passage just read:", markup=False)
    stdout.print(f"  [{t.start}-{t.end}] {t.text}\n", markup=False, soft_wrap=True)
    if not result.snippets:
        stdout.print("No earlier passage to recap.", markup=False)
    for rank, s in enumerate(result.snippets, start=1):
        stdout.print(
            f"{rank}. {f'chapter {s.chapter}' if s.chapter is not None else 'before chapter 1'} "
            f"[{s.start}-{s.end}] (distance {s.distance}, score {s.score:.3f})",
            markup=False,
        )
        stdout.print(f"   {s.text}", markup=False, soft_wrap=True)


@recap_app.command("build")
def build_command(
    book_path: BookArgument,
    output: Annotated[Path, typer.Option("-o", "--output", metavar="FILE", help="The JSONL file to write.")],
    targets: Annotated[
        int, typer.Option("--targets", min=1, help="How many targets (around main characters' sentences).")
    ] = 30,
    w: W_OPTION = 7,
    candidate_w: CANDIDATE_W_OPTION = 6,
    candidates: CANDIDATES_OPTION = 60,
    min_mentions: Annotated[
        int,
        typer.Option(
            "--min-mentions",
            min=0,
            help="Main characters are those named more than this many times (the paper: 100).",
        ),
    ] = 100,
    seed: Annotated[int, typer.Option("--seed", help="Seed for sampling targets and gaps.")] = 0,
    until: UntilOption = None,
    until_chapter: UntilChapterOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Write a recap data file for BOOK as RECIDENT builds one: targets around sentences naming a main
    character (named more than --min-mentions times), sampled evenly from the longest non-overlapping
    run, each with 60 candidates ending 10-20 sentences before its central sentence (no gold: annotate
    it, then `fabula eval recap --data FILE`).
    With --until, only the text before POS is used."""
    from fabula.recap import RecapSpec, sample_targets, write_targets

    book = load_reading(book_path, max_bytes=max_bytes, until=until, until_chapter=until_chapter)
    spec = RecapSpec(w=w, candidate_w=candidate_w, n_candidates=candidates, seed=seed)
    found = sample_targets(book, targets, spec, min_mentions=min_mentions)
    if not found:
        raise ConfigError("the book is too short for a full set of candidates before any target", book_path)
    book_ref = str(book_path.resolve())
    count = write_targets(output, found, book_ref)
    stderr.print(f"wrote {counted(count, 'target')} to {output}", markup=False)


def _write_json(path: Path, payload: dict[str, Any]) -> None:
    write_bytes_atomic(path, orjson.dumps(payload, option=orjson.OPT_INDENT_2))


_ = JsonOutOption
