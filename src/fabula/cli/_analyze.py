"""``fabula analyze BOOK… -o OUTDIR``: the main job — cast, quotes with speakers, per-character statistics
and a self-contained HTML report per book; several books in parallel, resumable, failures reported per book."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import Progress, SpinnerColumn, TaskID

from fabula._ray import check_engine
from fabula.book import DEFAULT_MAX_BYTES
from fabula.cli._app import Interrupted, app, stderr, stdout
from fabula.cli._options import (
    ConcurrencyOption,
    EngineOption,
    GoldCharactersOption,
    LlmOption,
    MaxBytesOption,
    RayAddressOption,
    StructuredOption,
    TimeoutOption,
    UntilChapterOption,
    UntilOption,
    refuse_model_options_without_llm,
)
from fabula.cli._progress import bar_columns
from fabula.errors import ConfigError
from fabula.llm import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from fabula.corpus import BookOutcome

DEFAULT_JOBS = min(2, os.cpu_count() or 1)


@app.command("analyze")
def analyze_command(
    books: Annotated[
        list[Path],
        typer.Argument(metavar="BOOK...", help="One or more .txt or .epub novels, or folders of them."),
    ],
    output: Annotated[
        Path,
        typer.Option(
            "--output", "-o", metavar="OUTDIR", help="Folder for the results (one subfolder per book)."
        ),
    ],
    gold_characters: GoldCharactersOption = None,
    until: UntilOption = None,
    until_chapter: UntilChapterOption = None,
    llm: LlmOption = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    structured: StructuredOption = "auto",
    concurrency: ConcurrencyOption = None,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", min=1, help="Books analysed in parallel (worker processes).")
    ] = DEFAULT_JOBS,
    engine: EngineOption = "local",
    ray_address: RayAddressOption = None,
    force: Annotated[
        bool, typer.Option("--force", help="Analyse again even books whose results are up to date.")
    ] = False,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Analyse novels: cast, who says what, conversation partners, presence by chapter, and report.html.

    Per book, OUTDIR/<name>/ gets book.json, characters.jsonl, quotes.jsonl, quotes.tsv (BookNLP layout)
    and report.html; with several books also OUTDIR/index.html. Books already analysed with the same input
    and settings are skipped, so an interrupted run resumes. With --until the folder is
    OUTDIR/<name>.until-<POS>/, so spoiler-safe results never replace whole-book ones.
    """
    refuse_model_options_without_llm(llm, timeout=timeout, structured=structured, concurrency=concurrency)
    # the analysis, its writers and the report (jinja2) are imported here, not when the command is
    # registered: ``fabula analyze --help`` and a mistyped option do not load them
    from fabula.corpus import (
        AnalyzeSettings,
        CorpusInterrupted,
        analyze_corpus,
        expand_inputs,
        fewer_collections,
    )
    from fabula.pipeline import STAGES

    check_engine(engine, ray_address)
    books = expand_inputs(books)
    if gold_characters is not None and len(books) > 1:
        raise ConfigError(
            f"a gold character list belongs to one book, but {len(books)} books were given",
            "--gold-characters",
        )
    if gold_characters is not None:
        from fabula.characters import load_character_list

        load_character_list(gold_characters)  # fail now, once, rather than per book
    llm_config = None
    if llm is not None:
        from fabula.llm import parse_llm_spec
        from fabula.quotes import available_methods

        if "llm-windows" not in available_methods():
            raise ConfigError(
                "LLM quote attribution is not available in this installation of fabula", "--llm"
            )
        # the only place the spec is parsed; workers open their own model
        llm_config = parse_llm_spec(
            llm,
            timeout=timeout,
            structured=structured,
            concurrency=concurrency or 4,
        )
    if output.exists() and not output.is_dir():
        raise ConfigError("exists and is not a folder", output)

    settings = AnalyzeSettings(gold_characters, until, until_chapter, llm_config, max_bytes=max_bytes)
    started = time.perf_counter()
    # drawn at each stage and book, not by a refresh thread: with no other thread alive, one book's
    # analysis may use the second core (`fabula._parallel.can_fork`)
    with (
        fewer_collections(),
        Progress(
            SpinnerColumn(),
            *bar_columns(),
            console=stderr,
            transient=True,
            auto_refresh=False,
        ) as progress,
    ):
        tasks: dict[str, TaskID] = {}
        overall = progress.add_task("books", total=len(books), visible=len(books) > 1)

        def on_plan(to_run: int, total: int) -> None:
            # the estimate counts only the books that run: skipped ones took no time
            progress.reset(overall, total=to_run, visible=to_run > 1)

        def on_stage(stem: str, stage: str, seconds: float | None) -> None:
            if stem not in tasks:
                tasks[stem] = progress.add_task(stem, total=len(STAGES) + 1)
            if seconds is None:
                step = STAGES.index(stage) if stage in STAGES else len(STAGES)
                progress.update(tasks[stem], description=f"{stem}  [dim]{stage}…[/dim]", completed=step)
            progress.refresh()

        def on_book(outcome: BookOutcome) -> None:
            if outcome.status != "skipped":
                progress.advance(overall)
            if outcome.job.stem in tasks:
                progress.remove_task(tasks.pop(outcome.job.stem))
            _print_outcome(outcome)
            progress.refresh()

        try:
            outcomes = analyze_corpus(
                books,
                output,
                settings,
                jobs=jobs,
                force=force,
                engine="ray" if engine == "ray" else "local",
                ray_address=ray_address,
                on_stage=on_stage,
                on_book=on_book,
                on_plan=on_plan,
            )
        except CorpusInterrupted as interrupted:
            progress.stop()
            done = sum(1 for o in interrupted.finished if o.status != "failed")
            stderr.print(
                f"fabula: interrupted: {done} of {interrupted.total} books finished and kept; "
                "run the same command again to do the rest",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
            raise Interrupted from None
    _print_summary(outcomes, output, time.perf_counter() - started)
    failures = [o for o in outcomes if o.status == "failed"]
    if failures:
        raise typer.Exit(max(o.exit_code for o in failures) or 1)


def _print_outcome(outcome: BookOutcome) -> None:
    stem = outcome.job.stem
    if outcome.status == "failed":
        stderr.print(f"fabula: error: {outcome.error}", markup=False, highlight=False, soft_wrap=True)
        return
    if outcome.status == "skipped":
        stderr.print(f"[dim]= {stem}: up to date, skipped (use --force to redo)[/dim]", highlight=False)
        return
    stages = " · ".join(f"{name} {seconds:.1f}s" for name, seconds in outcome.timings.items())
    stderr.print(
        f"[green]✓[/green] {stem}  [dim]{stages}[/dim]  {outcome.seconds:.1f} s",
        highlight=False,
        soft_wrap=True,
    )


def _count(n: int, word: str) -> str:
    """``1 quotation``, ``2,049 quotations``."""
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _print_summary(outcomes: list[BookOutcome], output: Path, seconds: float) -> None:
    done = [o for o in outcomes if o.status == "done"]
    skipped = [o for o in outcomes if o.status == "skipped"]
    failed = [o for o in outcomes if o.status == "failed"]
    if len(outcomes) == 1:
        outcome = outcomes[0]
        if outcome.status == "failed":
            stdout.print(f"analysed nothing: {outcome.job.source} failed", markup=False, soft_wrap=True)
            return
        s = outcome.summary or {}
        stdout.print(
            f"{outcome.job.stem}: {_count(s.get('characters', 0), 'character')}, "
            f"{_count(s.get('quotes', 0), 'quotation')} "
            f"({s.get('attributed', 0):,} attributed) in {seconds:.1f} s → {outcome.job.folder / 'report.html'}",
            markup=False,
            soft_wrap=True,
        )
        return
    parts = [f"{len(done)} analysed"]
    if skipped:
        parts.append(f"{len(skipped)} up to date")
    if failed:
        parts.append(f"{len(failed)} failed")
    stdout.print(
        f"{len(outcomes)} books: {', '.join(parts)} in {seconds:.1f} s → {output / 'index.html'}",
        markup=False,
    )
