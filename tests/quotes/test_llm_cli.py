"""`fabula eval quotes --method llm-windows` end to end: CLI → evaluation → LLM layer → a real scripted server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fabula.llm.testing import ScriptedOpenAIServer
from tests.conftest import like_a_terminal_job, pdnc_novel_dir, run_cli


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
        args = [
            "eval",
            "quotes",
            "--pdnc",
            str(folder.parent),
            "--novel",
            "DaisyMiller",
            "--method",
            "llm-windows",
        ]
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
    assert settings["method"] == "llm-windows" and settings["strategy"] == "first"
    assert settings["prompt"].startswith("quote_attribution/chunk@")
    # Daisy speaks about a third of the scored quotes: the scripted answer is right exactly for hers
    assert 0.2 < second["mean"]["accuracy"] < 0.5
    assert "sk-test-secret-key" not in out.read_text()
    assert "0 calls, " in capsys.readouterr().err  # the usage summary of the cached run


@pytest.mark.parametrize(
    ("server_options", "problem"),
    [
        ({"answer": "I think the speaker is Daisy."}, "could be used"),  # answers that never parse
        # HTTP 503 on every retry; "Retry-After: 0" spares the test the backoff's waits (about 20 s on one
        # request's 5 retries; the backoff itself: tests/llm/test_layer.py)
        ({"answer": "{}", "fail_with": [503] * 1000, "retry_after": 0}, "not answering"),
    ],
)
def test_quotes_with_no_usable_llm_answer_fail_and_keep_the_earlier_output(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    server_options: dict[str, object],
    problem: str,
) -> None:
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))
    book = pdnc_novel_dir("DaisyMiller") / "novel_text.txt"
    out = tmp_path / "quotes.jsonl"
    out.write_text("an earlier good result\n")
    with ScriptedOpenAIServer(**server_options) as server:  # type: ignore[arg-type]
        code = run_cli(
            "quotes", book, "--method", "llm-windows", "--llm", f"openai:m@{server.url}", "-o", out
        )
    assert code != 0
    err = capsys.readouterr().err
    assert problem in err and "Traceback" not in err
    assert out.read_text() == "an earlier good result\n"
    assert not list(tmp_path.glob(".quotes*"))  # no temporary file left behind


def test_connection_refused_fails_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))
    book = pdnc_novel_dir("DaisyMiller") / "novel_text.txt"
    with ScriptedOpenAIServer("{}") as server:
        url = server.url  # closed when the block ends: nothing listens there any more
    code = run_cli(
        "quotes", book, "--method", "llm-windows", "--llm", f"openai:m@{url}", "-o", tmp_path / "q.jsonl"
    )
    assert code == 3
    err = capsys.readouterr().err
    assert "fabula: error:" in err and "cannot reach the server" in err and "refused" in err
    assert "retrying in" not in err  # nothing listens there: no retry can help, so none is made
    assert not (tmp_path / "q.jsonl").exists()


def test_ctrl_c_stops_sending_requests_at_once(tmp_path: Path) -> None:
    """SIGINT part-way through an LLM run: no new request is sent, the answers so far stay cached."""
    import os
    import signal
    import subprocess
    import sys
    import time

    book = pdnc_novel_dir("Emma") / "novel_text.txt"  # 55 chapters: at least 55 prompts
    environment = {**os.environ, "FABULA_CACHE_DIR": str(tmp_path / "cache")}
    with ScriptedOpenAIServer(_everyone_is_daisy, delay=0.5) as server:
        command = [sys.executable, "-m", "fabula", "quotes", str(book), "--method", "llm-windows"]
        command += ["--llm", f"openai:m@{server.url}", "-o", str(tmp_path / "q.jsonl")]
        process = subprocess.Popen(
            command, env=environment, stderr=subprocess.PIPE, text=True, preexec_fn=like_a_terminal_job
        )
        deadline = time.monotonic() + 120
        while server.requests < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        # at most the 4 requests in flight (the default concurrency) are finished, none is started
        assert server.requests <= 3 + 4 + 4, (process.returncode, err[-3000:])
    assert process.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    assert not (tmp_path / "q.jsonl").exists()
