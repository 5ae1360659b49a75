"""``fabula analyze --engine ray`` when its main process is killed or interrupted, with real signals: the
Ray instance it started (workers, raylet, dashboard and runtime-environment agents) is gone within seconds
and writes nothing more (the agents lingered for minutes, workers wrote outputs for up to a second), and
Ctrl-C ends with status 130 and one line (signal 11 was seen in 2 of 6 runs). Each test starts its own
local Ray instance in a `fabula` subprocess: 20-60 s on a busy 2-core machine."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import PDNC_DIR, ROOT, like_a_terminal_job

pytest.importorskip("ray")
pytestmark = pytest.mark.slow
NOVELS = ("DaisyMiller", "AlicesAdventuresInWonderland", "TheSportOfTheGods")


def _descendants(pid: int) -> set[int]:
    """Every living process below ``pid`` (Ray's raylet and GCS are its children, the workers and agents
    the raylet's)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if fields[0] != "Z":
                    children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pids: set[int]) -> list[int]:
    left = []
    for pid in pids:
        with contextlib.suppress(OSError, IndexError):
            if (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                left.append(pid)
    return left


def _workers_running(driver: int) -> bool:
    for pid in _descendants(driver):
        with contextlib.suppress(OSError):
            if b"ray::_analyze_task" in (Path("/proc") / str(pid) / "cmdline").read_bytes():
                return True
    return False


def _start(out: Path) -> subprocess.Popen[str]:
    novels = [PDNC_DIR / name / "novel_text.txt" for name in NOVELS]
    if not all(p.is_file() for p in novels):
        pytest.skip(f"PDNC novels not found under {PDNC_DIR} (the shared data directory is absent)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    command = [
        sys.executable,
        "-m",
        "fabula",
        "analyze",
        *map(str, novels),
        "-o",
        str(out),
        "--engine",
        "ray",
    ]
    process = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell's foreground job
        preexec_fn=like_a_terminal_job,
    )
    deadline = time.monotonic() + 240
    while process.poll() is None and time.monotonic() < deadline and not _workers_running(process.pid):
        time.sleep(0.1)
    if not _workers_running(process.pid):
        process.kill()
        pytest.fail(f"no Ray worker seen analysing a book: {process.communicate(timeout=30)[1][-2000:]}")
    time.sleep(1.0)  # inside a book
    return process


def _gone_within(pids: set[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := _alive(pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def test_a_killed_run_leaves_no_ray_process_and_writes_nothing_after_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    process = _start(out)
    ray_processes = _descendants(process.pid)
    process.kill()  # SIGKILL: nothing of the driver's own clean-up runs
    killed_at = time.time()
    process.communicate(timeout=30)
    left = _gone_within(ray_processes, 5.0)
    assert not left, f"Ray processes still running 5 s after the driver was killed: {left}"
    time.sleep(1.0)
    late = [f for f in out.rglob("*") if f.is_file() and f.stat().st_mtime > killed_at + 0.5]
    assert not late, f"written after the driver was killed: {late}"


def test_ctrl_c_ends_with_one_line_and_no_ray_process_left(tmp_path: Path) -> None:
    process = _start(tmp_path / "out")
    ray_processes = _descendants(process.pid)
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: the whole foreground group
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, (process.returncode, err[-3000:])
    assert "Traceback" not in err and err.count("fabula: interrupted") == 1, err[-3000:]
    assert not _gone_within(ray_processes, 10.0)
