"""``fabula train describe`` and ``fabula train recap-pairwise``: the papers' fine-tuning recipes (BookWorm's
LoRA description model, RECIDENT's pairwise rankers) on local model folders; see docs/train.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from fabula._words import counted
from fabula.cli._app import app, stderr, stdout
from fabula.errors import ConfigError

train_app = typer.Typer(
    help="Fine-tune local models with the papers' recipes (extra: pip install 'fabula[train]'): "
    "`fabula train describe` (BookWorm, LoRA; loads back as --llm hf:OUT), "
    "`fabula train recap-pairwise` (RECIDENT; loads back as --method pairwise-model:OUT).",
    no_args_is_help=True,
)
app.add_typer(train_app, name="train")

ModelOption = Annotated[
    Path, typer.Option("--model", metavar="DIR", help="Local model folder to start from (never downloaded).")
]
OutOption = Annotated[
    Path,
    typer.Option(
        "--out", metavar="DIR", help="Output folder (checkpoints, best weights, the trained model)."
    ),
]
SeedOption = Annotated[int, typer.Option("--seed", help="Seed of the data order and the new weights.")]
NoResumeOption = Annotated[
    bool,
    typer.Option(
        "--no-resume", help="Start afresh even if --out holds a checkpoint (default: resume from it)."
    ),
]
DryRunOption = Annotated[
    bool, typer.Option("--dry-run", help="Print the examples and their token counts; train nothing.")
]
LrOption = Annotated[float | None, typer.Option("--lr", help="Peak learning rate.")]
SaveStepsOption = Annotated[
    int, typer.Option("--save-steps", min=0, help="Checkpoint every N steps (0: at the end).")
]


def _progress(label: str) -> Any:
    from fabula.cli._progress import StepProgress

    return StepProgress(label)


def _report(out: Path, result: Any) -> None:
    if result.resumed_from:
        stderr.print(f"resumed from step {result.resumed_from}", markup=False)
    best = "" if result.best_val_loss is None else f", best validation loss {result.best_val_loss:.4f}"
    stderr.print(
        f"trained {result.steps} steps in {result.seconds:.0f} s: training loss {result.first_loss:.4f} -> "
        f"{result.last_loss if result.last_loss is not None else float('nan'):.4f}{best} "
        f"(step {result.best_step}); written to {out}",
        markup=False,
    )


@train_app.command("describe")
def describe_command(
    model: ModelOption,
    data: Annotated[
        Path,
        typer.Option(
            "--data",
            metavar="FILE",
            help="BookWorm's processed split (a folder with train.jsonl and val.jsonl, or one of them) or "
            "fabula's describe JSONL (id, book, character, reference).",
        ),
    ],
    out: OutOption,
    val: Annotated[
        Path | None,
        typer.Option("--val", metavar="FILE", help="Validation file (default: see docs/train.md)."),
    ] = None,
    context: Annotated[
        str,
        typer.Option(
            "--context",
            help="What the model reads, as BookWorm's protocol gives it: lead (the release's), bm25, or coref "
            "(fabula's mention layer; mentions = coref).",
        ),
    ] = "lead",
    lr: LrOption = 2.5e-5,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1)] = 1,
    grad_accum: Annotated[int, typer.Option("--grad-accum", min=1, help="Gradient accumulation steps.")] = 4,
    warmup: Annotated[int, typer.Option("--warmup", min=0, help="Warm-up steps.")] = 100,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, help="Optimizer steps.")] = 4000,
    eval_steps: Annotated[int, typer.Option("--eval-steps", min=0, help="Validate every N steps.")] = 400,
    save_steps: SaveStepsOption = 400,
    weight_decay: Annotated[float, typer.Option("--weight-decay")] = 0.01,
    max_input_tokens: Annotated[
        int, typer.Option("--max-input-tokens", min=16, help="Tokens of prompt and answer together.")
    ] = 8192,
    truncate_tokens: Annotated[
        int, typer.Option("--truncate-tokens", min=8, help="Tokens of the prompt (context cut to fit).")
    ] = 7600,
    lora_r: Annotated[int, typer.Option("--lora-r", min=1)] = 8,
    lora_alpha: Annotated[int, typer.Option("--lora-alpha", min=1)] = 16,
    lora_dropout: Annotated[float, typer.Option("--lora-dropout", min=0.0, max=1.0)] = 0.05,
    seed: SeedOption = 0,
    no_resume: NoResumeOption = False,
    dry_run: DryRunOption = False,
) -> None:
    """LoRA fine-tuning of a local causal LM on (character, context, reference) examples, BookWorm's
    released settings as defaults; the checkpoint with the lowest validation loss is merged into the
    model written to OUT, which answers as --llm hf:OUT (the adapter alone is in OUT/adapter)."""
    from fabula.train import (
        ExampleBuilder,
        LoopSettings,
        LoraSettings,
        load_tokenizer,
        read_describe_data,
        train_causal_lm,
    )

    train_records, val_records = read_describe_data(data, val)
    tokenizer = load_tokenizer(model)
    builder = ExampleBuilder(tokenizer, context, truncate_tokens)
    train = builder.build(train_records)
    held = builder.build(val_records)
    if builder.unresolved:
        stderr.print(
            f"{counted(len(builder.unresolved), 'example')} dropped: character not found in the book "
            f"({', '.join(builder.unresolved[:5])}{', ...' if len(builder.unresolved) > 5 else ''})",
            markup=False,
        )
    if dry_run:
        _print_examples(
            [("train", e) for e in train] + [("val", e) for e in held], tokenizer, max_input_tokens
        )
        return
    if not train:
        raise ConfigError("no training example left", data)
    lora = LoraSettings(r=lora_r, alpha=lora_alpha, dropout=lora_dropout)
    loop = LoopSettings(
        lr=lr or 2.5e-5,
        batch_size=batch_size,
        grad_accum=grad_accum,
        warmup_steps=warmup,
        max_steps=max_steps,
        weight_decay=weight_decay,
        eval_steps=eval_steps,
        save_steps=save_steps,
        seed=seed,
    )
    recipe = {"recipe": "describe", "context": builder.context, "prompt": builder.prompt.id}
    with _progress("training") as progress:
        result = train_causal_lm(
            model,
            train,
            held,
            out,
            lora=lora,
            loop=loop,
            max_tokens=max_input_tokens,
            recipe=recipe,
            resume=not no_resume,
            progress=progress,
        )
    _report(out, result)


def _print_examples(rows: list[tuple[str, Any]], tokenizer: Any, max_tokens: int) -> None:
    from fabula.train import token_counts

    for split, example in rows:
        counts = token_counts(tokenizer, example, max_tokens)
        stdout.print(
            json.dumps(
                {
                    "split": split,
                    "id": example.id,
                    **counts,
                    "prompt": example.prompt[:300],
                    "answer": example.answer[:200],
                },
                ensure_ascii=False,
            ),
            markup=False,
            soft_wrap=True,
        )
    totals = [token_counts(tokenizer, e, max_tokens)["total"] for _, e in rows]
    if totals:
        stderr.print(
            f"{len(rows)} examples ({sum(1 for s, _ in rows if s == 'train')} train), "
            f"tokens per example {min(totals)}-{max(totals)}, {sum(totals)} in all",
            markup=False,
        )


@train_app.command("recap-pairwise")
def recap_pairwise_command(
    model: ModelOption,
    data: Annotated[
        Path, typer.Option("--data", metavar="FILE", help="Recap data file with gold (fabula's recap JSONL).")
    ],
    out: OutOption,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude", metavar="NOVEL", help="Leave this novel out (repeatable): held-out evaluation."
        ),
    ] = None,
    negatives: Annotated[
        int | None,
        typer.Option(
            "--negatives",
            min=1,
            help="Keep at most N unrelated candidates per related one of each target (default: all, as the "
            "paper; fewer fits a CPU budget).",
        ),
    ] = None,
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            help="cross-encoder (an encoder folder: BERT, RoBERTa, sentence-transformers) or lora (a causal LM); "
            "auto: from the folder's config.",
        ),
    ] = "auto",
    epochs: Annotated[float | None, typer.Option("--epochs", min=0.01, help="Passes over the pairs.")] = None,
    lr: LrOption = None,
    batch_size: Annotated[int | None, typer.Option("--batch-size", min=1)] = None,
    grad_accum: Annotated[int, typer.Option("--grad-accum", min=1)] = 1,
    max_length: Annotated[
        int,
        typer.Option("--max-length", min=8, help="Cross-encoder: tokens of target and candidate together."),
    ] = 256,
    alpha: Annotated[
        float, typer.Option("--alpha", min=0.0, help="Weighted cross-entropy's alpha (1: SBERT, 0: RoBERTa).")
    ] = 1.0,
    warmup_ratio: Annotated[float, typer.Option("--warmup-ratio", min=0.0, max=1.0)] = 0.1,
    save_steps: SaveStepsOption = 0,
    seed: SeedOption = 0,
    no_resume: NoResumeOption = False,
    dry_run: DryRunOption = False,
) -> None:
    """Train RECIDENT's supervised pairwise ranker on (target, candidate, related?) pairs: a cross-encoder
    with the paper's weighted cross-entropy (appendix B: 10 epochs, lr 2e-5 in [1e-5, 3e-5], batch 32, warm-up
    ratio 0.1), or with --kind lora a LoRA causal LM (r 8, alpha 16, dropout 0.05 on q/k/v, lr 3e-4). Use it
    as a recap method: fabula recap BOOK --method pairwise-model:OUT."""
    from fabula.train import (
        RECIDENT_TARGETS,
        LoopSettings,
        LoraSettings,
        class_weights,
        load_tokenizer,
        pair_examples,
        recap_pairs,
        train_causal_lm,
        train_cross_encoder,
    )

    if kind not in ("auto", "cross-encoder", "lora"):
        raise ConfigError(f"unknown kind {kind!r} (choose from auto, cross-encoder, lora)", "--kind")
    pairs = recap_pairs(data, exclude=exclude or (), negatives=negatives, seed=seed)
    if kind == "auto":
        kind = _kind_of(model)
    related = sum(p.label for p in pairs)
    stderr.print(
        f"{len(pairs)} pairs from {len({p.id.split('#')[0] for p in pairs})} targets "
        f"({related} related; novels {', '.join(sorted({p.novel for p in pairs}))}); {kind}",
        markup=False,
    )
    if dry_run:
        tokenizer = load_tokenizer(model)
        if kind == "lora":
            _print_examples([("train", e) for e in pair_examples(pairs)], tokenizer, 8192)
            return
        lengths = []
        for p in pairs:
            n = len(tokenizer(p.target, p.candidate)["input_ids"])
            lengths.append(n)
            stdout.print(
                json.dumps(
                    {
                        "id": p.id,
                        "label": p.label,
                        "tokens": n,
                        "cut": n > max_length,
                        "candidate": p.candidate[:120],
                    },
                    ensure_ascii=False,
                ),
                markup=False,
                soft_wrap=True,
            )
        stderr.print(
            f"class weights {class_weights([p.label for p in pairs], alpha)}; tokens per pair "
            f"{min(lengths)}-{max(lengths)}, {sum(n > max_length for n in lengths)} cut at {max_length}",
            markup=False,
        )
        return
    loop = LoopSettings(
        lr=lr or (3e-4 if kind == "lora" else 2e-5),
        batch_size=batch_size or (1 if kind == "lora" else 32),
        grad_accum=grad_accum,
        warmup_ratio=warmup_ratio,
        epochs=epochs or (1.0 if kind == "lora" else 10.0),
        save_steps=save_steps,
        seed=seed,
    )
    with _progress("training") as progress:
        if kind == "lora":
            result = train_causal_lm(
                model,
                pair_examples(pairs),
                [],
                out,
                lora=LoraSettings(targets=RECIDENT_TARGETS),
                loop=loop,
                max_tokens=4096,
                recipe={"recipe": "recap-pairwise", "prompt": "fabula PAIR_PROMPT"},
                resume=not no_resume,
                progress=progress,
            )
        else:
            result = train_cross_encoder(
                model,
                pairs,
                out,
                loop=loop,
                max_length=max_length,
                alpha=alpha,
                resume=not no_resume,
                progress=progress,
            )
    _report(out, result)


def _kind_of(model: Path) -> str:
    """``lora`` for a causal LM folder, ``cross-encoder`` for anything else (an encoder)."""
    try:
        config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError("no readable config.json in the model folder", model) from exc
    architectures = config.get("architectures") or []
    return "lora" if any(str(a).endswith("ForCausalLM") for a in architectures) else "cross-encoder"
