"""``fabula describe BOOK CHARACTER…``: character sheets (no LLM) and LLM descriptions or analyses."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import orjson
import typer

from fabula.book import DEFAULT_MAX_BYTES
from fabula.cli._app import app, stderr, stdout
from fabula.cli._options import (
    BookArgument,
    ConcurrencyOption,
    GoldCharactersOption,
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
from fabula.describe import CONTEXTS, DEFAULT_BUDGET, KINDS, extractive_methods
from fabula.errors import ConfigError
from fabula.llm import DEFAULT_TIMEOUT


@app.command("describe")
def describe_command(
    ctx: typer.Context,
    book_path: BookArgument,
    names: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="CHARACTER...", help="Characters by any name or alias ('Lizzy').", show_default=False
        ),
    ] = None,
    all_characters: Annotated[bool, typer.Option("--all", help="Describe every main character.")] = False,
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            metavar="description|analysis",
            help="Short profile (~90 words, k=4 sentences) or in-depth analysis (~600 words, k=25).",
        ),
    ] = "description",
    method: Annotated[
        str,
        typer.Option(
            "--method",
            metavar="NAME",
            help=f"Extractive method without an LLM: {', '.join(extractive_methods())}.",
        ),
    ] = "lead",
    k: Annotated[
        int | None,
        typer.Option(
            "--k",
            metavar="N",
            min=1,
            help="Sentences in the extractive text (default 4 or 25 by --kind).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random method.")] = 0,
    llm: LlmOption = None,
    context: Annotated[
        str,
        typer.Option(
            "--context",
            metavar="|".join(CONTEXTS[:4]),
            help="What the LLM reads: the book's first tokens, BM25 passages for the names, passages mentioning the character, or map-reduce notes on the whole book.",
        ),
    ] = "mentions",
    budget: Annotated[
        int,
        typer.Option(
            "--budget",
            metavar="TOKENS",
            help="Context size in the model's tokens (hierarchical: the chunk size).",
        ),
    ] = DEFAULT_BUDGET,
    joint: Annotated[
        bool,
        typer.Option(
            "--joint",
            help="Describe up to 5 characters per LLM call (one at a time where the answer breaks the format).",
        ),
    ] = False,
    with_cast: Annotated[
        bool, typer.Option("--with-cast", help="Name the other main characters in each prompt.")
    ] = False,
    cite: Annotated[
        bool,
        typer.Option("--cite", help="Number the passages and make each sentence carry the ids it rests on."),
    ] = False,
    no_context: Annotated[
        bool,
        typer.Option(
            "--no-context",
            help="Give the LLM only the title, author and name (what the model already knows).",
        ),
    ] = False,
    protocol: Annotated[
        str,
        typer.Option(
            "--protocol",
            metavar="fabula|bookworm",
            help="With --llm: fabula's own prompts (default), or BookWorm's zero-shot protocol (the authors' released prompts, temperature 0.4, 110 new tokens, contexts cut at 7,600 tokens; --context lead|bm25|coref|hierarchical, mentions = coref).",
        ),
    ] = "fabula",
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
    gold_characters: GoldCharactersOption = None,
    until: UntilOption = None,
    until_chapter: UntilChapterOption = None,
    no_cache: NoCacheOption = False,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    structured: StructuredOption = "auto",
    concurrency: ConcurrencyOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Describe characters: a sheet from the book (names, gender, first appearance, counts, partners,
    characteristic lines, extractive description); with --llm a generated description or analysis."""
    refuse_model_options_without_llm(
        llm, timeout=timeout, no_cache=no_cache, structured=structured, concurrency=concurrency
    )
    from fabula.describe import character_sheet, find_profile, main_characters
    from fabula.pipeline import analyze_book

    if kind not in KINDS:
        raise ConfigError(f"unknown kind {kind!r} (choose from {', '.join(KINDS)})", "--kind")
    if llm is None:
        _refuse_llm_options_without_a_model(ctx)
    if protocol not in ("fabula", "bookworm"):
        raise ConfigError(f"unknown protocol {protocol!r} (choose from fabula, bookworm)", "--protocol")
    if protocol == "bookworm":
        from fabula.describe import BOOKWORM_CONTEXTS

        context = "coref" if context == "mentions" else context
        if context not in BOOKWORM_CONTEXTS:
            raise ConfigError(
                f"unknown BookWorm context {context!r} (choose from {', '.join(BOOKWORM_CONTEXTS)})",
                "--context",
            )
    elif context not in CONTEXTS[:4]:
        raise ConfigError(f"unknown context {context!r} (choose from {', '.join(CONTEXTS[:4])})", "--context")
    if method not in extractive_methods():
        raise ConfigError(
            f"unknown method {method!r} (choose from {', '.join(extractive_methods())})", "--method"
        )
    if not names and not all_characters:
        raise ConfigError("name at least one CHARACTER, or use --all", "describe")
    book = load_reading(book_path, max_bytes=max_bytes, until=until, until_chapter=until_chapter)
    analysis = analyze_book(book, gold_characters=gold_characters)
    profiles = main_characters(analysis.characters) if all_characters else []
    for name in names or []:
        profile = find_profile(analysis, name)
        if all(p.id != profile.id for p in profiles):
            profiles.append(profile)
    sheets = [character_sheet(analysis, p, kind=kind, method=method, k=k, seed=seed) for p in profiles]
    generated: dict[str, dict[str, Any]] = {}
    usage = None
    if llm is not None:
        from fabula.describe import describe_characters

        model = open_llm(
            llm, no_cache=no_cache, timeout=timeout, structured=structured, concurrency=concurrency
        )
        try:
            book = analysis.book
            wanted = [c for p in profiles for c in book.characters if c.id == p.id]
            cast = [c for p in main_characters(analysis.characters) for c in book.characters if c.id == p.id]
            if protocol == "bookworm":
                from fabula.describe import bookworm_describe

                outputs = bookworm_describe(book, [c.name for c in wanted], model, kind=kind, context=context)
                generated = {
                    c.id: {**o.to_dict(), "sentences": [], "passages": []}
                    for c, o in zip(wanted, outputs, strict=True)
                }
            else:
                results = describe_characters(
                    book,
                    wanted,
                    model,
                    kind=kind,
                    context="none" if no_context else context,
                    budget=budget,
                    joint=joint,
                    cast=cast if with_cast else None,
                    cite=cite,
                    progress=None if json_out else f"{kind}s",
                )
                generated = {r.character_id: r.to_dict() for r in results}
            usage = model.usage
        finally:
            model.close()
    if json_out:
        payload = {
            "book": str(book_path),
            "until": analysis.book.until,
            "kind": kind,
            "method": method,
            "llm": analysis.settings.get("llm") if llm is None else _redacted(llm),
            "characters": [{**s.to_dict(), "generated": generated.get(s.id)} for s in sheets],
        }
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        if not sheets:  # --all on a book (or a stretch of one) without main characters printed nothing
            where = "" if analysis.book.until is None else " in the text up to the reading position"
            stdout.print(f"No main characters found{where}.", markup=False, highlight=False)
        for sheet in sheets:
            stdout.print(sheet.text(), markup=False, highlight=False)
            result = generated.get(sheet.id)
            if result is not None:
                label = f"  {kind} by the LLM ({'no context' if no_context else context}{', BookWorm protocol' if protocol == 'bookworm' else ''})"
                if result["error"]:
                    stdout.print(f"{label}: failed: {result['error']}", markup=False, highlight=False)
                elif cite and result["sentences"]:
                    stdout.print(f"{label}:", markup=False, highlight=False)
                    for sentence in result["sentences"]:
                        where = ", ".join(_where(result, i) for i in sentence["passages"]) or "no passage"
                        stdout.print(f"    {sentence['text']} [{where}]", markup=False, highlight=False)
                else:
                    stdout.print(f"{label}:\n    {result['text']}", markup=False, highlight=False)
            stdout.print("")
    if usage is not None:
        stderr.print(usage.line(), markup=False, highlight=False)


