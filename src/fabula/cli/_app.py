"""The Typer application objects shared by every subcommand module, and how the CLI prints.

Help is click's plain formatter (it wraps every line to the terminal instead of cutting option names
and examples as the boxed rich help does), without typer's type labels (``<path>``, ``<bool>``) and
``{BOOK}`` usage braces. Tables go through `stdout`, a rich Console that prints a `rich.table.Table`
as a Markdown table when stdout is not a terminal: piped output keeps every full name and value
instead of rich's 80-column cut ("reca…"), and stays readable and parseable.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any

import typer
import typer.core
import typer.main
from rich.console import Console
from rich.table import Table
from rich.text import Text

from fabula._version import __version__


class PipeAwareConsole(Console):
    """A Console that prints tables as Markdown when its output is not a terminal."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        if not self.is_terminal:  # into a file or a pipe: lines as long as they are, not cut at 80 columns
            kwargs.setdefault("soft_wrap", True)
        if self.is_terminal or not any(isinstance(o, Table) for o in objects):
            for item in objects:
                if isinstance(item, Table):  # a narrow terminal wraps a cell rather than cutting it ("reca…")
                    for column in item.columns:
                        column.overflow = "fold" if column.overflow == "ellipsis" else column.overflow
            super().print(*objects, **kwargs)
            return
        for item in objects:
            if isinstance(item, Table):
                self.file.write(table_markdown(item))
                self.file.flush()
            else:
                super().print(item, **kwargs)


def _cell_text(cell: Any) -> str:
    if isinstance(cell, Text):
        return cell.plain
    text = str(cell) if cell is not None else ""
    return Text.from_markup(text).plain if "[" in text else text


def table_markdown(table: Table) -> str:
    """A rich Table as a GitHub-flavoured Markdown table (title as a heading line), every cell in full."""
    columns = table.columns
    header = [_cell_text(c.header) or " " for c in columns]
    rows: list[list[str]] = [[] for _ in range(table.row_count)]
    for column in columns:
        for i, cell in enumerate(column.cells):
            rows[i].append(_cell_text(cell))

    def line(cells: Iterable[str]) -> str:
        return "| " + " | ".join(" ".join(c.split()).replace("|", "\\|") for c in cells) + " |"

    align = ["---:" if c.justify == "right" else "---" for c in columns]
    lines = []
    if table.title:
        lines += [_cell_text(table.title), ""]
    if not table.show_header:  # a key/value listing: aligned plain columns read best
        widths = [max((len(row[i]) for row in rows), default=0) for i in range(len(columns))]
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    else:
        lines += [line(header), "|" + "|".join(align) + "|", *(line(row) for row in rows)]
    return "\n".join(lines) + "\n"


def default_command_group(default: str) -> type[typer.core.TyperGroup]:
    """A command group where ``fabula GROUP ARGS…`` means ``fabula GROUP DEFAULT ARGS…`` unless the first
    argument names one of its commands (``fabula recap BOOK`` / ``fabula recap build``)."""

    class DefaultCommandGroup(typer.core.TyperGroup):
        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
            if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
                args = [default, *args]
            return super().parse_args(ctx, args)

    return DefaultCommandGroup


stdout = PipeAwareConsole(highlight=False)
# messages too: into a log or a pipe a line stays whole (a path or the LLM usage line cut at 80 columns
# could not be copied or grepped)
stderr = PipeAwareConsole(stderr=True, highlight=False)


class Interrupted(typer.Exit):
    """Exit 130 after a command has already told the user what an interrupt kept (the entry point
    then adds no generic line of its own)."""

    def __init__(self) -> None:
        super().__init__(130)
        _INTERRUPT_EXPLAINED.append(True)


_INTERRUPT_EXPLAINED: list[bool] = []


def interrupt_explained() -> bool:
    """Whether a command raised `Interrupted` in this process."""
    return bool(_INTERRUPT_EXPLAINED)


_DIGITS = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def _plain_value(annotation: Any, info: Any, value: Any) -> tuple[bool, Any]:
    """``(True, value)`` as typer coerces it, for a value that is plainly of ``annotation``'s kind and in
    range (a string, a whole number or decimal in digits, a path, a list of these), else ``(False, None)``.
    These are the same values typer's pydantic adapters give (`tests/cli/test_coercion.py`); anything else,
    errors included, is left to typer."""
    if info.parser is not None:  # typer parses with it, whatever the annotation
        return False, None
    if annotation is str:
        return (True, value) if type(value) is str else (False, None)
    if annotation is int or annotation is float:
        if type(value) is str and (_DIGITS if annotation is int else _DECIMAL).fullmatch(value):
            value = annotation(value)
        if type(value) is not annotation or info.clamp:
            return False, None
        in_range = (info.min is None or value >= info.min) and (info.max is None or value <= info.max)
        return (True, value) if in_range else (False, None)
    if annotation is Path and type(value) is str and value:
        from typer._param_types import coerce_cli_path  # typer's own checks of a path (exists, readable, ...)

        try:
            return True, coerce_cli_path(Path(value), info, path_type=Path)
        except typer.BadParameter:  # typer's own message, which names the path as it was given
            return False, None
    if getattr(annotation, "__origin__", None) is list and isinstance(value, list | tuple):
        items = [_plain_value(annotation.__args__[0], info, item) for item in value]
        return (True, [item for _, item in items]) if all(done for done, _ in items) else (False, None)
    return False, None


