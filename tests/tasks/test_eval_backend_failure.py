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
    with ScriptedOpenAIServer("{}", fail_with=[500] * 1000) as server:
        args = ["eval", "quotes", "--pdnc", str(folder.parent), "--novel", "DaisyMiller", "--novel", "Emma"]
        code = run_cli(*args, "--method", "llm", "--llm", f"openai:m@{server.url}", "--json", out)
        requests = server.requests
    assert code == 3
    assert requests <= 4 * 6  # the requests in flight when the first gave up; Emma was never started
    err = capsys.readouterr().err
    assert "not answering" in err and "Traceback" not in err
    assert not out.exists()
