"""LoRA fine-tuning of a local causal LM on (prompt, answer) pairs, shared by ``fabula train describe``
(BookWorm) and the LLM variant of ``fabula train recap-pairwise`` (RECIDENT).

Each example is the chat ``[user: prompt, assistant: answer]`` through the model's chat template (a plain
``prompt\\n\\nanswer</s>`` without one); the loss is on the answer's tokens only, as the BookWorm release
masks every non-assistant token with -100. The release finds the answer's tokens by tokenising the
assistant message on its own and counting from the end; here the prompt with the generation prompt is
tokenised and everything after it is the answer — the same tokens for Llama-3's template, and no
off-by-a-header error for templates whose assistant turn renders differently alone.

The output folder holds the merged model and its tokenizer (so ``--llm hf:OUT`` loads it with no
adapter support in the backend), the LoRA adapter alone in ``adapter/`` (small; load it with
``peft.PeftModel.from_pretrained(base, OUT/adapter)``), the best and last checkpoints, and
``fabula-train.json`` (recipe, settings, losses).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fabula.errors import BackendError, InputError
from fabula.train._loop import BEST, FitResult, LoopSettings, Progress, fit, seed_everything

META = "fabula-train.json"
# BookWorm's release (src/models/finetune.py): LoRA on every attention and MLP projection of Llama-3
BOOKWORM_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
# RECIDENT appendix B: LoRA added to the weights in "qkv"
RECIDENT_TARGETS = ("q_proj", "k_proj", "v_proj")


@dataclass(slots=True)
class LoraSettings:
    """LoRA's rank, alpha, dropout and the module names it wraps (those the model has)."""

    r: int = 8
    alpha: int = 16
    dropout: float = 0.05
    targets: tuple[str, ...] = BOOKWORM_TARGETS


@dataclass(slots=True)
class ChatExample:
    """One training example: the user's prompt and the answer the model should learn to give."""

    id: str
    prompt: str
    answer: str
    info: dict[str, Any] = field(default_factory=dict)


def require_train() -> tuple[Any, Any, Any]:
    """torch, transformers and peft, or a one-line error naming the extra."""
    try:
        import peft
        import torch
        import transformers
    except ImportError as exc:
        raise BackendError(
            f"fabula train needs torch, transformers and peft ({exc.name} is missing): "
            "pip install 'fabula[train]'",
            "fabula train",
        ) from exc
    return torch, transformers, peft


def load_tokenizer(model_dir: Path) -> Any:
    """The model folder's tokenizer (local files only), with a pad token (the end token if it has none)."""
    try:
        import transformers
    except ImportError as exc:
        raise BackendError("fabula train needs transformers: pip install 'fabula[train]'", model_dir) from exc
    if not model_dir.is_dir():
        raise InputError("model folder not found", model_dir)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise BackendError(f"transformers cannot load this tokenizer ({exc})", model_dir) from exc
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    return tokenizer


def count_tokens(tokenizer: Any, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def render_prompt(tokenizer: Any, prompt: str) -> str:
    """The prompt as the model reads it at inference (chat template with the generation prompt)."""
    if getattr(tokenizer, "chat_template", None):
        text = tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
        )
        return str(text)
    return prompt + "\n\n"


def prompt_ids(tokenizer: Any, prompt: str) -> list[int]:
    """The prompt's token ids as the hf backend encodes them at inference: a chat template's text as it
    is, a plain prompt with the tokenizer's special tokens."""
    templated = bool(getattr(tokenizer, "chat_template", None))
    return list(tokenizer(render_prompt(tokenizer, prompt), add_special_tokens=not templated)["input_ids"])


def encode_example(tokenizer: Any, example: ChatExample, max_tokens: int) -> tuple[list[int], list[int]]:
    """(input ids, labels) of one example, labels -100 on the prompt; cut at ``max_tokens`` from the
    right (the release's ``truncation=True``)."""
    prompt_text = render_prompt(tokenizer, example.prompt)
    prompt = prompt_ids(tokenizer, example.prompt)
    answer_ids: list[int] = []
    if getattr(tokenizer, "chat_template", None):
        full = str(
            tokenizer.apply_chat_template(
                [
                    {"role": "user", "content": example.prompt},
                    {"role": "assistant", "content": example.answer},
                ],
                tokenize=False,
            )
        )
        if full.startswith(prompt_text):
            answer_ids = list(tokenizer(full[len(prompt_text) :], add_special_tokens=False)["input_ids"])
    if not answer_ids:
        answer_ids = list(tokenizer(example.answer, add_special_tokens=False)["input_ids"])
        if tokenizer.eos_token_id is not None:
            answer_ids.append(int(tokenizer.eos_token_id))
    ids = (prompt + answer_ids)[:max_tokens]
    labels = ([-100] * len(prompt) + answer_ids)[:max_tokens]
    return ids, labels


