"""The books a ``fabula serve`` process serves, and what each one shows a reader at a position.

Spoiler safety: everything that depends on the reading position comes from `Book.truncated`. The cast,
character sheets and quote speakers come from `fabula.pipeline.analyze_book` on the book truncated at a
*checkpoint* — the same analysis ``fabula describe --until`` runs — and recaps from `fabula.recap.recap` at
that checkpoint. Checkpoints are a fixed grid (the start of the body, every chapter end and every
``GRID_PERCENT`` % of the body, each on a sentence boundary); a reader at offset ``at`` gets the last
checkpoint at or before ``at``, so the grid only ever moves the analysed position back, never past the
reader, and one analysis serves every request inside a stretch of the book (milliseconds instead of the
1-7 s an analysis of a long prefix takes). Search ranks only passages ending at or before ``at``, as
``fabula search --until`` does.

Each checkpoint's analysis is also kept on disk, as the outputs ``fabula analyze --until OFFSET`` writes
(`fabula.corpus.write_outputs`: ``book.json``, ``characters.jsonl``, quotes, ``report.html``) in
``CACHE/<id>.until-<offset>/``, with its recap in ``recap.json`` and ``serve.json`` last (the text's hash
and fabula's version: a folder without it, or for another text or version, is recomputed). Reading one back
takes tens of milliseconds instead of seconds, so a second reader, or the same one after a restart, waits
for no analysis. After each answer the next checkpoints (`LOOK_AHEAD`) are prepared in the background, so
a reader who reads on finds them ready.

Only books named on the command line are served: a book is looked up by the id `plan_jobs` gave it, never
by a path from a request.
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import os
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Executor, Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from fabula._files import write_bytes_atomic
from fabula._version import __version__, code_digest
from fabula.analysis import Analysis, CharacterProfile, Partner
from fabula.book import (
    DEFAULT_MAX_BYTES,
    Book,
    PrefixLayers,
    load_book,
    load_book_json,
    prose_problem,
    resolve_position,
)
from fabula.corpus import AnalyzeSettings, BookJob, expand_inputs, plan_jobs
from fabula.errors import BackendError, ConfigError, FabulaError, InputError
from fabula.serve._ahead import MARKER, RECAP_FILE, SHEETS_FILE, Lookahead, first_sheets, store_checkpoint

if TYPE_CHECKING:
    from fabula.llm import LLM
    from fabula.retrieval import Retriever

GRID_PERCENT = 2  # checkpoints every 2 % of the body (about 3,000 words of a 150K-word novel) ...
MAX_CACHED = 16  # ... and at most this many analyses (and as many recaps) kept per book
#: the checkpoints after the reader's that are prepared ahead, nearest first: more than one, because a chapter
#: end often lies within a page of a grid point (Emma: 20 of its 104 gaps are under 0.5 % of the body, 0.04 %
#: the smallest), and a reader turning pages past both would find the second one not analysed
LOOK_AHEAD = 2
MAX_SHEETS = 512  # character sheets kept per book (all dropped at once when full)
QUIET_SECONDS = 0.5  # a checkpoint the server analysed is written to disk after this long without requests
QUIET_MAX_WAIT = 30.0  # ... or after this long at most, once no request waits
DEFAULT_CACHE_MB = 1024  # the checkpoint folders on disk are kept under this size (least recently used go)
#: `Library.close` waits this long at most for the analyses under way to stop (each stops at its next
#: stage: a second or two late in a long novel)
CLOSE_SECONDS = 10.0

#: while the server analyses a checkpoint, Python's youngest generation is collected only after this many
#: more allocations than deallocations (`_CollectLater`); collections of it at the usual 50,000 walked the
#: analysis's live objects twice per new checkpoint late in a 150K-word novel (50-70 ms of about 1.2 s)
DEFERRED_YOUNG_OBJECTS = 1_000_000

T = TypeVar("T")


class _CollectLater:
    """Young-object garbage collections deferred while the server analyses a checkpoint: `defer` raises
    the youngest generation's threshold to `DEFERRED_YOUNG_OBJECTS` (once for any number of analyses at a
    time) and the function it returns puts it back and collects that generation — after the checkpoint is
    written, when no request waits. An analysis makes few reference cycles (reference counting frees the
    rest), so what waits is mostly live objects a collection would only walk; outputs cannot change."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._deferred = 0
        self._threshold: tuple[int, int, int] | None = None

    def defer(self) -> Callable[[], None]:
        with self._lock:
            if self._deferred == 0:
                self._threshold = gc.get_threshold()
                young, *older = self._threshold
                gc.set_threshold(max(young, DEFERRED_YOUNG_OBJECTS), *older)
            self._deferred += 1
        done = threading.Event()  # the returned function acts once

        def resume() -> None:
            with self._lock:
                if done.is_set():
                    return
                done.set()
                self._deferred -= 1
                if self._deferred or self._threshold is None:
                    return
                gc.set_threshold(*self._threshold)
                self._threshold = None
            gc.collect(0)

        return resume


