"""The one evaluation harness: a task says how to list its items, how to run a method on one item and
which metrics it reports; `run_eval` does the rest for every task.

>>> @task("toy")                                             # doctest: +SKIP
... class Toy(Task):
...     description = "Count to three."
...     metrics = ["accuracy"]
...     def items(self): return [EvalItem(str(i), {}, i) for i in range(3)]
...     def run_item(self, item, llm): return ItemOutcome({"accuracy": 1.0})
>>> run_eval(get_task("toy")(), json_path="toy.json")       # doctest: +SKIP

What the harness does, so no task does it again:

* runs the items (``concurrency`` at a time when a model is used; LLM calls are cached by the LLM layer);
* records every item as one JSON line in ``OUT.items.jsonl`` beside the ``--json OUT`` report: id, groups,
  scores, parsed answer (``prediction``), details, seconds, and the model calls the item made (prompt
  hash, raw answer, cache hit, seconds; seen through `fabula.llm.record_calls`);
* resumes an interrupted run: when that log exists for the same task and settings and has no "complete"
  line, the items it holds are not run again, and the item that was cut off re-runs from the LLM cache,
  so no model call is repeated. A finished log is started afresh (a new run re-measures);
* turns an item that fails on bad input (an `InputError`) into a one-line entry in ``failed`` and scores
  the rest (a `ConfigError` or `BackendError` stops the run: no other item would fare better);
* runs on anonymised books (``anonymize``, ``--anonymize``): hands the task an `fabula.anonymize.Anonymizer`
  (`Task.anonymize_with`); the task renames each book with it and carries its gold spans and names
  over with the copy's offset map and name mapping, or refuses in one line (``anonymize_refusal``);
* aggregates: per-group means for each ``group_by`` key, ``mean`` (macro over novels when the task says
  ``macro_over = "novel"``, else over items), the task's optional ``micro``, in the one `EvalReport` layout;
* runs only the first ``limit`` items (``--limit N``, as lm-evaluation-harness's: to try a task or a
  model on a few items); the limit is one of the run's settings, so the report says so and only a run
  with the same limit resumes its log (`Task.limit` tells a task that checks more than its items);
* shows a progress bar (rich, on a terminal);
* with ``engine="ray"`` (tasks whose items group by novel, no model), runs each novel's items as one Ray
  task (`fabula._ray`, the plumbing ``fabula analyze --engine ray`` uses): the worker rebuilds the task
  from its class and options, so every novel is read once per worker; the driver writes the item log
  as each novel comes back, so the log, resuming and the report are those of the local engine.

Tasks register with ``@task("name")`` and declare `TaskOption`s; ``fabula eval NAME --option …`` is then
built from them with no CLI edit (``fabula eval --list`` lists the tasks).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

import orjson

from fabula._files import file_lock
from fabula._registry import Registry
from fabula.errors import ConfigError, InputError
from fabula.metrics import mean_of
from fabula.tasks._books import Books
from fabula.tasks._evaluation import EvalReport

if TYPE_CHECKING:
    from fabula.anonymize import Anonymizer
    from fabula.llm import LLM

LOG_VERSION = 1


@dataclass(frozen=True, slots=True)
class EvalItem:
    """One unit of evaluation: a novel, a question, a (character, level) pair, ...

    ``groups`` names what the item belongs to (``{"novel": "Emma", "category": "plot"}``): the report
    averages per value of each key in the task's ``group_by``. ``payload`` is whatever `run_item` needs
    (it is not logged; keep it small or lazy, e.g. a path).
    """

    id: str
    groups: dict[str, str] = field(default_factory=dict)
    payload: Any = None


@dataclass(slots=True)
class ItemOutcome:
    """What running one item gave: scores in [0, 1] (None: nothing to score), the parsed answer, and
    JSON-able details (counts; integers are summed per group; names starting with ``_`` stay in the
    item log, e.g. tallies for `Task.micro`), all written to the item log.

    ``samples``: the item's per-sample lines for ``OUT.samples.jsonl`` (JSON-able dicts, one per gold
    quote, gold character, probe, ...; the harness adds ``item``, ``groups`` and ``sample``, the index).
    An item that gives none is one sample line itself (scores, parsed answer, and each model call's
    prompt hash and raw answer)."""

    scores: dict[str, float | None]
    prediction: Any = None
    details: dict[str, Any] = field(default_factory=dict)
    samples: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class TaskOption:
    """An option a task takes: ``fabula eval TASK --name VALUE`` and ``Task(name=VALUE)``."""

    name: str  # the keyword argument of the task's constructor
    type: type = str  # str, int, float, bool or Path
    default: Any = None
    help: str = ""
    metavar: str | None = None
    required: bool = False
    multiple: bool = False  # repeatable on the command line; the value is a list
    choices: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


LlmUse = Literal["none", "optional", "required"]


class Task(ABC):
    """One evaluation protocol. Subclasses set the class variables and implement `items`/`run_item`."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    metrics: ClassVar[list[str]] = []  # score keys, in display order
    counts: ClassVar[list[str]] = []  # detail keys shown as table columns
    group_by: ClassVar[list[str]] = []  # EvalItem.groups keys the report averages per value
    macro_over: ClassVar[str | None] = None  # "novel": ``mean`` is the mean of the per-novel means
    options: ClassVar[list[TaskOption]] = []
    llm: ClassVar[LlmUse] = "none"  # whether `run_item` can use a model
    parallel_items: ClassVar[bool] = True  # False: items run one at a time (the method runs its own calls
    # concurrently, e.g. one novel's many attribution prompts)
    #: why the task cannot run on anonymised books (``--anonymize`` refused with this reason); None: it
    #: can — it reads ``self.anonymizer`` and maps its books and gold data through the copies it makes
    anonymize_refusal: ClassVar[str | None] = "it does not say how to map its gold data onto renamed books"
    anonymize_note: ClassVar[str] = ""  # what ``--anonymize`` needs or renames here (shown in --help)
    anonymizer: Anonymizer | None = None
    #: the run's ``--limit`` (set by `run_eval` before `check` and `items`): the harness keeps only the
    #: first ``limit`` items itself; a task reads it where it checks or reports more than its items
    limit: int | None = None

    def __init__(self, **settings: Any) -> None:
        known = {o.name: o for o in self.options}
        unknown = sorted(set(settings) - set(known))
        if unknown:
            raise ConfigError(f"task {self.name!r} has no option(s) {', '.join(unknown)}")
        values: dict[str, Any] = {}
        for option in self.options:
            value = settings.get(option.name, option.default)
            if option.required and value in (None, [], ()):
                raise ConfigError(f"task {self.name!r} needs {option.flag}", option.flag)
            if option.choices and value is not None and value not in option.choices:
                raise ConfigError(
                    f"{option.flag} must be one of {', '.join(option.choices)}, not {value!r}", option.flag
                )
            values[option.name] = value
        self.options_given = values

    @property
    def settings(self) -> dict[str, Any]:
        """What the report records as the run's settings (JSON-able); resuming needs them equal."""
        return {k: _jsonable(v) for k, v in self.options_given.items()}

    @abstractmethod
    def items(self) -> Iterable[EvalItem]:
        """The items to evaluate, in report order."""

    @abstractmethod
    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        """Run the method on one item and score it. Raise `InputError` for bad input in this item."""

    def check(self, llm: LLM | None) -> None:  # noqa: B027  (optional hook)
        """Refuse a run that cannot work (e.g. a method that needs a model, given none) before any item
        runs: raise `ConfigError`."""

    def anonymize_with(self, anonymizer: Anonymizer) -> None:
        """Run on anonymised copies of the books (``--anonymize``): the harness calls this before
        listing the items; a task that cannot (``anonymize_refusal``) raises `ConfigError`."""
        if self.anonymize_refusal is not None:
            raise ConfigError(
                f"task {self.name!r} cannot run on anonymised books: {self.anonymize_refusal}", "--anonymize"
            )
        self.anonymizer = anonymizer

    @property
    def books(self) -> Books:
        """The run's one book service (`Books`): ``self.books.book(path, until, needs={...})`` loads,
        anonymises (``--anonymize``), cuts and annotates each book once; ``self.books.copy(path)`` is the
        anonymised copy behind it (names and offsets), ``self.books.derived(book, name, make)`` caches an
        index built from a book."""
        service: Books | None = getattr(self, "_book_service", None)
        if service is None or service.anonymizer is not self.anonymizer:
            service = Books(self.anonymizer)
            self._book_service = service
        return service

    def micro(self, outcomes: list[ItemOutcome]) -> dict[str, float | int | None] | None:
        """Scores pooled over the task's own units (e.g. all quotes), from the outcomes' details."""
        return None

    def finish(self, report: EvalReport) -> None:  # noqa: B027  (optional hook)
        """Add task-specific settings or notes to the finished report."""

    def title(self) -> str:
        """The heading of the printed table."""
        return f"fabula eval {self.name}"

    def summary(self, report: EvalReport) -> list[str]:
        """Lines printed under the table (e.g. what was missed)."""
        return []


