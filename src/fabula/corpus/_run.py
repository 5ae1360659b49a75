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

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from fabula._files import folder_lock
from fabula._ray import check_engine
from fabula.book import GENERIC_FILE_STEMS
from fabula.corpus._book import (
    AnalyzeSettings,
    BookJob,
    BookOutcome,
    StageCallback,
    analyze_to_folder,
    up_to_date,
)
from fabula.corpus._write import check_writable, remove_stale_temporaries, write_index
from fabula.errors import InputError

if TYPE_CHECKING:
    pass

Engine = Literal["local", "ray"]


class CorpusInterrupted(KeyboardInterrupt):
    """Ctrl-C during a corpus run: no new book was started after it, and the finished ones are kept."""

    def __init__(self, finished: list[BookOutcome], total: int) -> None:
        super().__init__(f"interrupted after {len(finished)} of {total} books")
        self.finished = finished
        self.total = total


BOOK_SUFFIXES = (".txt", ".epub")


def expand_inputs(paths: Sequence[str | Path]) -> list[Path]:
    """The book files named: a folder stands for every .txt/.epub file under it (sorted); files as given.

    A file named twice (``a.txt ./a.txt``, or a folder and a file in it) is listed once, where first
    named: it was analysed, or served, twice (as ``a`` and ``a-2``)."""
    books: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix.lower() in BOOK_SUFFIXES and p.is_file())
            if not found:
                raise InputError("folder holds no .txt or .epub files", path)
        else:
            found = [path]
        for book in found:
            key = book.resolve()
            if key not in seen:
                seen.add(key)
                books.append(book)
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


def _safe_stem(path: Path) -> str:
    stem = path.stem
    if stem.lower() in GENERIC_FILE_STEMS and path.resolve().parent.name:
        stem = path.resolve().parent.name
    stem = re.sub(r"[^\w.-]+", "_", stem).strip("._") or "book"
    return stem
