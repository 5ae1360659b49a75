"""One training loop for every ``fabula train`` recipe: AdamW, linear warm-up then linear decay, gradient
accumulation, validation every ``eval_steps`` keeping the weights with the lowest validation loss, and a
checkpoint every ``save_steps`` from which a killed run resumes exactly where it was.

Written here rather than taken from ``transformers.Trainer`` so that the same few lines drive a LoRA causal
LM and a cross-encoder, resume needs nothing but the folder, and the behaviour is visible in one place.

The data order is a function of the seed and the step (epoch ``e`` is a permutation drawn from
``seed + e``), so a resumed run sees the same examples in the same order as an uninterrupted one.
Checkpoints are written to a temporary folder and renamed into place: a run killed while saving leaves the
previous checkpoint whole.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fabula.errors import ConfigError, InputError

CHECKPOINT = "checkpoint"
BEST = "best"
STATE = "state.json"

Progress = Callable[[int, int, str], None]  # (optimizer steps done, total, note such as "loss 2.31")


@dataclass(slots=True)
class LoopSettings:
    """Optimisation settings; ``max_steps`` 0 means ``epochs`` passes over the training examples."""

    lr: float
    batch_size: int = 1
    grad_accum: int = 1
    warmup_steps: int = 0
    warmup_ratio: float = 0.0  # used when warmup_steps is 0 (RECIDENT: 0.1)
    max_steps: int = 0
    epochs: float = 1.0
    weight_decay: float = 0.0
    eval_steps: int = 0  # 0: validate once, at the end
    save_steps: int = 0  # 0: checkpoint only at the end
    seed: int = 0

    def total_steps(self, n_examples: int) -> int:
        """Optimizer steps of the whole run."""
        if self.max_steps > 0:
            return self.max_steps
        per_step = self.batch_size * self.grad_accum
        return max(1, math.ceil(self.epochs * n_examples / per_step))

    def warmup(self, total: int) -> int:
        return self.warmup_steps if self.warmup_steps > 0 else int(self.warmup_ratio * total)


@dataclass(slots=True)
class FitResult:
    """What a run did: steps, the first and last logged training loss, validation losses by step."""

    steps: int
    resumed_from: int
    first_loss: float | None
    last_loss: float | None
    best_step: int | None
    best_val_loss: float | None
    val_losses: dict[int, float]
    seconds: float


def fit(
    model: Any,
    examples: Sequence[Any],
    loss_of: Callable[[Any, list[Any]], Any],
    settings: LoopSettings,
    out: Path,
    *,
    save: Callable[[Path], None],
    load: Callable[[Path], None],
    validate: Callable[[], float] | None = None,
    resume: bool = True,
    fingerprint: dict[str, Any] | None = None,
    progress: Progress | None = None,
) -> FitResult:
    """Train ``model`` (its parameters that require grad) on ``examples``; ``loss_of(model, batch)`` is the
    mean loss of a batch. ``save(folder)``/``load(folder)`` write and read the trained weights (an adapter,
    a whole model). The best weights end in ``out/best``; the last checkpoint in ``out/checkpoint``.

    ``fingerprint`` (the data and settings) is stored with the checkpoint; resuming a checkpoint made with
    another fingerprint is refused rather than silently mixing two runs."""
    import torch

    if not examples:
        raise InputError("no training examples")
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ConfigError("the model has no trainable parameters")
    total = settings.total_steps(len(examples))
    warmup = settings.warmup(total)
    seed_everything(settings.seed)
    optimizer = torch.optim.AdamW(params, lr=settings.lr, weight_decay=settings.weight_decay)

    def schedule(step: int) -> float:  # transformers' get_linear_schedule_with_warmup
        if step < warmup:
            return float(step + 1) / float(max(1, warmup))
        return max(0.0, float(total - step) / float(max(1, total - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    print_fingerprint = {"settings": asdict(settings), "total_steps": total, **(fingerprint or {})}
    step, best_loss, best_step = 0, math.inf, None
    val_losses: dict[int, float] = {}
    first_loss: float | None = None
    checkpoint = _existing_checkpoint(out)
    if resume and checkpoint is not None:
        state = json.loads((checkpoint / STATE).read_text(encoding="utf-8"))
        if state.get("fingerprint") != json.loads(json.dumps(print_fingerprint)):
            raise ConfigError(
                "the checkpoint there was made with other data or settings: use another --out, or --no-resume",
                out,
            )
        load(checkpoint)
        tensors = torch.load(checkpoint / "optimizer.pt", weights_only=False)
        optimizer.load_state_dict(tensors["optimizer"])
        scheduler.load_state_dict(tensors["scheduler"])
        _set_rng_state(torch, tensors["rng"])
        step, best_step = int(state["step"]), state.get("best_step")
        best_loss = float(state["best_val_loss"]) if state.get("best_val_loss") is not None else math.inf
        val_losses = {int(k): float(v) for k, v in state.get("val_losses", {}).items()}
        first_loss = state.get("first_loss")
    resumed_from = step
    order = _Order(len(examples), settings.seed)
    micro = settings.batch_size
    last_loss: float | None = None
    model.train()
    while step < total:
        optimizer.zero_grad()
        running = 0.0
        for accum in range(settings.grad_accum):
            start = (step * settings.grad_accum + accum) * micro
            batch = [examples[order.at(start + i)] for i in range(micro)]
            loss = loss_of(model, batch) / settings.grad_accum
            loss.backward()
            running += float(loss.detach())
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        step += 1
        last_loss = running
        if first_loss is None:
            first_loss = running
        done = step >= total
        if validate is not None and (done or (settings.eval_steps and step % settings.eval_steps == 0)):
            model.eval()
            with torch.no_grad():
                val = float(validate())
            model.train()
            val_losses[step] = val
            if val < best_loss:
                best_loss, best_step = val, step
                _replace(out / BEST, save)
        elif validate is None and done:
            best_step = step
            _replace(out / BEST, save)
        if done or (settings.save_steps and step % settings.save_steps == 0):
            state = {
                "step": step,
                "best_step": best_step,
                "best_val_loss": None if best_loss == math.inf else best_loss,
                "val_losses": val_losses,
                "first_loss": first_loss,
                "fingerprint": print_fingerprint,
            }

            def write(folder: Path, state: dict[str, Any] = state) -> None:
                save(folder)
                torch.save(
                    {
                        "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(),
                        "rng": _rng_state(torch),
                    },
                    folder / "optimizer.pt",
                )
                (folder / STATE).write_text(json.dumps(state, indent=1), encoding="utf-8")

            _replace(out / CHECKPOINT, write)
        if progress is not None:
            note = f"loss {running:.4f}" + (f", val {val_losses[step]:.4f}" if step in val_losses else "")
            progress(step, total, note)
    model.eval()
    return FitResult(
        steps=step,
        resumed_from=resumed_from,
        first_loss=first_loss,
        last_loss=last_loss,
        best_step=best_step,
        best_val_loss=None if best_loss == math.inf else best_loss,
        val_losses=val_losses,
        seconds=time.perf_counter() - started,
    )


def seed_everything(seed: int) -> None:
    """Seed python's, numpy's (when installed) and torch's generators (every device): the new weights a
    recipe draws (LoRA's A matrices, a classifier head) and dropout then depend on ``seed`` alone, not on
    what ran before in the process."""
    import torch

    random.seed(seed)
    try:
        import numpy
    except ImportError:
        pass
    else:
        numpy.random.seed(seed)
    torch.manual_seed(seed)  # seeds CUDA's generators too


def _rng_state(torch: Any) -> dict[str, Any]:
    """Every generator a training step may draw from (dropout on the CPU or a GPU, python's, numpy's)."""
    state: dict[str, Any] = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    try:
        import numpy
    except ImportError:
        pass
    else:
        state["numpy"] = numpy.random.get_state()
    return state


def _set_rng_state(torch: Any, state: Any) -> None:
    if not isinstance(state, dict):  # a checkpoint written before python's and numpy's state were kept
        torch.set_rng_state(state)
        return
    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
    if "numpy" in state:
        import numpy

        numpy.random.set_state(state["numpy"])


class _Order:
    """Example index at any position of the run: epoch ``e`` is a permutation seeded by ``seed + e``."""

    def __init__(self, n: int, seed: int) -> None:
        self.n, self.seed = n, seed
        self._epoch = -1
        self._perm: list[int] = []

    def at(self, position: int) -> int:
        epoch, offset = divmod(position, self.n)
        if epoch != self._epoch:
            self._perm = list(range(self.n))
            random.Random(self.seed + epoch).shuffle(self._perm)
            self._epoch = epoch
        return self._perm[offset]


def _existing_checkpoint(out: Path) -> Path | None:
    """The last whole checkpoint: ``checkpoint``, or the previous one if a rename was interrupted."""
    for name in (CHECKPOINT, CHECKPOINT + ".old"):
        if (out / name / STATE).is_file():
            return out / name
    return None


def _replace(target: Path, write: Callable[[Path], None]) -> None:
    """Write a folder beside ``target``, then swap it in (the old one is kept until the new one is whole)."""
    tmp = target.with_name(target.name + ".tmp")
    old = target.with_name(target.name + ".old")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    write(tmp)
    if target.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(target, old)
    os.replace(tmp, target)
    shutil.rmtree(old, ignore_errors=True)