T = TypeVar("T", bound=type[Task])
TASKS: Registry[type[Task]] = Registry(
    "task",
    entry_point_group="fabula.tasks",
    lazy={
        "quotes": "fabula.tasks.pdnc_quotes",
        "characters": "fabula.tasks.pdnc_characters",
        "mcq": "fabula.tasks.lfed",
        "probe": "fabula.tasks.probes",
        "describe": "fabula.tasks.bookworm",
        "recognize": "fabula.tasks.gandalf",
        "recap": "fabula.tasks.recident",
    },
    packages=["fabula.tasks"],  # a new module here registers its task with no edit to this table
)


def task(name: str) -> Callable[[T], T]:
    """Class decorator: register a `Task` under ``name`` (``fabula eval NAME``)."""
    return TASKS.register_class(name)


def get_task(name: str) -> type[Task]:
    return TASKS.get(name)


def task_names() -> list[str]:
    return TASKS.names()


# --- running ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Done:
    item: EvalItem
    outcome: ItemOutcome | None
    error: str | None = None


def log_path_for(json_path: str | Path, kind: str = "items") -> Path:
    """Where a log of a report goes: ``OUT.json`` -> ``OUT.items.jsonl`` (per item, what resuming reads)
    or, with ``kind="samples"``, ``OUT.samples.jsonl`` (per sample)."""
    path = Path(json_path)
    return (
        path.with_name(f"{path.stem}.{kind}.jsonl")
        if path.suffix == ".json"
        else Path(f"{path}.{kind}.jsonl")
    )