def _lm_loss(torch: Any, pad_id: int) -> Any:
    def loss_of(model: Any, batch: list[tuple[list[int], list[int]]]) -> Any:
        width = max(len(ids) for ids, _ in batch)
        device = next(model.parameters()).device
        input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
        labels = torch.full((len(batch), width), -100, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, (ids, labs) in enumerate(batch):
            input_ids[row, : len(ids)] = torch.tensor(ids)
            labels[row, : len(labs)] = torch.tensor(labs)
            mask[row, : len(ids)] = 1
        out = model(input_ids=input_ids.to(device), attention_mask=mask.to(device), labels=labels.to(device))
        return out.loss

    return loss_of


def train_causal_lm(
    model_dir: Path,
    train: Sequence[ChatExample],
    val: Sequence[ChatExample],
    out: Path,
    *,
    lora: LoraSettings,
    loop: LoopSettings,
    max_tokens: int,
    recipe: dict[str, Any],
    resume: bool = True,
    progress: Progress | None = None,
) -> FitResult:
    """LoRA-train the causal LM in ``model_dir`` and write the merged model, adapter and metadata to
    ``out`` (see the module doc). ``recipe`` is stored in ``fabula-train.json`` (what was trained, how)."""
    torch, transformers, peft = require_train()
    tokenizer = load_tokenizer(model_dir)
    encoded_train = [encode_example(tokenizer, e, max_tokens) for e in train]
    encoded_val = [encode_example(tokenizer, e, max_tokens) for e in val]
    kept = [e for e in encoded_train if any(label != -100 for label in e[1])]
    if not kept:
        raise InputError("no training example has an answer token left after truncation", model_dir)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    seed_everything(loop.seed)  # LoRA's new A matrices are drawn from the global generator
    dtype = torch.bfloat16 if device == "cuda" and torch.cuda.is_bf16_supported() else torch.float32
    try:
        base = transformers.AutoModelForCausalLM.from_pretrained(
            model_dir, local_files_only=True, torch_dtype=dtype
        )
    except (OSError, ValueError) as exc:
        raise BackendError(f"transformers cannot load this model ({exc})", model_dir) from exc
    present = {name.rsplit(".", 1)[-1] for name, _ in base.named_modules()}
    targets = [t for t in lora.targets if t in present]
    if not targets:
        raise BackendError(
            f"the model has none of the LoRA target modules {', '.join(lora.targets)}", model_dir
        )
    config = peft.LoraConfig(
        r=lora.r,
        lora_alpha=lora.alpha,
        lora_dropout=lora.dropout,
        target_modules=targets,
        bias="none",
        task_type="CAUSAL_LM",
    )
    model = peft.get_peft_model(base, config)
    model.to(device)
    loss_of = _lm_loss(torch, int(tokenizer.pad_token_id))

    def validate() -> float:
        losses = [float(loss_of(model, [e])) for e in encoded_val]
        return sum(losses) / len(losses)

    def save(folder: Path) -> None:
        model.save_pretrained(folder)

    def load(folder: Path) -> None:
        from safetensors.torch import load_file

        peft.set_peft_model_state_dict(model, load_file(folder / "adapter_model.safetensors"))

    fingerprint = {
        "base": str(model_dir.resolve()),
        "lora": asdict(lora),
        "max_tokens": max_tokens,
        "train": [e.id for e in train],
        "val": [e.id for e in val],
    }
    result = fit(
        model,
        kept,
        loss_of,
        loop,
        out,
        save=save,
        load=load,
        validate=validate if encoded_val else None,
        resume=resume,
        fingerprint=fingerprint,
        progress=progress,
    )
    load(out / BEST)
    shutil.rmtree(out / "adapter", ignore_errors=True)
    shutil.copytree(out / BEST, out / "adapter")
    merged = model.merge_and_unload()
    merged.save_pretrained(out)
    tokenizer.save_pretrained(out)
    meta = {
        **recipe,
        "kind": "causal-lm",
        "base": str(model_dir.resolve()),
        "lora": {**asdict(lora), "targets": targets},
        "settings": asdict(loop),
        "max_tokens": max_tokens,
        "examples": {"train": len(kept), "val": len(encoded_val)},
        "result": asdict(result),
    }
    (out / META).write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return result
