"""Running `fabula.pipeline.analyze_book` over one or many novels into an output folder, resumably.

Per book, ``OUTDIR/<stem>/`` gets ``book.json``, ``characters.jsonl``, ``quotes.jsonl``, ``quotes.tsv`` and
``report.html`` (each written atomically), then ``manifest.json`` last: a book whose manifest records the
same input hash and settings is skipped, so an interrupted corpus run resumes where it stopped. The old
manifest is removed *before* any output is rewritten, so a run killed half-way through rewriting a folder
leaves no manifest and is redone, never called up to date. Outputs at a reading position (``--until``) go
to their own folder (``<stem>.until-50pct``), never over the whole-book ones. Failures (an empty or binary
file among many) are recorded per book and never stop the others.

Two engines run the books: ``local`` (worker processes on this machine, `fabula.corpus._local`) and
``ray`` (one Ray task per book, `fabula.corpus._ray`). Both dispatch only the books that need work, report
each book as it finishes, and on Ctrl-C stop at once, keeping every finished book (`CorpusInterrupted`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

from fabula._files import folder_lock, write_bytes_atomic
from fabula._ray import check_engine
from fabula._version import __version__
from fabula.analysis import GENERIC_FILE_STEMS
from fabula.book import DEFAULT_MAX_BYTES
from fabula.corpus._write import (
    MANIFEST,
    OUTPUT_FILES,
    check_writable,
    remove_stale_temporaries,
    write_index,
    write_outputs,
)
from fabula.errors import FabulaError, InputError

if TYPE_CHECKING:
    from fabula.llm import LLMConfig

MANIFEST_VERSION = 1
Engine = Literal["local", "ray"]

StageCallback = Callable[[str, str, float | None], None]
"""``(book stem, stage, seconds or None at the start)``."""


@dataclass(frozen=True, slots=True)
class AnalyzeSettings:
    """The options that change what ``fabula analyze`` writes (part of the resume key).

    ``llm`` is an `LLMConfig` the CLI parsed from ``--llm``: plain data, so it travels to worker
    processes and Ray tasks, each of which opens its own model.
    """

    gold_characters: Path | None = None
    until: str | None = None
    until_chapter: int | None = None
    llm: LLMConfig | None = None
    max_bytes: int = DEFAULT_MAX_BYTES  # only refuses files; never changes what is written

    def fingerprint(self) -> dict[str, Any]:
        """What must match for an earlier run's outputs to be reused."""
        return {
            "fabula_version": __version__,
            "gold_characters_sha256": _file_sha256(self.gold_characters) if self.gold_characters else None,
            "until": self.until,
            "until_chapter": self.until_chapter,
            "llm": self.llm.name if self.llm else None,
        }

    def folder_suffix(self) -> str:
        """``""`` for whole-book outputs, else a tag naming the reading position (``.until-50pct``,
        ``.until-chapter-12``): spoiler-safe outputs never share a folder with whole-book ones."""
        parts = []
        if self.until is not None:
            parts.append(re.sub(r"[^\w.-]+", "-", self.until.strip().replace("%", "pct")).strip("-."))
        if self.until_chapter is not None:
            parts.append(f"chapter-{self.until_chapter}")
        return "".join(f".until-{part}" for part in parts)


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


class CorpusInterrupted(KeyboardInterrupt):
    """Ctrl-C during a corpus run: no new book was started after it, and the finished ones are kept."""

    def __init__(self, finished: list[BookOutcome], total: int) -> None:
        super().__init__(f"interrupted after {len(finished)} of {total} books")
        self.finished = finished
        self.total = total


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