def sample_lines(results: Iterable[tuple[EvalItem, ItemOutcome]]) -> Iterator[dict[str, Any]]:
    """The per-sample records of finished items, in item order (see `ItemOutcome.samples`)."""
    for item, outcome in results:
        base = {"item": item.id, "groups": item.groups}
        if outcome.samples:
            for index, sample in enumerate(outcome.samples):
                yield {**base, "sample": index, **sample}
            continue
        record: dict[str, Any] = {**base, "sample": 0, "scores": outcome.scores}
        record["prediction"] = _jsonable(outcome.prediction)
        calls = outcome.details.get("llm_calls") or []
        if calls:
            record["calls"] = [
                {k: c[k] for k in ("prompt_hash", "raw_answer", "cache_hit") if k in c} for c in calls
            ]
        yield record


def run_eval(
    task: Task,
    *,
    llm: LLM | None = None,
    json_path: str | Path | None = None,
    concurrency: int | None = None,
    progress: bool = True,
    resume: bool = True,
    on_item_error: Callable[[str, str], None] | None = None,
    anonymize: Anonymizer | None = None,
    engine: str = "local",
    ray_address: str | None = None,
    limit: int | None = None,
) -> EvalReport:
    """Run every item of ``task`` (only the first ``limit``, when given) and aggregate the report
    (written to ``json_path`` when given, with the per-item log beside it). ``anonymize``: on renamed
    copies of the books (`Task.anonymize_with`; the report's settings say ``anonymized``). See the
    module docstring for logging, resuming, failures and engines."""
    if limit is not None:
        if limit < 1:
            raise ConfigError(f"--limit must be at least 1, not {limit}", "--limit")
        task.limit = limit
    if anonymize is not None:
        task.anonymize_with(anonymize)
    if task.llm == "required" and llm is None:
        raise ConfigError(f"task {task.name!r} needs a model: give --llm SPEC", "--llm")
    check_engine(task, engine, llm, ray_address)
    task.check(llm)
    settings = task.settings
    if task.anonymizer is not None:
        mode = task.anonymizer.mode
        anonymized = {"seed": task.anonymizer.seed, **({"mode": mode} if mode != "census" else {})}
        settings = {**settings, "anonymized": anonymized}
    if llm is not None:
        from fabula.llm import redact_credentials

        settings = {**settings, "llm": redact_credentials(llm.spec)}
    if limit is not None:
        settings = {**settings, "limit": limit}
    items = list(task.items())[:limit]
    ids = [i.id for i in items]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"task {task.name!r} lists an item id twice")

    with contextlib.ExitStack() as held:
        if json_path is not None:  # two runs writing one report would interleave their item logs
            target = Path(json_path)
            _check_writable(target)
            held.enter_context(file_lock(target.with_name(f".{target.name}.lock"), "fabula eval", target))
        log: _ItemLog | None = None
        done: dict[str, _Done] = {}
        if json_path is not None:
            _check_writable(Path(json_path))
            log = _ItemLog(log_path_for(json_path))
            header = {"fabula_eval": LOG_VERSION, "task": task.name, "settings": settings}
            done = log.open(header, {i.id: i for i in items}, resume=resume)
        todo = [i for i in items if i.id not in done]
        workers = max(
            1, concurrency if concurrency is not None else (llm.concurrency if llm is not None else 1)
        )
        if llm is None or not task.parallel_items:
            workers = 1  # without a model the work is CPU-bound Python: threads would only add overhead

        results: dict[str, _Done] = dict(done)
        with _progress(task.name, len(items), len(done), progress) as advance:

            def record(result: _Done) -> None:
                if log is not None:
                    log.append(result)
                results[result.item.id] = result
                if result.error is not None and on_item_error is not None:
                    on_item_error(result.item.id, result.error)
                advance(result.item.id)

            def run_one(item: EvalItem) -> None:
                record(_run_item(task, item, llm))

            try:
                if engine == "ray":
                    _run_novels_on_ray(task, todo, ray_address, record)
                elif workers == 1:
                    for item in todo:
                        run_one(item)
                else:
                    _run_concurrently(run_one, todo, workers)
            finally:
                if log is not None:
                    log.close()
        report = _aggregate(task, settings, [results[i.id] for i in items])
        task.finish(report)
        if log is not None:
            log.mark_complete()
        if json_path is not None:
            _write_samples(log_path_for(json_path, "samples"), task, items, results)
            report.write_json(json_path)
        return report


