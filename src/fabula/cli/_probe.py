"""``fabula probe BOOK… --llm SPEC``: memorisation probes per book; ``fabula probe compare PROBES TASK``:
how a probe score relates to a task's per-book accuracy."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
import typer

from fabula._files import write_bytes_atomic
from fabula.cli._app import app, stdout
from fabula.cli._eval import run_task_command
from fabula.cli._options import (
    ConcurrencyOption,
    JsonOutOption,
    LlmOption,
    NoCacheOption,
    StructuredOption,
    TimeoutOption,
)
from fabula.errors import ConfigError, InputError
from fabula.llm import DEFAULT_TIMEOUT


@app.command("probe")
def probe_command(
    inputs: Annotated[
        list[str],
        typer.Argument(
            metavar="BOOK",
            help="Novel files or PDNC folders; or 'compare PROBES.json TASK.json' to relate a probe to a task.",
            show_default=False,
        ),
    ],
    llm: LlmOption = None,
    probes: Annotated[
        str, typer.Option("--probes", help="Comma-separated: name-cloze, csg, no-context, min-k.")
    ] = "name-cloze,csg,no-context,min-k",
    samples: Annotated[
        int,
        typer.Option(
            "--samples", min=1, help="Items per probe (per quote type for csg, no-context; the paper: 100)."
        ),
    ] = 100,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the sampling and replacement names.")] = 0,
    probe_metric: Annotated[
        str,
        typer.Option(
            "--probe-metric",
            help="compare: the probe score (csg_mem, csg_mem_cloze, csg_reason, name_cloze, min_k_20, ...).",
        ),
    ] = "csg_mem",
    task_metric: Annotated[
        str, typer.Option("--task-metric", help="compare: the task's per-book score (e.g. accuracy).")
    ] = "accuracy",
    top: Annotated[
        int, typer.Option("--top", min=2, help="compare: books in the top and bottom groups.")
    ] = 5,
    json_out: JsonOutOption = None,
    no_cache: NoCacheOption = False,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    structured: StructuredOption = "auto",
    concurrency: ConcurrencyOption = None,
) -> None:
    """Probe what a model remembers of books as Michel et al. (NAACL 2025) do (name cloze, corrupted-speaker
    guessing, Min-K% on annotation rows; no-context is fabula's own), or compare a probe's per-book scores
    with a task's (Spearman; Student's t-test top vs bottom books: the paper's Table 2)."""
    # probes are about the whole book (what a model remembers of it), so there is no --until here
    if inputs and inputs[0] == "compare":
        _compare(inputs[1:], probe_metric, task_metric, top, json_out)
        return
    from fabula.tasks import get_task

    if llm is None:
        raise ConfigError("the probes need a model: give --llm SPEC", "--llm")
    values = {
        "paths": [Path(b) for b in inputs],
        "probes": probes,
        "samples": samples,
        "seed": seed,
        "llm": llm,
        "no_cache": no_cache,
        "timeout": timeout,
        "structured": structured,
        "concurrency": concurrency,
        "json_out": json_out,
    }
    run_task_command(get_task("probe"), values)


def _compare(paths: list[str], probe_metric: str, task_metric: str, top: int, json_out: Path | None) -> None:
    from fabula.tasks.probes import compare_probe

    if len(paths) != 2:
        raise ConfigError("usage: fabula probe compare PROBES.json TASK.json", "compare")
    probe_scores = _per_book(Path(paths[0]), probe_metric)
    task_scores = _per_book(Path(paths[1]), task_metric)
    result = compare_probe(probe_scores, task_scores, top)
    stdout.print(
        f"{result['books']} books: Spearman rho {result['spearman_rho']:.3f} (p {result['spearman_p']:.3g}); "
        f"{task_metric} of the top {len(result['top_books'])} vs bottom {len(result['bottom_books'])} by "
        f"{probe_metric}: t {result['t_statistic']:.3f} (p {result['t_p']:.3g})",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    if json_out is not None:
        write_bytes_atomic(json_out, orjson.dumps(result, option=orjson.OPT_INDENT_2) + b"\n")


def _per_book(path: Path, metric: str) -> dict[str, float]:
    """``{novel: score}`` of one metric from an EvalReport JSON (its ``novels`` section)."""
    try:
        report = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InputError(f"cannot read a report: {exc}", path) from exc
    novels = report.get("novels") if isinstance(report, dict) else None
    if not isinstance(novels, dict):
        raise InputError("not a fabula report (no 'novels' section)", path)
    scores = {name: entry.get(metric) for name, entry in novels.items() if isinstance(entry, dict)}
    found = {name: float(v) for name, v in scores.items() if isinstance(v, int | float)}
    if not found:
        raise InputError(f"no per-book {metric!r} in this report", path)
    return found