def _where(result: dict[str, Any], passage_id: int) -> str:
    for passage in result["passages"]:
        if passage["id"] == passage_id:
            return f"P{passage_id}@{passage['start']}"
    return f"P{passage_id}"


def _redacted(spec: str) -> str:
    from fabula.llm import redact_credentials

    return redact_credentials(spec)


LLM_ONLY = {  # describe's options that only an LLM description reads: parameter name -> option
    "context": "--context",
    "budget": "--budget",
    "joint": "--joint",
    "with_cast": "--with-cast",
    "cite": "--cite",
    "no_context": "--no-context",
    "protocol": "--protocol",
}


def _refuse_llm_options_without_a_model(ctx: typer.Context) -> None:
    """An LLM-only option given without --llm is refused in one line: `describe BOOK X --protocol bookworm`
    printed the extractive sheet with exit 0, as if BookWorm's protocol had run."""
    given = [
        option
        for name, option in LLM_ONLY.items()
        if getattr(ctx.get_parameter_source(name), "name", None) == "COMMANDLINE"
    ]
    if given:
        raise ConfigError(
            f"only an LLM description reads {'it' if len(given) == 1 else 'them'}: add --llm SPEC (without a "
            "model, describe prints the extractive sheet)",
            ", ".join(given),
        )