def _write_samples(path: Path, task: Task, items: list[EvalItem], results: dict[str, _Done]) -> None:
    """``OUT.samples.jsonl``: a header line, then every sample of every scored item (atomically)."""
    from fabula._files import atomic_open

    finished = [(i, results[i.id].outcome) for i in items if results[i.id].outcome is not None]
    with atomic_open(path, "wb") as out:
        out.write(orjson.dumps({"fabula_samples": LOG_VERSION, "task": task.name}) + b"\n")
        for line in sample_lines((item, outcome) for item, outcome in finished if outcome is not None):
            out.write(orjson.dumps(line, default=str) + b"\n")


def _run_item(task: Task, item: EvalItem, llm: LLM | None) -> _Done:
    from fabula.llm import record_calls

    started = time.perf_counter()
    with record_calls() as recorder:
        try:
            outcome = task.run_item(item, llm)
        except InputError as exc:  # this item's data is bad; a ConfigError or BackendError stops the run
            return _Done(item, None, exc.one_line())
    seconds = time.perf_counter() - started
    outcome.details.setdefault("seconds", round(seconds, 2))
    calls = [c.to_dict() for c in recorder.calls]
    if calls:
        outcome.details["llm_calls"] = calls
    return _Done(item, outcome)


def check_engine(task: Task | type[Task], engine: str, llm: LLM | None, ray_address: str | None) -> None:
    """Refuse an engine the run cannot use (before any item runs)."""
    from fabula._ray import check_engine as check_engine_name

    check_engine_name(engine, ray_address)
    if engine == "local":
        return
    if "novel" not in task.group_by:
        raise ConfigError(
            f"task {task.name!r} does not group its items by novel: --engine ray runs one Ray task per novel",
            "--engine",
        )
    if llm is not None:
        raise ConfigError(
            "--engine ray runs evaluations without a model (--llm) so far; use --engine local with --llm",
            "--engine",
        )


