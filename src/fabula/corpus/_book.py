"""One book of a corpus run: its job, settings, outcome and `analyze_to_folder` (analyse it into its folder,
or skip it when the folder's manifest says it is up to date). The engines (`_local`, `_ray`) and the corpus
runner (`_run`) import this module; it imports none of them, so the corpus package has no import cycle.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import re
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

from fabula._files import write_bytes_atomic
from fabula._parallel import ahead_pending
from fabula._version import __version__, code_digest
from fabula.book import DEFAULT_MAX_BYTES
from fabula.corpus._write import MANIFEST, OUTPUT_FILES, remove_stale_temporaries, write_outputs
from fabula.errors import FabulaError, InputError

if TYPE_CHECKING:
    from fabula.llm import LLMConfig

MANIFEST_VERSION = 1

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
            "fabula_code": code_digest(),  # the same version number can be other code (a checkout)
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


#: `gc.set_threshold` while books are analysed: the youngest generation collected every 50,000
#: allocations instead of 700, the oldest almost never (see `collect_rarely`)
COLLECTION_THRESHOLDS = (50_000, 50, 100)


def collect_rarely() -> None:
    """Keep Python's cyclic garbage collector from walking a book's analysis again and again, in a process
    that analyses books (a worker of a corpus run; ``fabula analyze`` through `fewer_collections`). An
    analysis makes millions of objects but few reference cycles (reference counting frees the rest), yet
    the default thresholds ran ~260 collections, two of them full, over a 160K-word novel: 0.2-0.45 s,
    10-15 % of the analysis. What is loaded now is frozen (never scanned again) and collections are
    rarer (`COLLECTION_THRESHOLDS`); peak memory on that novel stays 79 MB. Outputs do not depend on it."""
    gc.freeze()
    gc.set_threshold(*COLLECTION_THRESHOLDS)


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """`collect_rarely` for the block, then the collector as it was (a caller's process, such as a test
    runner that runs the command line in-process, keeps its own settings)."""
    thresholds = gc.get_threshold()
    collect_rarely()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


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
    from fabula.pipeline import analyze_book, prepare_analysis
    from fabula.report import prepare_report

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

        if ahead_pending():  # the book is being read in a forked child (`fabula.cli`): meanwhile, load what
            prepare_analysis()  # the analysis and the report load on first use instead of waiting for it
            prepare_report()

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
