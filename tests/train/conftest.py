"""A tiny random Llama over a whitespace word vocabulary, built in the test (no download), and a fixed
BookWorm-format fixture to fine-tune it on. Skipped unless the ``train`` extra is installed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} </s> {% endfor %}"
    "{% if add_generation_prompt %}assistant : {% endif %}"
)
# (character, book text, reference description): the BookWorm release's processed format
FIXTURE = [
    ("Ada", "Ada sailed the ship .\n\nThe sea was calm .", "Ada is a brave sailor ."),
    ("Ben", "Ben baked the bread .\n\nThe oven was hot .", "Ben is a kind baker ."),
    ("Cleo", "Cleo read the letter .\n\nThe night was dark .", "Cleo is a clever reader ."),
    ("Dan", "Dan rode the horse .\n\nThe road was long .", "Dan is a bold rider ."),
]
# validation = the training set: the test asks the model to memorise the fixture, so the best checkpoint is a late one
VALIDATION = FIXTURE
PROMPT_WORDS = "Describe character: given the following context. Context: user assistant : </s> <s> <unk>"


def needs_train_extra() -> None:
    missing = [m for m in ("torch", "transformers", "peft") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(
            f"the 'train' extra is not installed ({', '.join(missing)} missing: pip install 'fabula[train]')"
        )


def write_fixture(folder: Path) -> Path:
    """train.jsonl and val.jsonl in the release's format; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in (("train.jsonl", FIXTURE), ("val.jsonl", VALIDATION)):
        lines = [
            json.dumps({"id": i, "character": c, "input": text, "description": ref})
            for i, (c, text, ref) in enumerate(rows)
        ]
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def tiny_llama(folder: Path, *, layers: int = 2, texts: tuple[str, ...] = ()) -> Path:
    """A random two-layer Llama (one layer cannot learn to tie a name to its description) whose vocabulary is every word of the fixture and prompt, saved like a
    hub folder with a chat template; ``texts`` add their words to the vocabulary."""
    needs_train_extra()
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    words: list[str] = ["<unk>", "<s>", "</s>"]
    for text in [PROMPT_WORDS, *(" ".join(row) for row in FIXTURE + VALIDATION), *texts]:
        for word in text.split():
            if word not in words:
                words.append(word)
    vocab = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    vocab.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer: Any = transformers.PreTrainedTokenizerFast(
        tokenizer_object=vocab, unk_token="<unk>", bos_token="<s>", eos_token="</s>", pad_token="<unk>"
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(words),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=1,
        eos_token_id=2,
        # large random weights: the frozen norm and output layer can then give confident predictions,
        # so LoRA alone can fit the fixture (at 0.02 every logit stays near 0 and the loss near ln V)
        initializer_range=0.5,
    )
    transformers.LlamaForCausalLM(config).save_pretrained(folder)
    return folder


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    """2 cores are shared by many jobs here: torch uses one thread in these tests."""
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(1)
