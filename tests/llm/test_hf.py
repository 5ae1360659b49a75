"""The hf backend end to end on a tiny random Llama saved to a temporary folder (no download): chat
template and plain prompts, token counts, stop strings and prompt log-probabilities. Skipped unless the
``hf`` extra (transformers, torch) is installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from fabula.llm import GenerateOptions, get_llm

WORDS = ["<unk>", "<s>", "</s>", "user", "assistant", "system", "say", "hello", "yes", "no", ":", "."]
CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} {% endfor %}"
    "{% if add_generation_prompt %}assistant : {% endif %}"
)


def _tiny_model(folder: Path, *, chat_template: bool) -> Path:
    """A one-layer Llama over a 12-word whitespace vocabulary (random weights), saved like a hub folder."""
    if importlib.util.find_spec("transformers") is None or importlib.util.find_spec("torch") is None:
        pytest.skip("the 'hf' extra is not installed (pip install 'fabula[hf]')")
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="<unk>"))
    words.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer: Any = transformers.PreTrainedTokenizerFast(
        tokenizer_object=words, unk_token="<unk>", bos_token="<s>", eos_token="</s>"
    )
    if chat_template:
        tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(WORDS),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=64,
        bos_token_id=1,
        eos_token_id=None,  # random weights: no early end, so every answer has max_tokens tokens
    )
    transformers.LlamaForCausalLM(config).save_pretrained(folder)
    return folder


def test_a_chat_template_model_answers_with_counted_tokens(tmp_path: Path) -> None:
    llm = get_llm(f"hf:{_tiny_model(tmp_path, chat_template=True)}", cache=False)
    generation = llm.generate("say hello", GenerateOptions(max_tokens=3))
    assert generation.error is None
    assert generation.prompt_tokens == 6  # the template's "user : say hello assistant :"
    assert generation.completion_tokens == 3 and generation.finish_reason == "length"
    assert set(generation.text.split()) <= set(WORDS)


def test_a_plain_model_answers_and_stops_at_a_stop_string(tmp_path: Path) -> None:
    llm = get_llm(f"hf:{_tiny_model(tmp_path, chat_template=False)}", cache=False)
    free = llm.generate("say hello", GenerateOptions(max_tokens=4))
    assert free.prompt_tokens == 2 and free.completion_tokens == 4
    first = free.text.split()[0]
    stopped = llm.generate("say hello", GenerateOptions(max_tokens=4, stop=(first,)))
    assert stopped.text == "" and stopped.finish_reason == "stop"


def test_prompt_logprobs_has_one_value_per_token_after_the_first(tmp_path: Path) -> None:
    llm = get_llm(f"hf:{_tiny_model(tmp_path, chat_template=False)}", cache=False)
    values = llm.prompt_logprobs("say hello yes no")
    assert values is not None and len(values) == 3 and all(v < 0 for v in values)
