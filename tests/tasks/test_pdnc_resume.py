"""`fabula eval quotes --method llm-windows` killed mid-run resumes with zero repeated model calls: the loopback
OpenAI server counts what it answers (issue 12's acceptance, on the PDNC task itself)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import orjson

from fabula.llm.testing import ScriptedOpenAIServer
from tests.conftest import ROOT
from tests.tasks.pdnc_fixture import dialogue_novel

NOVELS = {"A": ("Anna", "Ben"), "B": ("Carl", "Dora"), "C": ("Emil", "Fay")}


def test_killed_llm_quote_evaluation_resumes_without_repeating_a_call(tmp_path: Path) -> None:
    root = tmp_path / "pdnc"
    for folder, names in NOVELS.items():
        dialogue_novel(root / folder, names=names)
    reached, release = threading.Event(), threading.Event()
    answered: Counter[str] = Counter()

    def answer(messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        if "Carl" in prompt and not release.is_set():  # novel B's first prompt: kill the run here
            reached.set()
            release.wait(60)
            return "{}"
        answered[prompt] += 1
        speaker = next(n for names in NOVELS.values() for n in names if n in prompt)
        return json.dumps({i: speaker for i in re.findall(r"\[(\d+)\]", prompt)})

    out = tmp_path / "llm.json"
    env = {**os.environ, "FABULA_CACHE_DIR": str(tmp_path / "cache")}
    with ScriptedOpenAIServer(answer) as server:
        command = [
            sys.executable,
            "-m",
            "fabula",
            "eval",
            "quotes",
            "--pdnc",
            str(root),
            "--method",
            "llm-windows",
        ]
        command += ["--llm", f"openai:test@{server.url}", "--json", str(out)]
        child = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
        try:
            assert reached.wait(120), "the run never reached the second novel"
            child.send_signal(signal.SIGKILL)
            child.wait(30)
        finally:
            if child.poll() is None:
                child.kill()
        first_run = sum(answered.values())
        assert first_run >= 1 and not out.exists()
        release.set()
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr.decode()
        assert b"resuming: 1 of 3 items already done" in done.stderr
    assert answered and set(answered.values()) == {1}  # every prompt answered exactly once
    assert not any("Anna" in prompt for prompt in list(answered)[first_run:])  # novel A not asked again
    report = orjson.loads(out.read_bytes())
    assert list(report["novels"]) == ["A", "B", "C"] and report["mean"]["accuracy"] is not None
    # the per-sample log: one line per gold quote of every novel, the resumed one's included
    header, *samples = [
        orjson.loads(line) for line in (tmp_path / "llm.samples.jsonl").read_bytes().splitlines()
    ]
    assert header["task"] == "quotes"
    for novel, scores in report["novels"].items():
        mine = [s for s in samples if s["item"] == novel]
        assert len(mine) == scores["gold_quotes"] and sum(s["scored"] for s in mine) == scores["scored"]
        right = sum(bool(s["right"]) for s in mine)
        assert right == round(scores["accuracy"] * scores["scored"])
        assert {"id", "type", "gold_speaker", "predicted_speaker", "matched_span"} <= set(mine[0])
