"""The task side of the harness: `Task` (what a protocol declares and implements), its items and
outcomes, its options, and the task registry `TASKS` (``@task("name")``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

import orjson

from fabula._registry import Registry
from fabula.errors import ConfigError
from fabula.tasks._books import Books
from fabula.tasks._evaluation import EvalReport

if TYPE_CHECKING:
    from fabula.anonymize import Anonymizer
    from fabula.llm import LLM


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
    #: how each metric's per-item values become a group's value: a registered aggregation's name
    #: (`fabula.metrics.AGGREGATIONS`; ``mean`` when a metric is not named here)
    aggregation: ClassVar[dict[str, str]] = {}
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
                raise ConfigError(  # "--method: must be one of …", not "--method: --method must be …"
                    f"must be one of {', '.join(option.choices)}, not {value!r}", option.flag
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

    def close(self) -> None:  # noqa: B027  (optional hook)
        """Release what `check` opened (e.g. a judge model); called once after every run, also a failed one."""

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
    """Class decorator: register a `Task` under ``name`` (``fabula eval NAME``), after checking that
    the aggregations it declares are registered and name metrics it reports."""
    register = TASKS.register_class(name)

    def decorate(cls: T) -> T:
        from fabula.metrics import get_aggregation

        for metric_name, aggregation in cls.aggregation.items():
            if metric_name not in cls.metrics:
                raise ConfigError(
                    f"task {name!r} declares an aggregation for {metric_name!r}, not one of its metrics"
                )
            get_aggregation(aggregation)  # an unknown aggregation: ConfigError naming the registered ones
        return register(cls)

    return decorate


def aggregate_of(task: Task | type[Task], metric: str) -> Callable[[list[float | int | None]], float | None]:
    """The aggregation ``task`` declares for ``metric`` (``mean`` by default)."""
    from fabula.metrics import get_aggregation

    return get_aggregation(task.aggregation.get(metric, "mean"))


def get_task(name: str) -> type[Task]:
    return TASKS.get(name)


def task_names() -> list[str]:
    return TASKS.names()


def _jsonable(value: Any) -> Any:
    """JSON-able copy of a value (paths and other objects as strings)."""
    return orjson.loads(orjson.dumps(value, default=str))
