"""`fabula eval quotes --method llm` end to end: CLI → evaluation → LLM layer → a real scripted server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fabula.llm.testing import ScriptedOpenAIServer
from tests.conftest import pdnc_novel_dir, run_cli


def _everyone_is_daisy(messages: list[dict[str, str]]) -> str:
    ids = re.findall(r"\[(\d+)\]", messages[-1]["content"])
    return "Sure! Here you go:\n```json\n" + json.dumps({i: "Daisy Miller" for i in ids}) + "\n```"


def test_eval_quotes_with_llm_caches_and_records_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = pdnc_novel_dir("DaisyMiller")
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key")
    out = tmp_path / "llm.json"
    with ScriptedOpenAIServer(_everyone_is_daisy) as server:
        args = ["eval", "quotes", "--pdnc", str(folder.parent), "--novel", "DaisyMiller", "--method", "llm"]
        args += ["--llm", f"openai:test-model@{server.url}", "--json", str(out)]
        assert run_cli(*args) == 0
        first_requests = server.requests
        assert first_requests > 0
        first = json.loads(out.read_text())
        assert run_cli(*args) == 0  # the second run is answered from the cache
        assert server.requests == first_requests
    second = json.loads(out.read_text())
    assert first["mean"] == second["mean"]
    settings = second["settings"]
    assert settings["method"] == "llm" and settings["strategy"] == "first"
    assert settings["prompt"].startswith("quote_attribution/chunk@")
    # Daisy speaks about a third of the scored quotes: the scripted answer is right exactly for hers
    assert 0.2 < second["mean"]["accuracy"] < 0.5
    assert "sk-test-secret-key" not in out.read_text()
    assert "0 calls, " in capsys.readouterr().err  # the usage summary of the cached run
