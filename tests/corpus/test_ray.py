"""``--engine ray`` against the local engine on three shared novels: the same files byte for byte, a Ray
worker killed in the middle of a book, and resuming an interrupted run. One local Ray instance (2 CPUs)
for the module."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
import time
from pathlib import Path

import pytest

from fabula.corpus import AnalyzeSettings, analyze_corpus
from fabula.corpus._write import OUTPUT_FILES
from tests.conftest import PDNC_DIR, run_cli
from tests.corpus.test_ray_signals import _descendants

ray = pytest.importorskip("ray")
NOVELS = ("DaisyMiller", "AlicesAdventuresInWonderland", "TheSportOfTheGods")  # the three shortest
# what differs between any two runs: the generation time and the run time of each stage
VARIABLE = re.compile(rb"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC|<th>run time</th><td>[^<]*</td>")


@pytest.fixture(scope="module")
def novels() -> list[Path]:
    paths = [PDNC_DIR / name / "novel_text.txt" for name in NOVELS]
    if not all(p.is_file() for p in paths):
        pytest.skip(f"PDNC novels not found under {PDNC_DIR} (the shared data directory is absent)")
    return paths


@pytest.fixture(scope="module")
def local_outputs(novels: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("local")
    outcomes = analyze_corpus(novels, out, AnalyzeSettings(), jobs=1)
    assert [o.status for o in outcomes] == ["done"] * 3
    return out


def _same_outputs(left: Path, right: Path) -> None:
    for name in NOVELS:
        for file in OUTPUT_FILES:
            a, b = (left / name / file).read_bytes(), (right / name / file).read_bytes()
            if file == "report.html":  # the one file that records times
                a, b = VARIABLE.sub(b"", a), VARIABLE.sub(b"", b)
            assert a == b, f"{name}/{file} differs between the engines"


def _ray_workers_running(task_name: str) -> list[int]:
    """The workers of this process's Ray instance that run ``task_name`` (Ray names a worker process after
    the task it runs: ``ray::_analyze_task``). Only this process's descendants: with pytest-xdist, the other
    worker may be running `fabula analyze --engine ray` (tests/corpus/test_ray_signals.py), whose workers have
    the same name; the test then killed one of those, and passed without losing a worker of its own."""
    found = []
    for pid in sorted(_descendants(os.getpid())):
        with contextlib.suppress(OSError):
            if task_name in (Path("/proc") / str(pid) / "cmdline").read_bytes().decode(errors="replace"):
                found.append(pid)
    return found


def test_ray_equals_local_byte_for_byte_even_when_a_worker_is_killed(
    local_ray: object, novels: list[Path], local_outputs: Path, tmp_path: Path
) -> None:
    killed: list[int] = []

    def kill_one_worker_mid_book() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            workers = _ray_workers_running("ray::_analyze_task")
            if workers:
                time.sleep(1.0)  # inside the book, not at its start
                with contextlib.suppress(ProcessLookupError):
                    os.kill(workers[0], signal.SIGKILL)
                    killed.append(workers[0])
                return
            time.sleep(0.1)

    killer = threading.Thread(target=kill_one_worker_mid_book)
    killer.start()
    outcomes = analyze_corpus(novels, tmp_path, AnalyzeSettings(), engine="ray")
    killer.join()
    assert killed, "no Ray worker was seen running a book"
    assert [o.status for o in outcomes] == ["done"] * 3, [o.error for o in outcomes]
    _same_outputs(local_outputs, tmp_path)
    assert (tmp_path / "index.html").is_file()


def test_ray_resumes_an_interrupted_run(
    local_ray: object, novels: list[Path], local_outputs: Path, tmp_path: Path
) -> None:
    # an interrupted run: one book finished, one killed half-way through its rewrite (no manifest), one not begun
    first = analyze_corpus(novels[:1], tmp_path, AnalyzeSettings(), engine="ray")
    assert [o.status for o in first] == ["done"]
    half = tmp_path / NOVELS[1]
    half.mkdir()
    (half / "book.json").write_text("{half")
    (half / ".quotes.jsonl.abc123.tmp").write_text("partial")
    finished: list[str] = []
    outcomes = analyze_corpus(
        novels, tmp_path, AnalyzeSettings(), engine="ray", on_book=lambda o: finished.append(o.status)
    )
    assert [o.status for o in outcomes] == ["skipped", "done", "done"]
    assert not (half / ".quotes.jsonl.abc123.tmp").exists()
    _same_outputs(local_outputs, tmp_path)
    # the command line: everything up to date now, on the same engine
    assert run_cli("analyze", *novels, "-o", tmp_path, "--engine", "ray") == 0
    assert run_cli("analyze", novels[0], "-o", tmp_path, "--ray-address", "auto") == 2  # needs --engine ray
