"""A dead model stops `fabula eval` at once: one line, non-zero exit, no report written."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula.llm.testing import ScriptedOpenAIServer
from tests.conftest import pdnc_novel_dir, run_cli


def test_eval_quotes_against_a_server_that_always_fails_stops_without_a_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = pdnc_novel_dir("DaisyMiller")
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "report.json"
    # HTTP 503 on every request; "Retry-After: 0" spares the test the backoff's waits (about 20 s on one
    # request's 5 retries; the backoff itself: tests/llm/test_layer.py)
    with ScriptedOpenAIServer("{}", fail_with=[503] * 1000, retry_after=0) as server:
        args = ["eval", "quotes", "--pdnc", str(folder.parent), "--novel", "DaisyMiller", "--novel", "Emma"]
        code = run_cli(*args, "--method", "llm", "--llm", f"openai:m@{server.url}", "--json", out)
        requests = server.requests
    assert code == 3
    # one request's 6 attempts (5 retries), and at most those of the 4 in flight when the first gave up:
    # Emma was never started
    assert 6 <= requests <= 4 * 6
    err = capsys.readouterr().err
    assert "not answering" in err and "Traceback" not in err
    assert not out.exists()
