"""CLI options shared by several subcommands, defined once so every command spells them the same way."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from fabula.book import (
    DEFAULT_MAX_BYTES,
    MAX_BYTES_OPTION,
    Book,
    format_size,
    load_book,
    prose_problem,
    resolve_position,
)
from fabula.cli._app import stderr
from fabula.errors import ConfigError, InputError, unused_model
from fabula.llm import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from fabula.llm import LLM

EngineOption = Annotated[
    str,
    typer.Option(
        "--engine",
        metavar="local|ray",
        help="Where the work runs: here (local), or as Ray tasks, one per book or novel (ray; needs fabula[ray]).",
    ),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        metavar="ADDR",
        help="With --engine ray: an existing Ray cluster (e.g. ray://head:10001 or auto); default: start one here.",
    ),
]
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
MaxBytesOption = Annotated[
    int,
    typer.Option(
        MAX_BYTES_OPTION,
        min=1,
        metavar="N",
        help=f"Refuse book files larger than N bytes (default {DEFAULT_MAX_BYTES:,}, {format_size(DEFAULT_MAX_BYTES)}).",
        show_default=False,
    ),
]
GoldCharactersOption = Annotated[
    Path | None,
    typer.Option(
        "--gold-characters",
        "--gold",
        metavar="FILE",
        help='Use this character list (PDNC character_info.csv, a name/aliases CSV, or JSON) instead of discovering characters; a listed person is also found under the names the book joins to the listed ones ("Nora" of a list\'s "Miss Penrose").',
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
TimeoutOption = Annotated[
    float,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        min=1.0,
        help="Seconds one LLM request may take in all (however slowly the server answers) before it is retried (once); each retry is reported on stderr.",
    ),
]
StructuredOption = Annotated[
    str,
    typer.Option(
        "--structured",
        metavar="auto|schema|json|off",
        help="How JSON answers are asked for: auto (the strongest mode the server accepts, falling back once on a rejection, said on stderr), schema (a JSON Schema), json (a JSON object), off (the prompt only; answers parsed strictly).",
    ),
]
ConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        metavar="N",
        min=1,
        help="LLM requests at once (default 4; one at a time once a server is seen to queue them, and always for in-process models).",
    ),
]
NoCacheOption = Annotated[
    bool, typer.Option("--no-cache", help="Do not read or write the LLM response cache.")
]
JsonOutOption = Annotated[
    Path | None, typer.Option("--json", metavar="OUT", help="Also write the results as JSON to OUT.")
]


StrategyOption = Annotated[
    str | None,
    typer.Option(
        "--strategy",
        metavar="first|normal|incremental",
        help="LLM attribution: a quote's first prediction wins (first; the paper's 'normal'), or incremental "
        "prompting that may revise earlier chunks. Default: incremental for --method llm (the paper's), "
        "first for llm-windows and hybrid.",
    ),
]


def open_llm(
    spec: str,
    *,
    no_cache: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    structured: str = "auto",
    concurrency: int | None = None,
    cache: bool | Path | None = None,
) -> LLM:
    """The model an LLM command's options ask for (``--llm``, ``--no-cache``, ``--timeout``,
    ``--structured``, ``--concurrency``): one place, so every command opens it the same way."""
    from fabula.llm import get_llm

    extra: dict[str, Any] = {} if concurrency is None else {"concurrency": concurrency}
    return get_llm(
        spec,
        cache=(not no_cache) if cache is None else cache,
        timeout=timeout,
        structured=structured,
        **extra,
    )


@contextlib.contextmanager
def llm_method_options(
    llm: str | None,
    no_cache: bool,
    strategy: str | None,
    timeout: float = DEFAULT_TIMEOUT,
    structured: str = "auto",
    concurrency: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Options for an LLM-backed method: one model object for the whole run, its usage printed at the end
    (also when the run fails or is interrupted, so the user sees what was spent and what is cached)."""
    if llm is None:
        yield {}
        return
    model = open_llm(llm, no_cache=no_cache, timeout=timeout, structured=structured, concurrency=concurrency)
    try:
        yield {"llm": model} if strategy is None else {"llm": model, "strategy": strategy}
    finally:
        stderr.print(model.usage.line(), markup=False, highlight=False)
        model.close()


def refuse_model_options_without_llm(
    llm: str | None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    no_cache: bool = False,
    structured: str = "auto",
    concurrency: int | None = None,
) -> None:
    """Refuse the model's options (``--timeout``, ``--no-cache``, ``--structured``, ``--concurrency``) given
    without ``--llm``: no model reads them then, and a run that ignored them looked as if they applied.
    ``concurrency`` is None for commands where it also means something without a model (`fabula eval`)."""
    if llm is not None:
        return
    given = [
        name
        for name, set_ in (
            ("--timeout", timeout != DEFAULT_TIMEOUT),
            ("--no-cache", no_cache),
            ("--structured", structured != "auto"),
            ("--concurrency", concurrency is not None),
        )
        if set_
    ]
    if given:
        raise ConfigError(f"{given[0]} sets the model's requests: give --llm SPEC, or leave it out", given[0])


def require_model(method: str, llm: str | None, strategy: str | None = None) -> None:
    """Fail before any work when an LLM-backed attribution method is chosen without a model, or a model
    (or an LLM ``--strategy``) is given to a method that takes none (it was a TypeError traceback)."""
    from fabula.quotes import LLM_METHODS, available_methods

    if method not in LLM_METHODS:
        given = "--llm" if llm is not None else "--strategy" if strategy is not None else None
        if given is not None and method in available_methods():
            raise unused_model(method, LLM_METHODS, given)
        return
    if llm is None:
        raise ConfigError(
            f"the {method} attribution method needs a model: pass --llm SPEC "
            "(e.g. --llm openai:MODEL@http://127.0.0.1:8080/v1 or --llm llamacpp:/path/model.gguf), "
            "or choose --method ranker (the default, no LLM)",
            "--method",
        )


def load_reading(
    book_path: Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    until: str | None = None,
    until_chapter: int | None = None,
    prose: bool = True,
) -> Book:
    """Load a book for a content command: refuse what is not prose, then cut it at the reading position."""
    book = load_book(book_path, max_bytes=max_bytes)
    if prose and (problem := prose_problem(book)):
        raise InputError(problem, book_path)
    return reading_limit(book, until, until_chapter)


def chapter_number(book: Book, offset: int | None) -> int | None:
    """The number people see for the chapter at ``offset``: 1-based, as ``read --chapters`` and
    ``--until-chapter`` count (``Chapter.id`` is the 0-based index into ``book.chapters``)."""
    chapter = book.chapter_at(offset) if offset is not None else None
    return chapter.id + 1 if chapter is not None else None


def reading_limit(book: Book, until: str | None, until_chapter: int | None) -> Book:
    """The book as far as the reader has read (the whole book when neither option is given)."""
    offset = resolve_position(book, until, until_chapter=until_chapter)
    return book if offset is None else book.truncated(offset)
