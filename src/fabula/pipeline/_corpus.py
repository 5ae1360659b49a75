"""Running `analyze_book` over one or many novels into an output folder, resumably and in parallel.

Per book, ``OUTDIR/<stem>/`` gets ``book.json``, ``characters.jsonl``, ``quotes.jsonl``, ``quotes.tsv`` and
``report.html`` (each written atomically), then ``manifest.json`` last: a book whose manifest records the
same input hash and settings is skipped, so an interrupted corpus run resumes where it stopped. Failures
(an empty or binary file among many) are recorded per book and never stop the others.
"""

from __future__ import annotations

import hashlib
import os
import queue
import re
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from fabula._files import atomic_open, write_bytes_atomic, write_text_atomic
from fabula._version import __version__
from fabula.book import save_book
from fabula.errors import FabulaError, InputError
from fabula.pipeline._analyze import analyze_book, redacted_spec
from fabula.pipeline._model import Analysis
from fabula.report import GENERIC_FILE_STEMS, IndexEntry, render_index, render_report

OUTPUT_FILES = ("book.json", "characters.jsonl", "quotes.jsonl", "quotes.tsv", "report.html")
MANIFEST = "manifest.json"
MANIFEST_VERSION = 1

StageCallback = Callable[[str, str, float | None], None]
"""``(book stem, stage, seconds or None at the start)``."""


@dataclass(frozen=True, slots=True)
class AnalyzeSettings:
    """The options that change what ``fabula analyze`` writes (part of the resume key)."""

    gold_characters: Path | None = None
    until: str | None = None
    until_chapter: int | None = None
    llm: str | None = None

    def fingerprint(self) -> dict[str, Any]:
        """What must match for an earlier run's outputs to be reused."""
        return {
            "fabula_version": __version__,
            "gold_characters_sha256": _file_sha256(self.gold_characters) if self.gold_characters else None,
            "until": self.until,
            "until_chapter": self.until_chapter,
            "llm": redacted_spec(self.llm) if self.llm else None,
        }


@dataclass(frozen=True, slots=True)
class BookJob:
    source: Path
    stem: str
    folder: Path  # OUTDIR/<stem>


@dataclass(slots=True)
class BookOutcome:
    """What happened to one book: ``done`` (analysed now), ``skipped`` (already done), or ``failed``."""

    job: BookJob
    status: Literal["done", "skipped", "failed"]
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    summary: dict[str, Any] | None = None
    error: str | None = None
    exit_code: int = 0


BOOK_SUFFIXES = (".txt", ".epub")


def expand_inputs(paths: Sequence[str | Path]) -> list[Path]:
    """The book files named: a folder stands for every .txt/.epub file under it (sorted); files as given."""
    books: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix.lower() in BOOK_SUFFIXES and p.is_file())
            if not found:
                raise InputError("folder holds no .txt or .epub files", path)
            books.extend(found)
        else:
            books.append(path)
    return books


def plan_jobs(paths: Sequence[str | Path], outdir: str | Path) -> list[BookJob]:
    """One job per input, each with a distinct output folder name.

    A generic file name (``novel_text.txt``, as in PDNC) is replaced by its parent folder's name; remaining
    clashes get ``-2``, ``-3``… suffixes in input order.
    """
    out = Path(outdir)
    jobs: list[BookJob] = []
    used: set[str] = set()
    for raw in paths:
        path = Path(raw)
        stem = _safe_stem(path)
        candidate, n = stem, 1
        while candidate.lower() in used:
            n += 1
            candidate = f"{stem}-{n}"
        used.add(candidate.lower())
        jobs.append(BookJob(path, candidate, out / candidate))
    return jobs