_collect_later = _CollectLater()


class UnknownBook(FabulaError):
    """A book id the server was not given (or a character id the analysis at that position lacks)."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class Position:
    """A reader's position: ``at`` (an offset on a sentence boundary, as `resolve_position` gives it) and
    ``checkpoint``, the grid point at or before it from which the analysis is computed."""

    at: int
    checkpoint: int


class ServedBook:
    """One book of the library: loaded on first open, then analysed per checkpoint on demand (cached)."""

    def __init__(
        self,
        job: BookJob,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        cache: Path | None = None,
        evict: Callable[[], object] | None = None,
        lookahead: Lookahead | None = None,
    ) -> None:
        self.id = job.stem
        self._lookahead = lookahead  # the helper process that prepares checkpoints ahead (with a cache)
        self._evict = evict  # keeps the disk cache under its size limit (run after each folder is written)
        self.source = job.source
        self._cache = cache  # the folder for checkpoint outputs; None: memory only
        self._text_hash = ""
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self._loaded = threading.Event()
        self._loader: threading.Thread | None = None
        self._book: Book | None = None
        self._layers: PrefixLayers | None = None  # the book's local layers, once made (`_make_layers`)
        self._error: str | None = None
        self._checkpoints: list[int] = []
        # what a request waits for runs on one thread; what it may need next (the next checkpoint, writing
        # the disk cache) on another, so a request never queues behind a prefetch
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"fabula-serve-{self.id}")
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"fabula-ahead-{self.id}")
        # LLM descriptions on threads of their own: a model that hangs holds up other descriptions at most,
        # never the analyses every reader waits for
        self._describer = ThreadPoolExecutor(max_workers=4, thread_name_prefix=f"fabula-describe-{self.id}")
        # writing an analysis the server made into the disk cache: after a pause in the requests, so the
        # half second of writing does not hold the interpreter lock while a reader's next requests run
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"fabula-write-{self.id}")
        self._closed = threading.Event()  # set by `stop`: the work under way ends at its next step
        self._pending: set[Future[Any]] = set()  # the analyses' work to do (`_submit`), for `join`
        self._pending_lock = threading.Lock()  # not `_lock`: a future cancelled under it forgets itself
        self._last_request = time.monotonic()
        self._waiting = 0  # requests waiting for an analysis or recap now
        self._analyses: OrderedDict[int, Future[Analysis]] = OrderedDict()
        self._recaps: OrderedDict[int, Future[dict[str, Any] | None]] = OrderedDict()
        self._descriptions: dict[tuple[int, str], Future[dict[str, Any]]] = {}
        self._sheets: dict[tuple[int, str], dict[str, Any]] = {}
        # the futures `_prefetch` queued that no request has asked for yet: only these may be cancelled (a
        # request's own future never is, or the request fails with CancelledError); each with the event
        # that tells its work, once under way, to stop at its next step (`_drop_ahead`, `_stale`)
        self._ahead: dict[Future[Any], threading.Event] = {}
        self._local = threading.local()  # the background thread's job: its stop event (`_run_ahead`)
        self._index: Retriever | None = None
        self.activity: str | None = None  # what the worker is doing now, for the page's progress line
        self.load_seconds: float | None = None

    # Loading -------------------------------------------------------------------------------------
    def open(self) -> None:
        """Start loading the book in the background (once); returns at once."""
        with self._lock:
            if self._loader is None:
                self._loader = threading.Thread(target=self._load, name=f"fabula-load-{self.id}", daemon=True)
                self._loader.start()

    def _load(self) -> None:
        started = time.perf_counter()
        try:
            book = load_book(self.source, max_bytes=self._max_bytes)
            if problem := prose_problem(book):
                raise InputError(problem, self.source)
            self._checkpoints = checkpoints(book)
            self._text_hash = book.content_hash
            self._book = book
        except FabulaError as exc:
            self._error = f"{self.source.name}: {exc.problem}"  # the file's name, not where it is
        except Exception as exc:  # a bug, not bad input: the page says so instead of waiting forever
            self._error = f"{self.source.name}: internal error ({type(exc).__name__}: {exc})"
        finally:
            self.load_seconds = round(time.perf_counter() - started, 3)
            self._loaded.set()
        if self._book is not None and not self._closed.is_set():
            self._make_layers(self._book)

    def _make_layers(self, book: Book) -> None:
        """Make the book's prefix-stable layers (`fabula.book.PrefixLayers`; a fraction of a second, on
        the loader's thread while the first screen is answered from plain cuts): an analysis of the
        first checkpoint through them computes each one, and `fabula.quotes.keep_text_values` the values
        of the text alone every checkpoint shares (`fabula.book.text_memo`). The analyses after that are
        cut through them."""
        from fabula.pipeline import analyze_book
        from fabula.quotes import keep_text_values

        layers = PrefixLayers(book)
        try:
            analyze_book(layers.truncated(book.body.start), progress=self._stop_when_closed)
        except Exception:  # without the layers every cut is a plain one, as before
            return
        self._layers = layers
        # an analysis meanwhile reads what is made so far (the same values either way)
        with contextlib.suppress(Exception):  # without them each checkpoint computes its own, as before
            keep_text_values(layers.truncated(book.body.end))

    def book(self) -> Book:
        """The loaded book (waits for the loader); raises `InputError` when it could not be read."""
        self.open()
        self._loaded.wait()
        if self._book is None:
            raise InputError(self._error or "could not be read", self.source.name)
        return self._book

    def status(self) -> dict[str, Any]:
        """Where loading stands (``loading``, ``ready`` or ``failed``), without waiting."""
        state = "loading" if not self._loaded.is_set() else ("failed" if self._book is None else "ready")
        out: dict[str, Any] = {"id": self.id, "file": self.source.name, "state": state, "error": self._error}
        if self._book is not None:
            book = self._book
            out.update(
                title=book.meta.title,
                author=book.meta.author,
                words=book.word_count,
                chapters=len(book.chapters),
                body_start=book.body.start,
                body_end=book.body.end,
                analysing=self.activity,
                load_seconds=self.load_seconds,
            )
        return out

    # Positions -----------------------------------------------------------------------------------
    def position(self, at: str) -> Position:
        """The reader's position from an ``at`` parameter (45%, chapter:12, an offset); `ConfigError`
        when it cannot be read."""
        self._last_request = time.monotonic()
        book = self.book()
        offset = resolve_position(book, at)
        if offset is None:  # resolve_position returns None only for no position at all
            raise ConfigError("say where the reader is: at=45%, at=chapter:12 or at=OFFSET", "at")
        index = bisect.bisect_right(self._checkpoints, offset) - 1
        return Position(offset, self._checkpoints[max(index, 0)])

    # Position-limited results --------------------------------------------------------------------
    def analysis(self, position: Position) -> Analysis:
        """The analysis of the book truncated at the position's checkpoint (computed once, then cached in
        memory and on disk); the next checkpoints' are then prepared in the background. Before a checkpoint
        not asked for yet is analysed, the look-ahead work for other checkpoints stops (`_drop_ahead`):
        the reader jumped, and that work would compete with theirs for the cores and the interpreter."""
        with self._lock:
            new = position.checkpoint not in self._analyses
        if new:
            self._drop_ahead(position.checkpoint)
        result = self._cached(self._analyses, position.checkpoint, lambda: self._analyse(position.checkpoint))
        self._prefetch(position.checkpoint)
        return result

    def recap(self, position: Position) -> dict[str, Any] | None:
        """The recap at the position's checkpoint (`fabula.recap.recap`, the no-LLM default) as JSON-ready
        data; None before the first complete sentence (nothing read, nothing to recap). Unless it is on
        disk already, the checkpoint's analysis comes first: the recap uses its characters (finding them
        again was most of a recap's time)."""
        checkpoint = position.checkpoint
        with self._lock:
            known = self._recaps.get(checkpoint)
        analysis = None
        if known is None and not self._recap_stored(checkpoint):
            analysis = self.analysis(position)
        return self._cached(self._recaps, checkpoint, lambda: self._recap(checkpoint, analysis))

    def _analyse(self, checkpoint: int) -> Analysis:
        from fabula.pipeline import analyze_book

        book = self.book()
        folder = self._folder(checkpoint)
        if folder is not None and self._complete(folder):
            with contextlib.suppress(FabulaError, OSError, ValueError, TypeError, KeyError):
                analysis = _read_analysis(folder)
                _touch(folder)  # recently used: the last folder the size limit evicts
                return analysis
        percent = _percent(book, checkpoint)

        def progress(stage: str, seconds: float | None) -> None:
            self._stop_when_closed()
            if self._stale():  # a look-ahead the reader jumped away from: stop before the next stage
                raise CancelledError
            self.activity = f"up to {percent} ({stage})"

        self.activity = f"up to {percent}"
        # no young-object collection during the analysis: one runs once it is written, requests paused
        resume = _collect_later.defer()
        try:
            # once they are made, cut through the book's PrefixLayers: the local work on the text before
            # the checkpoint is the whole book's, done once; the same results as a plain cut
            # (tests/serve/test_reuse.py)
            layers = self._layers
            cut = layers.truncated(checkpoint) if layers is not None else book.truncated(checkpoint)
            analysis = analyze_book(cut, progress=progress)
        except BaseException:
            resume()
            raise
        finally:
            self.activity = None
        if folder is None:
            resume()
            return analysis
        try:
            stored = self._submit(self._writer, self._store_when_quiet, folder, analysis, checkpoint)
        except BaseException:  # the server is closing
            resume()
            raise
        stored.add_done_callback(lambda _: resume())  # written, failed or cancelled (the server closed)
        return analysis

    def _recap_stored(self, checkpoint: int) -> bool:
        folder = self._folder(checkpoint)
        return folder is not None and self._complete(folder) and (folder / RECAP_FILE).is_file()

    def _recap(self, checkpoint: int, analysis: Analysis | None = None) -> dict[str, Any] | None:
        """The recap at ``checkpoint``: from disk, else computed — on the checkpoint's analysed book when
        there is one (``analysis``, or the look-ahead's finished one), so its characters are not found
        twice; `fabula.recap.recap` gives the same recap either way (tests/serve/test_reuse.py)."""
        from fabula.recap import recap

        folder = self._folder(checkpoint)
        if folder is not None and self._recap_stored(checkpoint):
            with contextlib.suppress(OSError, ValueError):
                stored: dict[str, Any] | None = orjson.loads((folder / RECAP_FILE).read_bytes())
                return stored
        analysis = analysis or self._finished_analysis(checkpoint)
        # an analysis read back from disk has no annotation records: the recap cuts the whole book then
        annotated = analysis is not None and "characters" in analysis.book.annotations
        source = analysis.book if analysis is not None and annotated else self.book()
        try:
            result: dict[str, Any] | None = recap(source, checkpoint).to_dict()
        except ConfigError:  # "no complete sentence before position N": the reader is at the start
            result = None
        if folder is not None and not self._closed.is_set():
            with contextlib.suppress(OSError):
                folder.mkdir(parents=True, exist_ok=True)
                write_bytes_atomic(folder / RECAP_FILE, orjson.dumps(result))
        return result

    def _finished_analysis(self, checkpoint: int) -> Analysis | None:
        """The analysis at ``checkpoint`` if one has been computed (never waits: a look-ahead recap runs
        after its analysis on the same thread, and otherwise is computed without it)."""
        with self._lock:
            future = self._analyses.get(checkpoint)
        if future is None or not future.done() or future.cancelled() or future.exception() is not None:
            return None
        return future.result()

    def _prefetch(self, checkpoint: int) -> None:
        """Queue the analyses and recaps of the `LOOK_AHEAD` checkpoints after ``checkpoint``, nearest first
        (the reader is likely to get there next), and drop the look-ahead work of earlier requests for
        other checkpoints: after a jump it is of no use."""
        index = bisect.bisect_right(self._checkpoints, checkpoint)
        following = self._checkpoints[index : index + LOOK_AHEAD]
        if not following:
            return
        self._drop_ahead(*following)
        work_of: tuple[tuple[OrderedDict[int, Future[Any]], Callable[[int], Any]], ...] = (
            (self._analyses, self._analyse_ahead),
            (self._recaps, self._recap),
        )
        with self._lock:
            for point in following:
                for table, work in work_of:
                    if point not in table:
                        stop = threading.Event()
                        future = self._submit(self._background, self._run_ahead, work, point, stop)
                        table[point] = future
                        self._ahead[future] = stop

    def _run_ahead(self, work: Callable[[int], T], checkpoint: int, stop: threading.Event) -> T:
        """One look-ahead job on the background thread: ``work(checkpoint)``, with ``stop`` where `_stale`
        reads it, so the work ends at its next step once `_drop_ahead` sets it."""
        if stop.is_set():
            raise CancelledError
        self._local.stop = stop
        try:
            return work(checkpoint)
        finally:
            self._local.stop = None

    def _stale(self) -> bool:
        """Whether the look-ahead job this thread runs is no longer wanted (the reader jumped away from
        it); False on any other thread, where a request's own work runs."""
        stop: threading.Event | None = getattr(self._local, "stop", None)
        return stop is not None and stop.is_set()

    def _drop_ahead(self, *keep: int) -> None:
        """Cancel the look-ahead work queued or under way for every checkpoint not in ``keep`` (and forget
        it, so a later request starts afresh); what already finished stays cached. Work under way stops at
        its next step: the helper's job at its next stage, and here the reading back of what the helper
        prepared, or an analysis made on this process's background thread, before the next stage
        (`_stale`) — it would share the interpreter with the analysis the reader now waits for."""
        with self._lock:
            tables: tuple[OrderedDict[int, Future[Any]], ...] = (self._analyses, self._recaps)
            for table in tables:
                for point, future in list(table.items()):
                    stop = self._ahead.get(future)
                    if stop is None or point in keep or future.done():
                        continue
                    # no request waits for it (or it would not be in _ahead): stop it and forget it
                    if not future.cancel():
                        stop.set()
                        if table is self._analyses and self._lookahead is not None:
                            self._lookahead.cancel(str(self.source), point)
                    del table[point]
            self._ahead = {future: stop for future, stop in self._ahead.items() if not future.done()}

    # The disk cache ----------------------------------------------------------------------------
    def _folder(self, checkpoint: int) -> Path | None:
        """``CACHE/<id>.until-<offset>``: the folder ``fabula analyze --until OFFSET`` would name."""
        if self._cache is None:
            return None
        return self._cache / (self.id + AnalyzeSettings(until=str(checkpoint)).folder_suffix())

    def _complete(self, folder: Path) -> bool:
        try:
            marker = orjson.loads((folder / MARKER).read_bytes())
        except (OSError, ValueError):
            return False
        return bool(
            marker.get("text_sha256") == self._text_hash
            and marker.get("fabula_version") == __version__
            and marker.get("fabula_code") == code_digest()
        )

    def _store(self, folder: Path, analysis: Analysis, checkpoint: int | None = None) -> None:
        """Write a checkpoint's analysis outputs, then the marker; a failure only costs the cache. With
        ``checkpoint``, the first characters' sheets are made too (kept here and written with it)."""
        sheets = None
        if checkpoint is not None:
            with self._lock:
                known = {cid: sheet for (point, cid), sheet in self._sheets.items() if point == checkpoint}
            sheets = first_sheets(analysis, known)
            self._keep_sheets(checkpoint, sheets)
        with contextlib.suppress(OSError, FabulaError):
            store_checkpoint(
                folder, analysis, text_hash=self._text_hash, source=str(self.source), sheets=sheets
            )
        if self._evict is not None:
            self._evict()

    def _store_when_quiet(self, folder: Path, analysis: Analysis, checkpoint: int) -> None:
        """`_store`, once no request waits and none has come for `QUIET_SECONDS` (after `QUIET_MAX_WAIT`
        seconds, as soon as no request waits: a write never shares the interpreter with an analysis a
        reader waits for)."""
        deadline = time.monotonic() + QUIET_MAX_WAIT
        while self._waiting or (
            time.monotonic() < deadline and time.monotonic() - self._last_request < QUIET_SECONDS
        ):
            if self._closed.wait(QUIET_SECONDS / 5):
                return  # the server closed: the checkpoint is analysed again next time instead
        self._store(folder, analysis, checkpoint)

    def _analyse_ahead(self, checkpoint: int) -> Analysis:
        """A look-ahead's analysis: prepared by the helper process into the disk cache and read back
        (`fabula.serve._ahead`: the server's own threads stay free for requests), or computed here when
        there is no cache or the helper failed."""
        folder = self._folder(checkpoint)
        if self._lookahead is not None and folder is not None and not self._complete(folder):
            book = self.book()
            self.activity = f"up to {_percent(book, checkpoint)}"
            job = {
                "source": str(self.source),
                "max_bytes": self._max_bytes,
                "checkpoint": checkpoint,
                "folder": str(folder),
                "text_sha256": self._text_hash,
            }
            try:
                outcome = self._lookahead.prepare(job)
            finally:
                self.activity = None
            if outcome == "ok" and self._evict is not None:
                self._evict()
            # no longer wanted: not here either (nor read back, when the reader jumped meanwhile)
            if outcome == "cancelled" or self._lookahead.closed or self._stale():
                raise CancelledError
        return self._analyse(checkpoint)

    def sheet(self, position: Position, character_id: str) -> dict[str, Any]:
        """One character's sheet (`fabula.describe.character_sheet`) at the checkpoint, JSON-ready; made
        once per checkpoint and character (selecting its sentences costs tens of milliseconds). The first
        characters' sheets are made with the checkpoint (by the look-ahead process, or when the server's
        requests pause after it analysed one) and read from its folder."""
        from fabula.describe import character_sheet

        analysis = self.analysis(position)
        key = (position.checkpoint, character_id)
        with self._lock:
            found = self._sheets.get(key)
        if found is not None:
            return found
        profile = analysis.character(character_id)
        if profile is None:
            raise UnknownBook(f"no character {character_id!r} at this position", "character")
        stored = self._stored_sheets(position.checkpoint)
        made = stored.get(character_id) or character_sheet(analysis, profile).to_dict()
        self._keep_sheets(position.checkpoint, {**stored, character_id: made})
        return made

    def _stored_sheets(self, checkpoint: int) -> dict[str, dict[str, Any]]:
        """The sheets written into the checkpoint's folder (none when there is no such file)."""
        folder = self._folder(checkpoint)
        if folder is None or not self._complete(folder):
            return {}
        try:
            sheets: dict[str, dict[str, Any]] = orjson.loads((folder / SHEETS_FILE).read_bytes())
        except (OSError, ValueError):
            return {}
        return sheets if isinstance(sheets, dict) else {}

    def _keep_sheets(self, checkpoint: int, sheets: dict[str, dict[str, Any]]) -> None:
        with self._lock:
            if len(self._sheets) + len(sheets) > MAX_SHEETS:
                self._sheets.clear()
            for character_id, sheet in sheets.items():
                self._sheets.setdefault((checkpoint, character_id), sheet)

    def description(self, position: Position, character_id: str, llm: LLM) -> dict[str, Any]:
        """An LLM description of one character from the analysis at the checkpoint (cached once made; a
        failure is not kept, so the next request asks the model again)."""
        from fabula.describe import describe_characters

        analysis = self.analysis(position)
        character = analysis.book.character(character_id)
        if character is None:
            raise UnknownBook(f"no character {character_id!r} at this position", "character")
        key = (position.checkpoint, character_id)
        with self._lock:
            future = self._descriptions.get(key)
            if future is None:

                def generate() -> dict[str, Any]:
                    made = describe_characters(analysis.book, [character], llm)[0].to_dict()
                    if made.get("error"):  # the model failed: an upstream error, not a description to keep
                        raise BackendError(f"the model failed: {made['error']}", "llm")
                    return made

                future = self._describer.submit(generate)  # not waited for by `join`: see `Library.close`
                self._descriptions[key] = future
        try:
            return future.result()
        except BaseException:
            with self._lock:
                if self._descriptions.get(key) is future:
                    del self._descriptions[key]
            raise

    def search_index(self) -> Retriever:
        """A BM25 index over the book's paragraphs (built once; `search` limits it to the position)."""
        from fabula.retrieval import index_book

        book = self.book()
        with self._lock:
            if self._index is None:
                self._index = index_book(book, "bm25", units="paragraph", cache=False)
            return self._index

    def _cached(self, table: OrderedDict[int, Future[T]], key: int, work: Callable[[], T]) -> T:
        with self._lock:
            future = table.get(key)
            if future is not None and future in self._ahead:
                del self._ahead[future]  # a request waits for it now: no prefetch may cancel it
                if future.cancel():
                    future = None  # queued behind other background work: do it now instead
            if future is None:
                future = self._submit(self._worker, work)
                table[key] = future
            table.move_to_end(key)
            while len(table) > MAX_CACHED:
                table.popitem(last=False)
            self._waiting += 1
        try:
            return future.result()
        except BaseException:
            with self._lock:
                if table.get(key) is future:
                    del table[key]  # a failure is not cached: the next request tries again
            raise
        finally:
            with self._lock:
                self._waiting -= 1
            self._last_request = time.monotonic()  # a reader waited until now

    # Closing ------------------------------------------------------------------------------------
    def _submit(self, executor: Executor, work: Callable[..., T], *args: Any) -> Future[T]:
        """``executor.submit(work, *args)``, kept in `_pending` until done, so `join` can wait for it."""
        future = executor.submit(work, *args)
        with self._pending_lock:
            self._pending.add(future)
        future.add_done_callback(self._forget)
        return future

    def _forget(self, future: Future[Any]) -> None:
        with self._pending_lock:
            self._pending.discard(future)

    def _stop_when_closed(self, *_: object) -> None:
        """An analysis's progress callback: raises `CancelledError` once the server is closing."""
        if self._closed.is_set():
            raise CancelledError

    def stop(self) -> None:
        """Start closing without waiting: queued work is cancelled, work under way ends at its next step
        (an analysis before its next stage, a look-ahead when `Lookahead.close` ends its helper, a write
        waiting for a pause in the requests at once) and nothing more is written to the disk cache."""
        self._closed.set()
        for executor in (self._worker, self._background, self._writer, self._describer):
            executor.shutdown(wait=False, cancel_futures=True)

    def join(self, deadline: float) -> bool:
        """Wait until the analyses' work under way has ended and its threads are gone, or until
        ``deadline`` (`time.monotonic`); whether they are. After `stop`. A description waiting for the
        model is not waited for: it writes nothing but its answer, and a model may take minutes."""
        with self._pending_lock:
            pending = set(self._pending)
        _, running = wait_for(pending, timeout=max(0.0, deadline - time.monotonic()))
        if self._loader is not None:
            self._loader.join(max(0.0, deadline - time.monotonic()))
        if running or (self._loader is not None and self._loader.is_alive()):
            return False
        for executor in (self._worker, self._background, self._writer):
            executor.shutdown(wait=True)  # nothing left to run: their threads end at once
        return True

    def close(self, wait: float = CLOSE_SECONDS) -> bool:
        """`stop`, then `join` for ``wait`` seconds at most; whether the analyses' threads are gone."""
        self.stop()
        return self.join(time.monotonic() + wait)