def plan_jobs(paths: Sequence[str | Path], outdir: str | Path, suffix: str = "") -> list[BookJob]:
    """One job per input, each with a distinct output folder name (``suffix`` appended to each).

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
        jobs.append(BookJob(path, candidate + suffix, out / (candidate + suffix)))
    return jobs


def up_to_date(job: BookJob, settings: AnalyzeSettings) -> BookOutcome | None:
    """The ``skipped`` outcome when the folder holds a finished run with the same input and settings
    (temporary files a killed run left in the folder are removed either way)."""
    remove_stale_temporaries(job.folder)
    try:
        input_hash = _file_sha256(job.source)
    except InputError:
        return None  # analyze_to_folder reports it
    manifest = _finished_manifest(job, input_hash, settings.fingerprint())
    if manifest is None:
        return None
    return BookOutcome(job, "skipped", 0.0, manifest.get("timings", {}), manifest.get("summary"))


def analyze_to_folder(
    job: BookJob, settings: AnalyzeSettings, *, force: bool = False, on_stage: StageCallback | None = None
) -> BookOutcome:
    """Analyse one book into its folder (or skip it when already done); never raises for a bad book."""
    from fabula.pipeline import analyze_book

    started = time.perf_counter()
    try:
        remove_stale_temporaries(job.folder)
        input_hash = _file_sha256(job.source)
        fingerprint = settings.fingerprint()
        if not force and (manifest := _finished_manifest(job, input_hash, fingerprint)) is not None:
            return BookOutcome(job, "skipped", 0.0, manifest.get("timings", {}), manifest.get("summary"))

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
            max_bytes=settings.max_bytes,
        )
        progress("write", None)
        write_started = time.perf_counter()
        with contextlib.suppress(FileNotFoundError):
            (job.folder / MANIFEST).unlink()  # invalidate first: a kill while rewriting must not look done
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
    except OSError as exc:  # the output folder (the input is read through InputError)
        where = exc.filename or job.folder
        message = f"{where}: cannot write ({exc.strerror or exc})"
        return BookOutcome(job, "failed", time.perf_counter() - started, error=message, exit_code=2)
    except Exception as exc:  # a bug, not bad input: report it on one line and carry on with the others
        detail = traceback.format_exc() if os.environ.get("FABULA_DEBUG") else ""
        message = f"{job.source}: internal error ({type(exc).__name__}: {exc}){detail and chr(10) + detail}"
        return BookOutcome(job, "failed", time.perf_counter() - started, error=message, exit_code=1)


def analyze_corpus(
    paths: Sequence[str | Path],
    outdir: str | Path,
    settings: AnalyzeSettings,
    *,
    jobs: int = 1,
    force: bool = False,
    engine: Engine = "local",
    ray_address: str | None = None,
    on_stage: StageCallback | None = None,
    on_book: Callable[[BookOutcome], None] | None = None,
    on_plan: Callable[[int, int], None] | None = None,
) -> list[BookOutcome]:
    """Analyse every book and, for more than one book, write ``OUTDIR/index.html``.

    Books already up to date are reported as skipped without being dispatched; the rest run on
    ``engine`` (``jobs`` worker processes locally, or Ray tasks). ``on_plan(to_run, total)`` is called
    once before the work starts. Outcomes come back in input order. Ctrl-C raises `CorpusInterrupted`.
    """
    check_engine(engine, ray_address)
    planned = plan_jobs(expand_inputs(paths), outdir, settings.folder_suffix())
    check_writable(Path(outdir))
    # one run writes a folder at a time: two with different settings would mix their outputs (a manifest
    # of one run beside the characters of the other) and a stale-temporary sweep would delete the other's
    with folder_lock(outdir, "fabula analyze"):
        return _analyze_planned(
            planned, outdir, settings, jobs, force, engine, ray_address, on_stage, on_book, on_plan
        )


def _analyze_planned(
    planned: list[BookJob],
    outdir: str | Path,
    settings: AnalyzeSettings,
    jobs: int,
    force: bool,
    engine: Engine,
    ray_address: str | None,
    on_stage: StageCallback | None,
    on_book: Callable[[BookOutcome], None] | None,
    on_plan: Callable[[int, int], None] | None,
) -> list[BookOutcome]:
    remove_stale_temporaries(Path(outdir))  # a killed run's half-written index.html
    outcomes: dict[int, BookOutcome] = {}

    def finished(index: int, outcome: BookOutcome) -> None:
        outcomes[index] = outcome
        if on_book:
            on_book(outcome)

    work: list[tuple[int, BookJob]] = []
    for index, job in enumerate(planned):
        skipped = None if force else up_to_date(job, settings)
        if skipped is None:
            work.append((index, job))
        else:
            finished(index, skipped)
    if on_plan:
        on_plan(len(work), len(planned))
    try:
        if engine == "ray":
            from fabula.corpus._ray import run_on_ray

            run_on_ray(work, settings, force, ray_address, jobs, finished)
        elif jobs <= 1 or len(work) <= 1:
            for index, job in work:
                finished(index, analyze_to_folder(job, settings, force=force, on_stage=on_stage))
        else:
            from fabula.corpus._local import run_in_processes

            run_in_processes(work, settings, force, jobs, on_stage, finished)
    except KeyboardInterrupt as exc:
        kept = [outcomes[i] for i in sorted(outcomes)]
        raise CorpusInterrupted(kept, len(planned)) from exc
    ordered = [outcomes[i] for i in range(len(planned))]
    if len(planned) > 1:
        write_index(outdir, ordered)
    return ordered


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
