"""Every command that takes a model takes the same LLM options, defined once in `fabula.cli._options`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabula.cli import _eval, click_command

LLM_OPTIONS = {"--llm", "--timeout", "--structured", "--concurrency"}


def _commands(command: Any, path: str = "fabula") -> Iterator[tuple[str, Any]]:
    yield path, command
    if isinstance(getattr(command, "commands", None), dict):  # a group (typer's own click or click's)
        for name, sub in command.commands.items():
            yield from _commands(sub, f"{path} {name}")


def test_every_llm_command_has_timeout_structured_and_concurrency() -> None:
    _eval.register_task_commands()
    root = click_command()
    checked = []
    for path, command in _commands(root):
        flags = {flag for p in command.params for flag in getattr(p, "opts", [])}
        if "--llm" in flags:
            checked.append(path)
            assert flags >= LLM_OPTIONS, f"{path} lacks {sorted(LLM_OPTIONS - flags)}"
    assert {
        "fabula quotes",
        "fabula describe",
        "fabula recap show",
        "fabula eval mcq",
        "fabula probe",
    } <= set(checked)
