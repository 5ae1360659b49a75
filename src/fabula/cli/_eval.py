"""``fabula eval TASK …`` for every registered task, built from the options the task declares, and
``fabula eval --list``. A new task needs no edit here: register it with ``@fabula.tasks.task("name")``
in a module under ``fabula/tasks/`` (found automatically) or in another package through the
``fabula.tasks`` entry-point group."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from fabula.cli._app import eval_app, stderr, stdout
from fabula.cli._options import (
    ConcurrencyOption,
    EngineOption,
    JsonOutOption,
    LlmOption,
    NoCacheOption,
    RayAddressOption,
    StructuredOption,
    TimeoutOption,
    open_llm,
    refuse_model_options_without_llm,
)
from fabula.errors import InputError
from fabula.llm import DEFAULT_TIMEOUT
from fabula.tasks import TASKS, Task, TaskOption, plain_progress, run_eval

LimitOption = Annotated[
    int | None,
    typer.Option(
        "--limit",
        metavar="N",
        min=1,
        help="Run only the first N items, to try a task or a model on a few (the report's settings say so; "
        "only a run with the same N resumes its log).",
    ),
]
NoResumeOption = Annotated[
    bool,
    typer.Option(
        "--no-resume",
        help="Start afresh even when OUT.items.jsonl holds an interrupted run of the same settings.",
    ),
]


@eval_app.callback(invoke_without_command=True)
def _eval_group(
    ctx: typer.Context,
    list_tasks: Annotated[bool, typer.Option("--list", help="List the evaluation tasks and exit.")] = False,
) -> None:
    """Evaluate fabula's methods (or an LLM) on published data sets with the papers' protocols."""
    if list_tasks:
        entries = TASKS.items()
        width = max((len(name) for name, _ in entries), default=0)
        for name, task_class in entries:
            stdout.print(
                f"{name:<{width}}  {task_class.description}", markup=False, highlight=False, soft_wrap=True
            )
        raise typer.Exit()
    if ctx.invoked_subcommand is None:
        stdout.print(ctx.get_help(), markup=False, highlight=False)
        raise typer.Exit()


def _task_parameter(option: TaskOption) -> inspect.Parameter:
    kind: Any = list.__class_getitem__(option.type) | None if option.multiple else option.type
    if not option.multiple and option.default is None and not option.required:
        kind = option.type | None
    info = typer.Option(
        option.flag, metavar=option.metavar, help=option.help, show_default=not option.required
    )
    default = inspect.Parameter.empty if option.required else option.default
    return inspect.Parameter(
        option.name, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[kind, info], default=default
    )


_COMMON_LLM = {
    "llm": (LlmOption, None),
    "no_cache": (NoCacheOption, False),
    "timeout": (TimeoutOption, DEFAULT_TIMEOUT),
    "structured": (StructuredOption, "auto"),
    "concurrency": (ConcurrencyOption, None),
}
ANONYMIZE_HELP = (
    "Run on copies of the books with every character renamed (fabula.anonymize), gold spans and names "
    "mapped the same way (docs/recognition.md)."
)


def anonymize_option(task_class: type[Task]) -> Any:
    """``--anonymize`` with the task's own word: what it renames, or why it refuses."""
    refusal = task_class.anonymize_refusal
    text = ANONYMIZE_HELP if refusal is None else f"Refused by this task: {refusal}."
    if refusal is None and task_class.anonymize_note:
        text += " " + task_class.anonymize_note
    return Annotated[bool, typer.Option("--anonymize", help=text)]


AnonymizeSeedOption = Annotated[
    int, typer.Option("--anonymize-seed", metavar="N", help="Seed of the new names with --anonymize.")
]
AnonymizeModeOption = Annotated[
    str,
    typer.Option(
        "--anonymize-mode",
        metavar="MODE",
        help="How --anonymize renames: census (fabula's drawn names), rep (GANDALF's -Rep: the cast's own "
        "names shuffled, first and last separately), swap-gender, all-female, all-male (the paper's probes).",
    ),
]
_COMMON = {
    "json_out": (JsonOutOption, None),
    "no_resume": (NoResumeOption, False),
    "limit": (LimitOption, None),
    "anonymize": (None, False),  # per task: `anonymize_option`
    "anonymize_seed": (AnonymizeSeedOption, 0),
    "anonymize_mode": (AnonymizeModeOption, "census"),
}
_BY_NOVEL = {  # tasks whose items group by novel: one Ray task per novel
    "engine": (EngineOption, "local"),
    "ray_address": (RayAddressOption, None),
}


def add_task_command(task_class: type[Task]) -> None:
    """Register ``fabula eval NAME`` for ``task_class`` with its declared options."""
    parameters = [_task_parameter(o) for o in task_class.options]
    common = {
        **(_COMMON_LLM if task_class.llm != "none" else {}),
        **_COMMON,
        **(_BY_NOVEL if "novel" in task_class.group_by else {}),
    }
    taken = {p.name for p in parameters}
    for name, (annotation, default) in common.items():
        if name == "anonymize":
            annotation = anonymize_option(task_class)
        if name not in taken:
            parameters.append(
                inspect.Parameter(
                    name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
                )
            )

    def command(**values: Any) -> None:
        run_task_command(task_class, values)

    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__doc__ = task_class.description
    eval_app.command(task_class.name, help=task_class.description)(command)