def _run_novels_on_ray(
    task: Task, todo: list[EvalItem], address: str | None, record: Callable[[_Done], None]
) -> None:
    """One Ray task per novel (``groups["novel"]``); each finished novel's items are recorded in order."""
    from fabula._ray import run_remote

    novels: dict[str, list[EvalItem]] = {}
    for item in todo:
        novels.setdefault(item.groups.get("novel", item.id), []).append(item)

    def finished(novel: Any, done: Any, error: BaseException | None) -> None:
        if error is None:
            for result in done:
                record(result)
            return
        cause = getattr(error, "cause", None)  # what the task raised (a ConfigError, a bug): stop the run
        if isinstance(cause, Exception):
            raise cause
        for item in novels[novel]:  # the worker died more often than Ray retries: these items failed
            record(_Done(item, None, f"Ray task for {novel} failed ({type(error).__name__})"))

    calls = [
        (novel, (type(task), task.options_given, task.anonymizer, items)) for novel, items in novels.items()
    ]
    run_remote(_run_novel, calls, finished, address=address)


def _run_novel(
    task_class: type[Task], options: dict[str, Any], anonymizer: Anonymizer | None, items: list[EvalItem]
) -> list[_Done]:
    """One novel's items in a Ray worker, on a task rebuilt from its options (and ``--anonymize``)."""
    task = task_class(**options)
    if anonymizer is not None:
        task.anonymize_with(anonymizer)
    return [_run_item(task, item, None) for item in items]


def _run_concurrently(run_one: Callable[[EvalItem], None], todo: list[EvalItem], workers: int) -> None:
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures: list[Future[None]] = [pool.submit(run_one, item) for item in todo]
        finished, pending = wait(futures, return_when=FIRST_EXCEPTION)
        for future in finished:
            exc = future.exception()
            if exc is not None:
                for other in pending:
                    other.cancel()
                raise exc
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _aggregate(task: Task, settings: dict[str, Any], results: list[_Done]) -> EvalReport:
    report = EvalReport(task=task.name, metrics=list(task.metrics), settings=settings)
    scored = [r for r in results if r.outcome is not None]
    report.items = len(scored)
    report.failed = {r.item.id: r.error or "failed" for r in results if r.outcome is None}
    for key in task.group_by:
        members: dict[str, list[ItemOutcome]] = {}
        for r in scored:
            value = r.item.groups.get(key)
            if value is not None and r.outcome is not None:
                members.setdefault(value, []).append(r.outcome)
        report.groups[key] = {value: _group_entry(task, outs) for value, outs in members.items()}
    if "novel" in report.groups:
        report.novels = report.groups.pop("novel")
    outcomes = [r.outcome for r in scored if r.outcome is not None]
    if task.macro_over != "novel":
        report.item_mean = {m: mean_of([o.scores.get(m) for o in outcomes]) for m in task.metrics}
    report.micro = task.micro(outcomes)
    return report


def _group_entry(task: Task, outcomes: list[ItemOutcome]) -> dict[str, Any]:
    """Mean of each metric over the group's items; integer details summed; with one item, its details."""
    entry: dict[str, Any] = {m: mean_of([o.scores.get(m) for o in outcomes]) for m in task.metrics}
    if len(outcomes) == 1:
        entry.update({k: v for k, v in outcomes[0].details.items() if _shown(k)})
        return entry
    entry["items"] = len(outcomes)
    for key in filter(_shown, outcomes[0].details):
        values = [o.details.get(key) for o in outcomes]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            entry[key] = sum(v for v in values if isinstance(v, int))
        elif key == "seconds":
            entry[key] = round(sum(float(v) for v in values if isinstance(v, int | float)), 2)
    return entry


def _shown(detail: str) -> bool:
    """Details named ``_x`` (tallies for ``micro``) and the model calls stay in the item log only."""
    return not detail.startswith("_") and detail != "llm_calls"


# --- the per-item log ------------------------------------------------------------------------------