class Library:
    """The books named on the command line, by id (the output-folder names `plan_jobs` gives them)."""

    def __init__(
        self,
        paths: Sequence[str | Path],
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        llm: LLM | None = None,
        cache: str | Path | None = None,
        cache_mb: int = DEFAULT_CACHE_MB,
    ) -> None:
        """``cache``: the folder for the checkpoint analyses (None keeps them in memory only), kept under
        ``cache_mb`` megabytes by removing the least recently used checkpoint folders."""
        files = expand_inputs(paths)
        for file in files:
            if not file.is_file():
                raise InputError("no such file", file)
        folder = Path(cache) if cache is not None else None
        self._evicting = threading.Lock()
        self.cache_bytes = cache_mb * 1_000_000
        evict = (lambda: self.evict(folder)) if folder is not None else None
        # with a disk cache, checkpoints ahead of the readers are prepared in a helper process
        self._lookahead = Lookahead() if folder is not None else None
        self.books: dict[str, ServedBook] = {
            job.stem: ServedBook(
                job, max_bytes=max_bytes, cache=folder, evict=evict, lookahead=self._lookahead
            )
            for job in plan_jobs(files, ".")
        }
        self.llm = llm

    def evict(self, cache: Path) -> int:
        """Remove the least recently used checkpoint folders (those with a ``serve.json``: never a folder
        being written, nor anything else in ``cache``) until they take at most the size limit; returns
        how many went. The LLM cache and other files are not counted and never removed."""
        with self._evicting:
            folders: list[tuple[float, int, Path]] = []
            for marker in cache.glob(f"*.until-*/{MARKER}"):
                with contextlib.suppress(OSError):
                    size = sum(f.stat().st_size for f in marker.parent.iterdir() if f.is_file())
                    folders.append((marker.stat().st_mtime, size, marker.parent))
            total = sum(size for _, size, _ in folders)
            removed = 0
            for _, size, folder in sorted(folders):
                if total <= self.cache_bytes:
                    break
                with contextlib.suppress(OSError):
                    (
                        folder / MARKER
                    ).unlink()  # incomplete first: a reader never trusts a half-removed folder
                    shutil.rmtree(folder, ignore_errors=True)
                    total -= size
                    removed += 1
            return removed

    def get(self, book_id: str) -> ServedBook:
        """The served book with this id; `UnknownBook` for any other string (paths included)."""
        book = self.books.get(book_id)
        if book is None:
            raise UnknownBook(f"no book {book_id!r} in this library", "book")
        return book

    def close(self, wait: float = CLOSE_SECONDS) -> bool:
        """Stop every book's work (`ServedBook.stop`), the look-ahead helper and the model, then wait
        ``wait`` seconds at most for the analyses under way to stop; whether none of their threads is left
        (a description waiting for the model is not waited for: `ServedBook.join`)."""
        for book in self.books.values():
            book.stop()
        if self._lookahead is not None:
            self._lookahead.close()  # a look-ahead waiting for the helper ends now
        if self.llm is not None:
            self.llm.close()  # requests in flight are not retried
        deadline = time.monotonic() + wait
        return all([book.join(deadline) for book in self.books.values()])