def run_task_command(task_class: type[Task], values: dict[str, Any]) -> None:
    """Build the task from the command line's values, run it on the harness, print and write the report."""
    json_out: Path | None = values.pop("json_out", None)
    no_resume = bool(values.pop("no_resume", False))
    llm_spec: str | None = values.pop("llm", None)
    no_cache = bool(values.pop("no_cache", False))
    timeout = float(values.pop("timeout", DEFAULT_TIMEOUT))
    concurrency: int | None = values.pop("concurrency", None)
    structured = str(values.pop("structured", "auto"))
    # --concurrency without a model still sets how many items run at once
    refuse_model_options_without_llm(llm_spec, timeout=timeout, no_cache=no_cache, structured=structured)
    anonymize = bool(values.pop("anonymize", False))
    anonymize_seed = int(values.pop("anonymize_seed", 0))
    anonymize_mode = str(values.pop("anonymize_mode", "census"))
    engine = str(values.pop("engine", "local"))
    ray_address: str | None = values.pop("ray_address", None)
    limit: int | None = values.pop("limit", None)
    options = {o.name: values[o.name] for o in task_class.options if o.name in values}
    for option in task_class.options:
        if option.multiple and options.get(option.name) == []:
            options[option.name] = None
    evaluation = task_class(**options)
    anonymizer = None
    if not anonymize and (anonymize_mode != "census" or anonymize_seed != 0):
        from fabula.errors import ConfigError

        given = "--anonymize-mode" if anonymize_mode != "census" else "--anonymize-seed"
        raise ConfigError("add --anonymize: without it the books are not renamed", given)
    if anonymize:
        from fabula.anonymize import MODES, Anonymizer
        from fabula.errors import ConfigError

        if anonymize_mode not in MODES:
            raise ConfigError(
                f"unknown mode {anonymize_mode!r} (choose from {', '.join(MODES)})", "--anonymize-mode"
            )
        anonymizer = Anonymizer(seed=anonymize_seed, mode=anonymize_mode)
        evaluation.anonymize_with(anonymizer)  # refuses before a model is opened
    model = None
    if llm_spec is not None:
        model = open_llm(
            llm_spec, no_cache=no_cache, timeout=timeout, structured=structured, concurrency=concurrency
        )
    try:
        report = run_eval(
            evaluation,
            llm=model,
            json_path=json_out,
            concurrency=concurrency,
            resume=not no_resume,
            anonymize=anonymizer,
            engine=engine,
            ray_address=ray_address,
            limit=limit,
            progress=eval_progress,
            on_item_error=lambda item, error: stderr.print(
                f"fabula: error: {item}: {error}", markup=False, highlight=False, soft_wrap=True
            ),
        )
    finally:
        if model is not None:
            stderr.print(model.usage.line(), markup=False, highlight=False)
            model.close()
    report.print_table(stdout, counts=list(task_class.counts), title=evaluation.title())
    for line in evaluation.summary(report):
        stdout.print(line, markup=False, highlight=False)
    if anonymizer is not None:
        stdout.print(
            f"ran on anonymised copies of the books (every character renamed, --anonymize-seed {anonymizer.seed}, "
            f"--anonymize-mode {anonymizer.mode})",
            markup=False,
            highlight=False,
        )
    if report.failed:
        raise InputError(
            f"{len(report.failed)} of {len(report.failed) + (report.items or 0)} items could not be scored "
            f"({', '.join(report.failed)}); the others are in the report"
        )


_ADDED: set[str] = set()


def register_task_commands() -> None:
    """One ``fabula eval NAME`` per registered task (called when the command line runs, so tasks
    registered after this module was imported get their command too)."""
    for name, task_class in TASKS.items():
        if name not in _ADDED:
            _ADDED.add(name)
            add_task_command(task_class)


@contextlib.contextmanager
def eval_progress(label: str, total: int, already: int) -> Iterator[Callable[[str], None]]:
    """The harness's progress on a terminal: a rich bar (else the harness's plain lines on stderr)."""
    if not stderr.is_terminal:
        with plain_progress(label, total, already) as advance:
            yield advance
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    if already:
        stderr.print(
            f"resuming: {already} of {total} items already done (an interrupted run's log; "
            "--no-resume starts afresh)",
            markup=False,
            highlight=False,
        )
    bar = Progress(
        TextColumn(f"eval {label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.description}"),
        console=stderr,
        transient=True,
    )
    with bar:
        handle = bar.add_task("", total=total, completed=already)
        yield lambda item_id: bar.update(handle, advance=1, description=item_id)
