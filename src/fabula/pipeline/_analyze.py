"""`analyze_book`: the whole no-LLM pipeline on one novel — read, quotes, characters, attribution, profiles.

The stage order is the one the components agree on: quotes are detected first so that character discovery
can skip pronouns inside quotations, and attribution needs both. With a reading position the book is cut
*before* any component runs, so nothing after the position can reach any output.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fabula._version import __version__
from fabula.book import Book, Character, load_book, resolve_position
from fabula.errors import ConfigError
from fabula.pipeline._model import Analysis
from fabula.pipeline._profiles import build_profiles, hide_unseen_names

STAGES = ("read", "quotes", "characters", "attribution", "profiles")

ProgressCallback = Callable[[str, float | None], None]
"""Called as ``(stage, None)`` when a stage starts and ``(stage, seconds)`` when it ends."""


def analyze_book(
    path_or_book: str | Path | Book,
    *,
    gold_characters: str | Path | list[Character] | None = None,
    until: str | int | None = None,
    until_chapter: int | None = None,
    llm: Any = None,
    progress: ProgressCallback | None = None,
) -> Analysis:
    """Analyse a novel: cast, mentions, quotes with speakers, and per-character statistics.

    ``gold_characters`` (a character-list file or `Character`s) replaces character discovery;
    ``until``/``until_chapter`` limit everything to a reading position (spoiler-safe); ``llm`` (a spec string
    such as ``openai:gpt-4o-mini`` or an object from `fabula.llm.get_llm`) switches attribution to the LLM
    method. Raises `fabula.errors.FabulaError` subclasses for bad input.
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

    with stage("read"):
        book = path_or_book if isinstance(path_or_book, Book) else load_book(path_or_book)
        offset = resolve_position(book, until, until_chapter=until_chapter)
        if offset is not None:
            book = book.truncated(offset)
        gold = _gold_list(gold_characters)
        model = _resolve_llm(llm)

    from fabula.characters import find_characters
    from fabula.quotes import attribute_quotes, detect_quotes

    with stage("quotes"):
        detect_quotes(book)
    with stage("characters"):
        find_characters(book, gold=gold)
    with stage("attribution"):
        if model is None:
            attribute_quotes(book)  # the default method (the learned ranker)
        else:  # progress=None: the CLI already shows a live display; a second one would clash
            attribute_quotes(book, method="llm", llm=model, progress=None)
    with stage("profiles"):
        if book.until is not None:
            hide_unseen_names(book)
        profiles, conversations = build_profiles(book)

    settings = {
        "fabula_version": __version__,
        "source": book.meta.source,
        "characters": "gold" if gold is not None else "discovered",
        "gold_characters": str(gold_characters) if isinstance(gold_characters, str | Path) else None,
        "attribution": "llm" if model is not None else "rules",
        "llm": _llm_name(llm, model),
        "until": None if until is None else str(until),
        "until_chapter": until_chapter,
        "until_offset": book.until,
    }
    return Analysis(book, profiles, conversations, settings, timings)


def _gold_list(gold: str | Path | list[Character] | None) -> list[Character] | None:
    if gold is None or isinstance(gold, list):
        return gold
    from fabula.characters import load_character_list

    return load_character_list(gold)


def _resolve_llm(llm: Any) -> Any:
    """The model (a spec string or an LLM object) for attribution, after checking the LLM method exists."""
    if llm is None:
        return None
    from fabula.quotes import available_methods

    if "llm" not in available_methods():
        raise ConfigError("LLM quote attribution is not available in this installation of fabula", "--llm")
    return llm  # a spec is opened by the method itself, with its response cache


def redacted_spec(spec: str) -> str:
    """An LLM spec safe to record: credentials written into a server URL (``//user:key@host``) removed."""
    return re.sub(r"//[^/@\s]+@", "//", spec)


def _llm_name(spec: Any, model: Any) -> str | None:
    if model is None:
        return None
    if isinstance(spec, str):
        return redacted_spec(spec)
    return str(getattr(model, "name", None) or getattr(model, "model", None) or type(model).__name__)
