"""Writing one analysed book's output folder, the corpus ``index.html``, and cleaning what a kill left.

This sits above both `fabula.pipeline` (which computes an `Analysis`) and `fabula.report` (which renders
one), so that neither of those imports the other.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from fabula._files import atomic_open, write_text_atomic
from fabula._parallel import fork_call
from fabula.analysis import Analysis
from fabula.book import save_book
from fabula.errors import ConfigError
from fabula.report import IndexEntry, render_index, render_report

if TYPE_CHECKING:
    from fabula.corpus._book import BookOutcome

OUTPUT_FILES = ("book.json", "characters.jsonl", "quotes.jsonl", "quotes.tsv", "report.html")
MANIFEST = "manifest.json"
INDEX = "index.html"


#: a book at least this long (characters) has its report rendered on a second core while the other four
#: files are written (`fabula._parallel.fork_call`; the report is about two thirds of the writing)
FORK_CHARACTERS = 300_000


def write_outputs(analysis: Analysis, folder: str | Path) -> None:
    """Write the five per-book output files (each atomically) into ``folder``."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)

    def report() -> None:
        write_text_atomic(out / "report.html", render_report(analysis))

    if len(analysis.book.text) >= FORK_CHARACTERS:
        fork_call(report, lambda: _write_data_files(analysis, out))
    else:
        _write_data_files(analysis, out)
        report()


def _write_data_files(analysis: Analysis, out: Path) -> None:
    """``book.json``, ``characters.jsonl``, ``quotes.jsonl`` and ``quotes.tsv`` (each atomically)."""
    from fabula.quotes import quote_records, write_quotes

    save_book(analysis.book, out / "book.json")
    with atomic_open(out / "characters.jsonl", "wb") as handle:
        for profile in analysis.characters:
            handle.write(orjson.dumps(profile.to_dict(), option=orjson.OPT_APPEND_NEWLINE))
    records = quote_records(analysis.book)  # one set of records for both files
    write_quotes(
        analysis.book, out / "quotes.jsonl", format="jsonl", records=records
    )  # atomic, like every writer here
    write_quotes(analysis.book, out / "quotes.tsv", format="tsv", records=records)


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
    path = Path(outdir) / INDEX
    try:
        write_text_atomic(path, render_index(entries))
    except OSError as exc:
        raise ConfigError(f"cannot write the corpus index ({exc.strerror or exc})", path) from exc
    return path


def remove_stale_temporaries(folder: Path) -> int:
    """Delete the hidden ``.NAME.*.tmp`` files an earlier run left when it was killed mid-write (only
    those of fabula's own output names); returns how many went."""
    removed = 0
    if not folder.is_dir():
        return 0
    for name in (*OUTPUT_FILES, MANIFEST, INDEX):
        for leftover in folder.glob(f".{name}.*.tmp"):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()
                removed += 1
    return removed


def check_writable(folder: Path) -> None:
    """Fail now, in one line, when the output folder cannot be created or written (before any work)."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".fabula-probe.", suffix=".tmp"):
            pass
    except FileExistsError as exc:
        raise ConfigError("exists and is not a folder", folder) from exc
    except NotADirectoryError as exc:
        raise ConfigError("a parent of the output folder is a file, not a folder", folder) from exc
    except OSError as exc:
        raise ConfigError(f"cannot write the output folder ({exc.strerror or exc})", folder) from exc