def analyze_to_folder(
    job: BookJob, settings: AnalyzeSettings, *, force: bool = False, on_stage: StageCallback | None = None
) -> BookOutcome:
    """Analyse one book into its folder (or skip it when already done); never raises for a bad book."""
    started = time.perf_counter()
    try:
        input_hash = _file_sha256(job.source)
        fingerprint = settings.fingerprint()
        if not force and (manifest := _finished_manifest(job, input_hash, fingerprint)) is not None:
            return BookOutcome(
                job, "skipped", 0.0, manifest.get("timings", {}), manifest.get("summary"), None, 0
            )

        def progress(stage: str, seconds: float | None) -> None:
            if on_stage:
                on_stage(job.stem, stage, seconds)

        analysis = analyze_book(
            job.source,
            gold_characters=settings.gold_characters,
            until=settings.until,
            until_chapter=settings.until_chapter,
            llm=settings.llm,
            progress=progress,
        )
        progress("write", None)
        write_started = time.perf_counter()
        write_outputs(analysis, job.folder)
        analysis.timings["write"] = round(time.perf_counter() - write_started, 3)
        progress("write", analysis.timings["write"])
        seconds = round(time.perf_counter() - started, 3)
        summary = analysis.summary()
        manifest = {
            "fabula_manifest": MANIFEST_VERSION,
            "input": str(job.source),
            "input_sha256": input_hash,
            "settings": fingerprint,
            "outputs": list(OUTPUT_FILES),
            "timings": analysis.timings,
            "seconds": seconds,
            "summary": summary,
        }
        write_bytes_atomic(job.folder / MANIFEST, orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
        return BookOutcome(job, "done", seconds, analysis.timings, summary)
    except FabulaError as exc:
        message = exc.one_line() if exc.where else f"{job.source}: {exc.problem}"
        return BookOutcome(
            job, "failed", time.perf_counter() - started, error=message, exit_code=exc.exit_code
        )
    except Exception as exc:  # a bug, not bad input: report it on one line and carry on with the others
        detail = traceback.format_exc() if os.environ.get("FABULA_DEBUG") else ""
        message = f"{job.source}: internal error ({type(exc).__name__}: {exc}){detail and chr(10) + detail}"
        return BookOutcome(job, "failed", time.perf_counter() - started, error=message, exit_code=1)


def write_outputs(analysis: Analysis, folder: str | Path) -> None:
    """Write the five per-book output files (each atomically) into ``folder``."""
    from fabula.quotes import write_quotes

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    save_book(analysis.book, out / "book.json")
    with atomic_open(out / "characters.jsonl", "wb") as handle:
        for profile in analysis.characters:
            handle.write(orjson.dumps(profile.to_dict(), option=orjson.OPT_APPEND_NEWLINE))
    write_quotes(analysis.book, out / "quotes.jsonl", format="jsonl")  # atomic, like every writer here
    write_quotes(analysis.book, out / "quotes.tsv", format="tsv")
    write_text_atomic(out / "report.html", render_report(analysis))


def analyze_corpus(
    paths: Sequence[str | Path],
    outdir: str | Path,
    settings: AnalyzeSettings,
    *,
    jobs: int = 1,
    force: bool = False,
    on_stage: StageCallback | None = None,
    on_book: Callable[[BookOutcome], None] | None = None,
) -> list[BookOutcome]:
    """Analyse every book (in ``jobs`` worker processes when there are several) and, for more than one
    book, write ``OUTDIR/index.html``. Outcomes come back in input order."""
    planned = plan_jobs(expand_inputs(paths), outdir)
    outcomes: dict[int, BookOutcome] = {}

    def finished(index: int, outcome: BookOutcome) -> None:
        outcomes[index] = outcome
        if on_book:
            on_book(outcome)

    if jobs <= 1 or len(planned) <= 1:
        for index, job in enumerate(planned):
            finished(index, analyze_to_folder(job, settings, force=force, on_stage=on_stage))
    else:
        _run_pool(planned, settings, force, jobs, on_stage, finished)
    ordered = [outcomes[i] for i in range(len(planned))]
    if len(planned) > 1:
        write_index(outdir, ordered)
    return ordered


def write_index(outdir: str | Path, outcomes: Sequence[BookOutcome]) -> Path:
    """``OUTDIR/index.html``: one row per book linking to its report (failed books listed with the error)."""
    entries = [
        IndexEntry(
            stem=o.job.stem,
            source=str(o.job.source),
            status=o.status,
            summary=o.summary,
            seconds=o.seconds or sum(o.timings.values()),
            error=o.error,
        )
        for o in outcomes
    ]
    path = Path(outdir) / "index.html"
    write_text_atomic(path, render_index(entries))
    return path


def _run_pool(
    planned: list[BookJob],
    settings: AnalyzeSettings,
    force: bool,
    jobs: int,
    on_stage: StageCallback | None,
    finished: Callable[[int, BookOutcome], None],
) -> None:
    import multiprocessing

    context = multiprocessing.get_context("spawn" if os.name != "posix" else "forkserver")
    with context.Manager() as manager:
        events = manager.Queue()
        with ProcessPoolExecutor(max_workers=min(jobs, len(planned)), mp_context=context) as pool:
            pending: dict[Future[BookOutcome], int] = {
                pool.submit(_worker, job, settings, force, events): i for i, job in enumerate(planned)
            }
            try:
                while pending:
                    done, _ = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                    _drain(events, on_stage)
                    for future in done:
                        index = pending.pop(future)
                        try:
                            outcome = future.result()
                        except Exception as exc:  # the worker process itself died (e.g. killed for memory)
                            outcome = BookOutcome(
                                planned[index],
                                "failed",
                                error=f"{planned[index].source}: worker failed ({exc})",
                                exit_code=1,
                            )
                        finished(index, outcome)
                _drain(events, on_stage)
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise


def _worker(job: BookJob, settings: AnalyzeSettings, force: bool, events: Any) -> BookOutcome:
    def on_stage(stem: str, stage: str, seconds: float | None) -> None:
        events.put((stem, stage, seconds))

    return analyze_to_folder(job, settings, force=force, on_stage=on_stage)


def _drain(events: Any, on_stage: StageCallback | None) -> None:
    while True:
        try:
            stem, stage, seconds = events.get_nowait()
        except queue.Empty:
            return
        if on_stage:
            on_stage(stem, stage, seconds)


def _finished_manifest(job: BookJob, input_hash: str, fingerprint: dict[str, Any]) -> dict[str, Any] | None:
    """The earlier manifest when that run finished with the same input and settings, else None."""
    try:
        manifest = orjson.loads((job.folder / MANIFEST).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if (
        not isinstance(manifest, dict)
        or manifest.get("fabula_manifest") != MANIFEST_VERSION
        or manifest.get("input_sha256") != input_hash
        or manifest.get("settings") != fingerprint
    ):
        return None
    if not all((job.folder / name).is_file() for name in OUTPUT_FILES):
        return None
    return manifest


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except FileNotFoundError as exc:
        raise InputError("no such file", path) from exc
    except IsADirectoryError as exc:
        raise InputError("is a directory, not a book file", path) from exc
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror})", path) from exc
    return digest.hexdigest()


def _safe_stem(path: Path) -> str:
    stem = path.stem
    if stem.lower() in GENERIC_FILE_STEMS and path.resolve().parent.name:
        stem = path.resolve().parent.name
    stem = re.sub(r"[^\w.-]+", "_", stem).strip("._") or "book"
    return stem


__all__ = [
    "OUTPUT_FILES",
    "AnalyzeSettings",
    "BookJob",
    "BookOutcome",
    "analyze_corpus",
    "analyze_to_folder",
    "expand_inputs",
    "plan_jobs",
    "write_index",
    "write_outputs",
]