def checkpoints(book: Book) -> list[int]:
    """The analysis grid: body start, chapter ends and every `GRID_PERCENT` % (sentence boundaries)."""
    points = {book.body.start, book.body.end}
    points.update(chapter.end for chapter in book.chapters)
    for percent in range(GRID_PERCENT, 100, GRID_PERCENT):
        offset = resolve_position(book, f"{percent}%")
        if offset is not None:
            points.add(offset)
    return sorted(p for p in points if book.body.start <= p <= book.body.end)


def _read_analysis(folder: Path) -> Analysis:
    """An analysis back from the outputs `write_outputs` wrote: the book with its layers, and the profiles."""
    book = load_book_json(folder / "book.json")
    profiles = []
    for line in (folder / "characters.jsonl").read_bytes().splitlines():
        record = orjson.loads(line)
        record["partners"] = [Partner(**partner) for partner in record["partners"]]
        profiles.append(CharacterProfile(**record))
    return Analysis(book, profiles, {}, {"until_offset": book.until, "from": str(folder)})


def _touch(folder: Path) -> None:
    """Mark a checkpoint folder as just used (its marker's time orders the evictions)."""
    with contextlib.suppress(OSError):
        os.utime(folder / MARKER)


def _percent(book: Book, offset: int) -> str:
    span = max(1, book.body.end - book.body.start)
    return f"{100 * (offset - book.body.start) / span:.0f} %"
