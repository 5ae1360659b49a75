"""`analyze_book`: the whole no-LLM pipeline on one novel — read, quotes, characters, attribution, profiles.

The stages after "read" are the components `fabula.annotation.annotate` runs for the ``profiles`` layer, in
the one declared order (quotes, characters, attribution, profiles), so every other command sees the same
cast. With a reading position the book is cut *before* any component runs, so nothing after the position
can reach any output.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from fabula._version import __version__
from fabula.analysis import Analysis
from fabula.annotation import annotate, plan, result_of
from fabula.book import DEFAULT_MAX_BYTES, Book, Character, load_book, prose_problem, resolve_position
from fabula.describe import read_lines_ahead
from fabula.errors import ConfigError, InputError

if TYPE_CHECKING:
    from fabula.llm import LLM, LLMConfig

STAGES = ("read", "quotes", "characters", "attribution", "profiles")

ProgressCallback = Callable[[str, float | None], None]
"""Called as ``(stage, None)`` when a stage starts and ``(stage, seconds)`` when it ends."""


def analyze_book(
    path_or_book: str | Path | Book,
    *,
    gold_characters: str | Path | list[Character] | None = None,
    until: str | int | None = None,
    until_chapter: int | None = None,
    llm: LLM | LLMConfig | None = None,
    progress: ProgressCallback | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Analysis:
    """Analyse a novel: cast, mentions, quotes with speakers, and per-character statistics.

    ``gold_characters`` (a character-list file or `Character`s) replaces character discovery;
    ``until``/``until_chapter`` limit everything to a reading position (spoiler-safe); ``llm`` (an `LLM`
    object, or an `LLMConfig` from `fabula.llm.parse_llm_spec` that is opened here and closed at the end —
    what a worker process receives) switches attribution to the LLM method. Spec strings are the CLI's to
    parse, never the pipeline's. Raises `fabula.errors.FabulaError` subclasses for bad input.
    """
    timings: dict[str, float] = {}

    @contextmanager
    def stage(name: str) -> Iterator[None]:
        if progress:
            progress(name, None)
        started = time.perf_counter()
        yield
        timings[name] = round(time.perf_counter() - started, 3)
        if progress:
            progress(name, timings[name])

    with ExitStack() as cleanup:
        with stage("read"):
            if isinstance(path_or_book, Book):
                book = path_or_book
            else:
                book = load_book(path_or_book, max_bytes=max_bytes)
                if problem := prose_problem(
                    book
                ):  # pyproject.toml is not a novel: say so, not "0 characters"
                    raise InputError(problem, path_or_book)
            offset = resolve_position(book, until, until_chapter=until_chapter)
            if offset is not None:
                book = book.truncated(offset)
            gold = _gold_list(gold_characters)
            model = _open_llm(llm, cleanup)

        from fabula.quotes import DEFAULT_METHOD

        method = DEFAULT_METHOD if model is None else "llm-windows"  # fabula's own LLM method (no gold)
        # progress=None: the CLI already shows a live display; a second one would clash
        options: dict[str, object] = {} if model is None else {"llm": model, "progress": None}

        def annotation_progress(name: str, seconds: float | None) -> None:
            if seconds is not None:
                timings[name] = seconds
            if name == "characters" and seconds is not None:  # the second core is idle until the ranker forks
                read_lines_ahead(book)
            if progress:
                progress(name, seconds)

        annotate(
            book,
            {"profiles"},
            gold=gold,
            method=method,
            method_options=options,
            progress=annotation_progress,
        )
        profiles, conversations = result_of(book, "profiles")

    settings = {
        "fabula_version": __version__,
        "source": book.meta.source,
        "characters": "gold" if gold is not None else "discovered",
        "gold_characters": str(gold_characters) if isinstance(gold_characters, str | Path) else None,
        "attribution": method,  # the method that ran (the default is the learned ranker)
        "llm": _llm_name(llm),
        "until": None if until is None else str(until),
        "until_chapter": until_chapter,
        "until_offset": book.until,
    }
    return Analysis(book, profiles, conversations, settings, timings)


def prepare_analysis() -> None:
    """Load now what `analyze_book` loads on first use (the annotation components with discovery and the learned
    ranker). ``fabula analyze`` calls it while its book is read in a forked child (`fabula._parallel.start_ahead`):
    time this process would otherwise spend waiting for the book."""
    plan({"profiles"})


def _gold_list(gold: str | Path | list[Character] | None) -> list[Character] | None:
    if gold is None or isinstance(gold, list):
        return gold
    from fabula.characters import load_character_list

    return load_character_list(gold)


def _open_llm(llm: LLM | LLMConfig | None, cleanup: ExitStack) -> LLM | None:
    """The model for attribution (an `LLMConfig` is opened and closed with ``cleanup``), after checking
    that the LLM method exists in this installation."""
    if llm is None:
        return None
    from fabula.llm import LLMConfig
    from fabula.quotes import available_methods

    if "llm-windows" not in available_methods():
        raise ConfigError("LLM quote attribution is not available in this installation of fabula", "--llm")
    if isinstance(llm, LLMConfig):
        model = llm.open()
        cleanup.callback(model.close)
        return model
    return llm


def _llm_name(llm: LLM | LLMConfig | None) -> str | None:
    if llm is None:
        return None
    from fabula.llm import redact_credentials

    return redact_credentials(llm.spec)
