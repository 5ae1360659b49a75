"""``fabula eval characters --pdnc DIR``: character discovery scored on PDNC (recall, merges, splits)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fabula.cli._app import eval_app, stderr, stdout
from fabula.cli._options import JsonOutOption
from fabula.tasks.pdnc_characters import evaluate_characters


@eval_app.command("characters")
def eval_characters_command(
    pdnc: Annotated[
        Path, typer.Option("--pdnc", metavar="DIR", help="A PDNC directory (one folder per novel).")
    ],
    json_out: JsonOutOption = None,
    novel: Annotated[
        list[str] | None, typer.Option("--novel", help="Only this novel (folder name); repeatable.")
    ] = None,
    ner_model: Annotated[
        str | None,
        typer.Option("--ner-model", metavar="NAME", help="Add PERSON entities from this spaCy pipeline."),
    ] = None,
) -> None:
    """Discover the characters of each PDNC novel and compare with the gold characters (≥ 10 quotes)."""
    report = evaluate_characters(
        pdnc,
        novels=novel or None,
        ner_model=ner_model,
        progress=lambda name: stderr.print(f"  {name}", markup=False),
    )
    report.print_table(stdout, counts=["gold_characters", "predicted_characters", "seconds"])
    missed = {name: s["missed"] for name, s in report.novels.items() if s.get("missed")}
    if missed:
        stdout.print("missed: " + "; ".join(f"{n}: {', '.join(m)}" for n, m in missed.items()), markup=False)
    if json_out is not None:
        report.write_json(json_out)
