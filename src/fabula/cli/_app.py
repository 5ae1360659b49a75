"""The Typer application objects shared by every subcommand module."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from fabula._version import __version__

stdout = Console(highlight=False)
stderr = Console(stderr=True, highlight=False)

app = typer.Typer(
    name="fabula",
    help="Read a whole novel and understand its characters: the cast and their names, who says what, passages about them, and evaluation with published protocols.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)
eval_app = typer.Typer(
    help="Evaluate fabula's methods (or an LLM) on published data sets with the papers' protocols.",
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
