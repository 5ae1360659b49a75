"""``fabula describe``: sheets as text and JSON, character lookup errors, and the LLM path end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabula.llm.testing import ScriptedOpenAIServer
from tests.conftest import EXAMPLE_NOVEL, run_cli


def test_describe_all_prints_sheets_of_the_main_characters(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("describe", EXAMPLE_NOVEL, "--all", "--json") == 0
    payload = json.loads(capsys.readouterr().out)
    names = [c["name"] for c in payload["characters"]]
    assert names[0] == "Alice" and len(names) >= 3
    alice = payload["characters"][0]
    assert alice["mentions"] > 100 and alice["quotes"] > 50 and alice["first_chapter"] == 1
    assert len(alice["description"]) == 4 and alice["method"] == "lead" and alice["lines"]
    assert alice["talks_most_with"] and alice["generated"] is None


def test_describe_one_character_by_alias_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("describe", EXAMPLE_NOVEL, "Hatter", "--kind", "analysis", "--method", "centroid") == 0
    out = capsys.readouterr().out
    assert "Hatter" in out and "analysis (centroid, 25 sentences)" in out


def test_unknown_character_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("describe", EXAMPLE_NOVEL, "Gandalf") == 2
    err = capsys.readouterr().err
    assert "no character called 'Gandalf'" in err and "Alice" in err and "Traceback" not in err


def test_until_limits_the_sheet(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        run_cli("describe", EXAMPLE_NOVEL, "Alice", "--until", "chapter:2", "--json", "--kind", "analysis")
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    until = payload["until"]
    assert until is not None
    assert all(s["end"] <= until for s in payload["characters"][0]["description"])
    assert all(s["chapter"] <= 2 for s in payload["characters"][0]["description"])


def test_describe_with_an_llm_and_citations(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with ScriptedOpenAIServer("Alice is curious. [P1]") as server:
        code = run_cli(
            "describe", EXAMPLE_NOVEL, "Alice", "--llm", f"openai:test@{server.url}", "--cite",
            "--budget", "500", "--json", "--no-cache",
        )  # fmt: skip
    assert code == 0
    generated = json.loads(capsys.readouterr().out)["characters"][0]["generated"]
    assert generated["text"] == "Alice is curious. [P1]" and generated["context"] == "mentions"
    assert generated["sentences"] == [{"text": "Alice is curious.", "passages": [1]}]
    assert generated["passages"][0]["id"] == 1
