"""``fabula eval quotes --pdnc DIR``: quote detection and speaker attribution with the PDNC protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from fabula.cli._app import eval_app, stderr, stdout
from fabula.cli._options import (
    AttributionMethodOption,
    JsonOutOption,
    LlmOption,
    NoCacheOption,
    StrategyOption,
    llm_method_options,
)
from fabula.errors import InputError
from fabula.quotes import DEFAULT_METHOD


@eval_app.command("quotes")
def eval_quotes_command(
    pdnc: Annotated[
        Path,
        typer.Option("--pdnc", metavar="DIR", help="A directory laid out like PDNC (one folder per novel)."),
    ],
    characters: Annotated[
        str,
        typer.Option("--characters", metavar="gold|predicted", help="Gold character lists or fabula's own."),
    ] = "gold",
    method: AttributionMethodOption = DEFAULT_METHOD,
    llm: LlmOption = None,
    strategy: StrategyOption = "first",
    no_cache: NoCacheOption = False,
    novel: Annotated[
        list[str] | None, typer.Option("--novel", metavar="NAME", help="Only this novel (repeatable).")
    ] = None,
    json_out: JsonOutOption = None,
) -> None:
    """Detection P/R/F1 and attribution accuracy (speakers with >= 10 quotes) per novel, with the mean."""
    from fabula.tasks.pdnc_quotes import COUNTS, evaluate_quotes

    if characters not in ("gold", "predicted"):
        raise InputError(f"--characters must be gold or predicted, not {characters!r}", "--characters")
    with llm_method_options(llm, no_cache, strategy) as options:
        report = evaluate_quotes(
            pdnc,
            characters="gold" if characters == "gold" else "predicted",
            method=method,
            novels=novel or None,
            progress=lambda name: stderr.print(f"… {name}", markup=False, highlight=False),
            **options,
        )
    if llm is not None:
        report.settings.update({"llm": llm, "strategy": strategy})
        llm_report = _last_llm_report()
        if llm_report is not None:
            report.settings["prompt"] = llm_report.prompt
    report.print_table(
        stdout, counts=COUNTS[:1], title=f"fabula eval quotes ({characters} characters, {method})"
    )
    if json_out is not None:
        report.write_json(json_out)


def _last_llm_report() -> Any:
    from fabula.quotes._llm_attribution import last_report

    return last_report()
