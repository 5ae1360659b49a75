"""The command line coerces its parameters' values without pydantic (`fabula.cli._app._PlainValues`) and
gets exactly what typer's own coercion gives: the same values, or the same error message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer

from fabula.cli import _app, click_command
from tests.conftest import ROOT


def _parameters() -> list[tuple[Any, Any]]:
    """Every parameter of every command, the ``--help`` options included, with a context for each."""
    found = []

    def walk(command: Any, parent: Any) -> None:
        ctx = typer.Context(command, parent=parent, help_option_names=["-h", "--help"])
        for param in [*command.params, command.get_help_option(ctx)]:
            if param is not None:
                found.append((param, ctx))
        for sub in getattr(command, "commands", {}).values():
            walk(sub, ctx)

    walk(click_command(), None)
    return found


def _values(tmp_path: Path) -> list[Any]:
    (tmp_path / "file.txt").write_text("x")
    unreadable = tmp_path / "unreadable.txt"
    unreadable.write_text("x")
    unreadable.chmod(0)
    texts = ["", " ", "x", "-", "0", "1", "2", "007", "65535", "65536", "99999999999999999999", "-3", "+3", " 4",
             "1.5", "0.5", "1.0", ".5", "5.", "1e3", "1_000", "nan", "inf", "0.01", "0.001", "true", "no", "a//b/",
             "./x", "~", str(tmp_path), str(tmp_path / "file.txt"), str(tmp_path / "missing"), str(unreadable)]  # fmt: skip
    others = [None, True, False, 0, 1, 3, -1, 0.5, 1.0, 2.5, Path("x"), [], texts[:6], texts[25:], ("1", "2")]
    return [*others, *texts]


def _outcome(coerce: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        result = coerce(value, param=param, ctx=ctx)
    except typer.BadParameter as exc:
        return "error", exc.format_message()
    kinds = [type(r) for r in result] if isinstance(result, list) else None
    return "value", (type(result), repr(result), kinds)  # repr: nan == nan


def test_same_values_and_errors_as_typer(tmp_path: Path) -> None:
    values = _values(tmp_path)
    parameters = _parameters()
    assert len(parameters) > 300
    compared = 0
    for param, ctx in parameters:
        ours = param.get_runtime_param()
        theirs = typer.core._TyperParameter.get_runtime_param(param)  # typer's own, with pydantic
        assert ours is not theirs
        for value in values:
            expected = _outcome(theirs.coerce, value, param, ctx)
            assert _outcome(ours.coerce, value, param, ctx) == expected, (param.name, value)
            compared += 1
    assert compared > 10_000


def test_analyze_without_pydantic(tmp_path: Path) -> None:
    """A whole ``fabula analyze`` (and ``--help``) in a fresh interpreter never imports pydantic (~0.15 s of
    every command's start-up with typer's own coercion)."""
    probe = (
        "import sys\nfrom fabula.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')))\n"
    )
    book = ROOT / "examples" / "alice_in_wonderland.txt"
    for args in (["analyze", str(book), "-o", str(tmp_path), "--jobs", "1"], ["analyze", "--help"]):
        done = subprocess.run(
            [sys.executable, "-c", probe, *args],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env={**os.environ, "FABULA_FORK": "0"},
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


@pytest.mark.parametrize("args", [["--jobs", "0"], ["--jobs", "x"], ["--max-bytes", "1.5"], ["-o"]])
def test_refused_values_keep_typer_messages(args: list[str]) -> None:
    """A value the plain path does not take goes to typer, whose message names the option and the problem."""
    done = subprocess.run(
        [sys.executable, "-m", "fabula", "analyze", "book.txt", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "Invalid value for" in done.stderr or "requires an argument" in done.stderr, done.stderr


def test_a_parser_is_typers_to_call() -> None:
    """A parameter with its own ``parser`` is coerced by typer (the parser's value), not taken as it is."""
    command = typer.main.get_command(_parsed_app())
    ctx = typer.Context(command)
    param: Any = next(p for p in command.params if p.name == "size")
    param.__class__ = _app._PlainOption
    assert param.get_runtime_param().coerce("3", param=param, ctx=ctx) == 6


def _parsed_app() -> typer.Typer:
    parsed = typer.Typer()

    @parsed.command()
    def run(size: Annotated[int, typer.Option(parser=lambda text: 2 * int(text))] = 1) -> None:
        """A command whose option has a parser."""

    return parsed


def test_a_typer_with_other_internals_gets_its_own_coercion() -> None:
    """A parameter without the attributes the plain path reads (another typer version) is coerced by
    typer, not failed: the plain path is a shortcut, never a requirement."""
    asked: list[Any] = []

    class TyperCoercion:
        def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
            asked.append(value)
            return f"typer:{value}"

    class OtherParam:  # no type_descriptor, as a typer that renamed it would have
        multiple = False
        nargs = 1

    plain = _app._PlainValues(TyperCoercion)
    assert plain.coerce("7", OtherParam(), None) == "typer:7"
    assert asked == ["7"]
