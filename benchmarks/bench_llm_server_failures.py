"""How long ``fabula eval mcq`` takes to give up on a server that trickles its answer one byte a second
(``--timeout 3``: a deadline for the whole request) and on a refused connection (issue 31, from issue 29).

    python benchmarks/bench_llm_server_failures.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fabula.llm.testing import ScriptedOpenAIServer


def run(data: Path, spec: str, cache: Path) -> str:
    """One ``fabula eval mcq`` run: exit status, wall time, retry warnings and the last stderr line."""
    started = time.monotonic()
    command = [sys.executable, "-m", "fabula", "eval", "mcq", "--data", str(data), "--method", "generate",
               "--llm", spec, "--timeout", "3", "--limit", "1", "--no-cache", "--no-resume"]  # fmt: skip
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**os.environ, "FABULA_CACHE_DIR": str(cache)},
        timeout=600,
    )
    took = time.monotonic() - started
    lines = done.stderr.strip().splitlines()
    retries = sum("retrying" in line for line in lines)
    return f"exit {done.returncode} in {took:.1f} s, {retries} retry warnings; {lines[-1] if lines else ''}"


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "q.jsonl"
        question = {
            "id": "q1",
            "novel": "N",
            "question": "Who?",
            "options": ["a", "b", "c", "d"],
            "answer": "A",
        }
        data.write_text(json.dumps(question) + "\n", encoding="utf-8")
        cache = Path(folder) / "cache"
        print("start-up with --llm mock:", run(data, "mock", cache))
        with ScriptedOpenAIServer("答案：A", trickle=1.0) as server:
            print("trickling one byte a second:", run(data, f"openai:m@{server.url}", cache))
        with ScriptedOpenAIServer("x") as server:
            url = server.url  # nothing listens there once the block ends
        print("connection refused:", run(data, f"openai:m@{url}", cache))


if __name__ == "__main__":
    main()