class _ItemLog:
    """``OUT.items.jsonl``: a header line, one line per finished item, a "complete" line at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: Any = None
        self._lock = threading.Lock()

    def open(self, header: dict[str, Any], items: dict[str, EvalItem], *, resume: bool) -> dict[str, _Done]:
        """Open for appending; return the items an interrupted earlier run of the same task finished."""
        done = self._read_unfinished(header, items) if resume else None
        try:
            if done is None:
                self._file = self.path.open("wb")
                self._write(header)
                done = {}
            else:
                self._file = self.path.open("ab")
        except OSError as exc:
            raise InputError(f"cannot write the item log ({exc.strerror})", self.path) from exc
        return done

    def _read_unfinished(self, header: dict[str, Any], items: dict[str, EvalItem]) -> dict[str, _Done] | None:
        try:
            lines = self.path.read_bytes().splitlines()
        except OSError:
            return None
        records: list[dict[str, Any]] = []
        for line in lines:
            try:
                records.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue  # a line cut off by the interruption: that item runs again
        if not records or _comparable(records[0]) != _comparable(header):
            return None
        if any(r.get("complete") for r in records):
            return None
        done: dict[str, _Done] = {}
        for record in records[1:]:
            item = items.get(str(record.get("id")))
            if item is None or record.get("error") is not None:
                continue  # failed items are tried again
            outcome = ItemOutcome(
                scores=dict(record.get("scores") or {}),
                prediction=record.get("prediction"),
                details=dict(record.get("details") or {}),
                samples=list(record.get("samples") or []),
            )
            done[item.id] = _Done(item, outcome)
        if lines and not lines[-1].endswith(b"}"):
            self._truncate_partial_line()
        return done

    def _truncate_partial_line(self) -> None:
        data = self.path.read_bytes()
        keep = data[: data.rfind(b"\n") + 1]
        self.path.write_bytes(keep)

    def append(self, result: _Done) -> None:
        record: dict[str, Any] = {"id": result.item.id, "groups": result.item.groups}
        if result.outcome is None:
            record["error"] = result.error
        else:
            outcome = result.outcome
            calls = outcome.details.get("llm_calls") or []
            record["scores"] = outcome.scores
            record["prediction"] = _jsonable(outcome.prediction)
            if len(calls) == 1:  # the common one-prompt item: its call at the top level too
                record.update(
                    {k: calls[0][k] for k in ("prompt_hash", "raw_answer", "cache_hit") if k in calls[0]}
                )
            record["details"] = _jsonable(outcome.details)
            if outcome.samples:
                record["samples"] = _jsonable(outcome.samples)
        with self._lock:
            self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(orjson.dumps(record, default=str) + b"\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def mark_complete(self) -> None:
        with self.path.open("ab") as out:
            out.write(orjson.dumps({"complete": True}) + b"\n")


def _comparable(header: dict[str, Any]) -> bytes:
    return orjson.dumps(
        {k: header.get(k) for k in ("fabula_eval", "task", "settings")},
        option=orjson.OPT_SORT_KEYS,
        default=str,
    )


def _check_writable(path: Path) -> None:
    """Fail before the work, not after it, when the report cannot be written."""
    if path.is_dir():
        raise InputError("is a directory, not a file for the report", path)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise InputError("cannot write the report: its folder does not exist", path)
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError("cannot write the report: permission denied", path)


def _jsonable(value: Any) -> Any:
    """JSON-able copy of a value (paths and other objects as strings)."""
    return orjson.loads(orjson.dumps(value, default=str))


@contextlib.contextmanager
def _progress(label: str, total: int, already: int, enabled: bool) -> Iterator[Callable[[str], None]]:
    """A rich progress bar on a terminal; else one line per finished item on stderr (at most ~20)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    if not enabled:
        yield lambda _id: None
        return
    if already:
        console.print(
            f"resuming: {already} of {total} items already done (an interrupted run's log; "
            "--no-resume starts afresh)",
            markup=False,
            highlight=False,
        )
    if not console.is_terminal:
        count = [already]
        step = max(1, total // 20)

        def note(item_id: str) -> None:
            count[0] += 1
            if count[0] % step == 0 or count[0] == total:
                console.print(f"… {item_id} ({count[0]}/{total})", markup=False, highlight=False)

        yield note
        return
    bar = Progress(
        TextColumn(f"eval {label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=True,
    )
    with bar:
        handle = bar.add_task("", total=total, completed=already)
        yield lambda item_id: bar.update(handle, advance=1, description=item_id)