class _PlainValues:
    """A parameter's values coerced as typer coerces them, without importing pydantic for the plain ones.

    typer (0.2x) coerces every value, defaults and None included, through a pydantic ``TypeAdapter`` it
    builds per parameter: importing pydantic and building the adapters costs every command about 0.15 s of
    start-up (~40 % of ``fabula analyze``'s before the book). fabula's parameters are strings, numbers in
    a range, paths and lists of these, which `_plain_value` coerces; anything else goes to typer."""

    def __init__(self, typer_coercion: Callable[[], Any]) -> None:
        self._typer_coercion = typer_coercion

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        try:
            if value is None:  # as typer's `RuntimeParam.coerce`
                return () if param.multiple or param.nargs == -1 else None
            descriptor = param.type_descriptor
            if descriptor.file_annotation is None:
                done, coerced = _plain_value(descriptor.annotation, descriptor.parameter_info, value)
                if done:
                    return coerced
        except (AttributeError, ImportError):  # a typer whose internals differ: its own coercion, slower
            pass
        return self._typer_coercion().coerce(value, param=param, ctx=ctx)


class _PlainArgument(typer.core.TyperArgument):
    """An argument shown as its metavar alone: ``BOOK``, not ``{BOOK}`` / ``BOOK <path>``."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        if self.nargs != 1 and not name.endswith("..."):
            name += "..."
        return name if self.required else f"[{name}]"

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def get_runtime_param(self) -> Any:
        """`_PlainValues` (typer versions that coerce with pydantic call this; older ones never do)."""
        return _PlainValues(super().get_runtime_param)


_TYPE_METAVARS = {"int": "N", "float": "X", "str": "TEXT"}


class _PlainOption(typer.core.TyperOption):
    """An option's value shown as its metavar, or as click shows it (``N``, ``TEXT``), never ``<int range>``."""

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.metavar is not None:
            return self.metavar
        label = (self.display_type(ctx) or "").strip("<>").removesuffix(" range")
        return _TYPE_METAVARS.get(label, label.upper())

    def get_runtime_param(self) -> Any:
        """`_PlainValues`, as `_PlainArgument.get_runtime_param`."""
        return _PlainValues(super().get_runtime_param)


def _first_sentence(text: str) -> str:
    """The first sentence of a help text: the summary a command list shows. A colon does not end it
    ("… analyses: ROUGE, entity recall, …" shown as "… analyses:" said nothing)."""
    paragraph = text.strip().split("\n\n")[0]
    return " ".join(re.split(r"(?<=[.!?])\s+(?=[A-Z])", " ".join(paragraph.split()))[0].split())


def _plain_help(command: Any) -> Any:
    """Tidy typer's plain help for every (sub)command: no type labels, no braces, full command summaries."""
    for param in command.params:
        if isinstance(param, typer.core.TyperArgument):
            param.__class__ = _PlainArgument
        elif isinstance(param, typer.core.TyperOption):
            param.__class__ = _PlainOption
    _plain_help_option(command)
    commands = getattr(command, "commands", None)  # a group (typer ships its own copy of click)
    if isinstance(commands, dict):
        for name, sub in commands.items():
            if not sub.short_help:
                sub.short_help = _first_sentence(sub.help or "")  # click would cut it at 45 characters
            commands[name] = _plain_help(sub)
    return command


def _plain_help_option(command: Any) -> None:
    """The ``--help`` option, which click makes when a command first parses (``get_help_option``), as a
    `_PlainOption` too: its value is coerced like the others' (`_PlainValues`), with no pydantic."""
    make = command.get_help_option

    def get_help_option(ctx: Any) -> Any:
        option = make(ctx)
        if type(option) is typer.core.TyperOption:
            option.__class__ = _PlainOption
        return option

    command.get_help_option = get_help_option


def click_command() -> Any:
    """The whole CLI as one click command, with the help tidied (see the module docstring)."""
    return _plain_help(typer.main.get_command(app))


app = typer.Typer(
    name="fabula",
    help="Read a whole novel and understand its characters: the cast and their names, who says what, passages about them, and evaluation with published protocols.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
eval_app = typer.Typer(
    help="Evaluate fabula's methods (or an LLM) on published data sets with the papers' protocols. Every "
    "task writes the same report (--json OUT, a resumable per-item log) and takes --anonymize: the books "
    "with every character renamed, gold data mapped alike (TASK --help says what, or why it refuses).",
    no_args_is_help=True,
)
app.add_typer(eval_app, name="eval")


def _version_callback(value: bool) -> None:
    if value:
        stdout.print(f"fabula {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """fabula: characters, quotes and more from whole novels, offline on a CPU."""
