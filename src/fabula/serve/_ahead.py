"""The look-ahead process of ``fabula serve``: prepares the checkpoint a reader is likely to reach next.

A checkpoint's analysis is seconds of pure-Python work. Run on a thread of the server it shares the
interpreter lock with the requests: every request waited for it in turns of the switch interval (a
character sheet that takes a few milliseconds took 100-250 ms), and a reader who jumped elsewhere had
their own analysis slowed to half speed by a look-ahead no longer of use. So the look-ahead runs in one
helper process for the whole library, on another core: it analyses the book truncated at the checkpoint
(`fabula.pipeline.analyze_book`, as the server would), makes its recap and the first characters' sheets
from that analysis, and writes them into the checkpoint's cache folder in the layout ``fabula analyze --until`` uses, marker last; the
server reads the folder back (tens of milliseconds). The helper knows only what the server sends it
(a book file, a checkpoint, a folder) and answers one JSON line per job.

The helper runs in a session of its own (a Ctrl-C at the terminal is the server's to handle), writes
nothing to the terminal, and ends when its input closes or the server process is gone.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

import orjson

from fabula._files import write_bytes_atomic
from fabula._version import __version__, code_digest

if TYPE_CHECKING:
    from fabula.analysis import Analysis

MARKER = "serve.json"  # written last into a checkpoint's folder: the folder is complete
RECAP_FILE = "recap.json"
SHEETS_FILE = "sheets.json"  # the first characters' sheets, made with the checkpoint
SHEETS_AHEAD = 8  # how many: the cast's first (most important) characters, the likeliest clicked
MAX_RESTARTS = 3  # a helper that dies this many times in a row (say, no Python to run it) is given up
BOOKS_KEPT = 2  # books the helper keeps loaded (a library's readers may read several)


def store_checkpoint(
    folder: Path,
    analysis: Analysis,
    *,
    text_hash: str,
    source: str,
    recap: dict[str, Any] | Literal[False] | None = False,
    sheets: dict[str, dict[str, Any]] | None = None,
) -> None:
    """Write a checkpoint's analysis outputs (`fabula.corpus.write_outputs`), its recap when given
    (``recap``: the recap's data, None for "nothing to recap"; False: not made) and character sheets
    when given (id -> sheet), then the marker. Raises `OSError` or `fabula.errors.FabulaError` when the
    folder cannot be written."""
    from fabula.corpus import write_outputs

    with contextlib.suppress(FileNotFoundError):
        (folder / MARKER).unlink()
    write_outputs(analysis, folder)
    if recap is not False:
        write_bytes_atomic(folder / RECAP_FILE, orjson.dumps(recap))
    if sheets:
        write_bytes_atomic(folder / SHEETS_FILE, orjson.dumps(sheets))
    marker = {
        "text_sha256": text_hash,
        "fabula_version": __version__,
        "fabula_code": code_digest(),
        "source": source,
    }
    write_bytes_atomic(folder / MARKER, orjson.dumps(marker, option=orjson.OPT_INDENT_2))


class Cancelled(Exception):
    """The server no longer wants the checkpoint the helper is preparing (its reader jumped away)."""


def prepare(books: dict[str, Any], job: dict[str, Any], wanted: Callable[[], bool] = lambda: True) -> None:
    """One job of the helper: analyse ``job["source"]`` truncated at ``job["checkpoint"]``, make the
    recap there and the first characters' sheets from that analysis, and store them all in
    ``job["folder"]``. The book is loaded once per process (``books``) and must still have the text the
    server hashed. ``wanted`` is asked between the stages: when it says no, `Cancelled` is raised and
    nothing is stored."""
    from fabula.book import PrefixLayers, load_book
    from fabula.errors import ConfigError
    from fabula.pipeline import analyze_book
    from fabula.recap import recap

    source = job["source"]
    loaded = books.pop(source, None)
    if loaded is None or loaded[0].content_hash != job["text_sha256"]:
        whole = load_book(source, max_bytes=job["max_bytes"])
        loaded = (whole, PrefixLayers(whole))  # every checkpoint of it is cut through one store
    book, layers = loaded
    books[source] = loaded  # the most recently used last; only a few books are kept
    for stale in list(books)[:-BOOKS_KEPT]:
        del books[stale]
    if book.content_hash != job["text_sha256"]:
        raise ValueError("the book's text changed since the server read it")
    checkpoint = int(job["checkpoint"])

    def check(*_: object) -> None:
        if not wanted():
            raise Cancelled

    analysis = analyze_book(layers.truncated(checkpoint), progress=check)
    check()
    try:
        recapped: dict[str, Any] | None = recap(analysis.book, checkpoint).to_dict()
    except ConfigError:  # no complete sentence before the checkpoint: nothing to recap
        recapped = None
    check()
    sheets = first_sheets(analysis, {})
    check()
    store_checkpoint(
        Path(job["folder"]),
        analysis,
        text_hash=job["text_sha256"],
        source=source,
        recap=recapped,
        sheets=sheets,
    )


def first_sheets(analysis: Analysis, known: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The sheets (`fabula.describe.character_sheet`, JSON-ready) of the cast's first `SHEETS_AHEAD`
    characters, by id; ``known``: sheets already made, not made again."""
    from fabula.describe import character_sheet

    cast = [p for p in analysis.characters if p.first_offset is not None][:SHEETS_AHEAD]
    return {p.id: known.get(p.id) or character_sheet(analysis, p).to_dict() for p in cast}


# how the helper starts: first a thread that ends it the moment the server is gone (even killed by
# SIGKILL, mid-analysis or still importing), then fabula's imports and the job loop
_BOOT = """
import os, sys, threading, time
def watch(server=int(sys.argv[1])):
    while os.getppid() == server:
        time.sleep(0.2)
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
from fabula.serve._ahead import main
main()
"""


def main() -> None:
    """The helper's loop: a job (one JSON line) in, ``{"ok": ...}`` out, until its input closes. A line
    ``{"cancel": ID}`` read meanwhile stops job ``ID`` at its next stage (answer ``{"cancelled": true}``)."""
    answers = os.fdopen(os.dup(1), "wb")  # the answers' own channel: anything printed goes elsewhere
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    jobs: queue.Queue[dict[str, Any] | None] = queue.Queue()
    cancelled: set[object] = set()

    def read() -> None:
        for line in sys.stdin.buffer:
            with contextlib.suppress(ValueError):
                message = orjson.loads(line)
                if "cancel" in message:
                    cancelled.add(message["cancel"])
                else:
                    jobs.put(message)
        jobs.put(None)  # the server closed its end: stop after the job in hand

    threading.Thread(target=read, daemon=True).start()
    from fabula.corpus import collect_rarely

    collect_rarely()  # this process only analyses books, as a corpus worker does
    books: dict[str, Any] = {}
    while (job := jobs.get()) is not None:
        ident = job.get("id")

        def wanted(ident: object = ident) -> bool:
            return ident not in cancelled

        try:
            prepare(books, job, wanted)
            answer: dict[str, Any] = {"ok": True}
        except Cancelled:
            answer = {"ok": False, "cancelled": True}
        except Exception as exc:  # the server computes the checkpoint itself instead
            answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        cancelled.discard(ident)
        answers.write(orjson.dumps(answer, option=orjson.OPT_APPEND_NEWLINE))
        answers.flush()


class Lookahead:
    """The server's side of the helper process: started on first use, one job at a time, restarted
    after a failure (after `MAX_RESTARTS` deaths in a row it is not used again: the server computes its
    checkpoints itself); `close` ends it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # one job at a time
        self._writing = threading.Lock()  # one line at a time into the helper's input
        self._process: subprocess.Popen[bytes] | None = None
        self._closed = False
        self._deaths = 0  # the helper ended (or could not start) this many times in a row
        self._ids = itertools.count(1)
        self._running: tuple[str, int, int] | None = None  # (source, checkpoint, job id) in hand

    def prepare(self, job: dict[str, Any]) -> Literal["ok", "failed", "cancelled"]:
        """Have the helper prepare one checkpoint (see `prepare`); waits for it. "failed" when it could
        not (the caller then computes the checkpoint itself), "cancelled" after `cancel`."""
        with self._lock:
            if self._closed or self._deaths >= MAX_RESTARTS:
                return "failed"
            ident = next(self._ids)
            self._running = (str(job.get("source")), int(job.get("checkpoint", -1)), ident)
            try:
                process = self._started()
                stdout: IO[bytes] = process.stdout  # type: ignore[assignment]
                self._send(process, {**job, "id": ident})
                line = stdout.readline()
                if not line:
                    raise EOFError("the look-ahead process ended")
                answer = orjson.loads(line)
            except (OSError, EOFError, ValueError):
                self._stop()
                self._deaths += 1
                return "failed"
            finally:
                self._running = None
            self._deaths = 0
            return "ok" if answer.get("ok") else "cancelled" if answer.get("cancelled") else "failed"

    def cancel(self, source: str, checkpoint: int) -> bool:
        """Stop the job in hand if it prepares ``checkpoint`` of ``source`` (at its next stage); whether
        one was. Its `prepare` then answers "cancelled"."""
        running, process = self._running, self._process
        if running is None or process is None or running[:2] != (source, checkpoint):
            return False
        with contextlib.suppress(OSError, ValueError):
            self._send(process, {"cancel": running[2]})
            return True
        return False

    def _send(self, process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
        stdin: IO[bytes] = process.stdin  # type: ignore[assignment]
        with self._writing:
            stdin.write(orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE))
            stdin.flush()

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            import fabula

            env = dict(os.environ)  # the helper imports this very fabula, wherever it was found
            package_root = str(Path(fabula.__file__).resolve().parents[1])
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
            self._process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(os.getpid())],
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # the terminal's Ctrl-C is for the server, which ends the helper
                close_fds=True,
            )
        return self._process

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(5)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """End the helper now (a job it is doing is dropped; its folder has no marker yet)."""
        self._closed = True
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()  # not under the lock: a job in progress holds it while it waits
