"""Shared test fixtures: where the shared evaluation data lives, and the shipped example novel."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("FABULA_SHARED_DATA", ROOT.parent / "shared" / "data"))
PDNC_DIR = SHARED_DATA / "pdnc"
LFED_DIR = SHARED_DATA / "lfed"
EXAMPLE_NOVEL = ROOT / "examples" / "alice_in_wonderland.txt"


def run_cli(*args: str | Path) -> int:
    """Run ``fabula ARGS`` in-process and return its exit code."""
    from fabula.cli import main

    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def run_cli_output(args: list[str | Path], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``fabula ARGS`` in-process: its exit code (1 for an exit with a message) and what it wrote to
    stdout and stderr."""
    from fabula.cli import main

    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def pdnc_novel_dir(name: str) -> Path:
    """Path of one PDNC novel folder, skipping the test with a clear reason when the data is absent."""
    folder = PDNC_DIR / name
    if not (folder / "novel_text.txt").is_file():
        pytest.skip(f"PDNC data not found at {folder} (the shared data directory is absent)")
    return folder


@pytest.fixture(scope="session")
def pdnc_dir() -> Path:
    if not PDNC_DIR.is_dir():
        pytest.skip(f"PDNC data not found at {PDNC_DIR} (the shared data directory is absent)")
    return PDNC_DIR


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """A local Ray instance with 2 CPUs for the test module (skipped when Ray is not installed)."""
    ray = pytest.importorskip("ray")
    for attempt in (1, 2):  # Ray gives its raylet 30 s to start: on a busy machine, give it a second go
        try:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
            break
        except Exception as exc:
            ray.shutdown()
            if attempt == 2 and "timed out during startup" in str(exc):
                pytest.skip(f"Ray could not start on this machine within its 30 s limit, twice ({exc})")
            if attempt == 2:
                raise
    yield ray
    ray.shutdown()


def like_a_terminal_job() -> None:
    """``preexec_fn`` for a CLI child that a test sends Ctrl-C: SIGINT at its default and unblocked, as a
    shell starts a foreground job. pytest-xdist's workers run with SIGINT ignored, and a child inherits
    that across exec: the CLI then never saw the test's Ctrl-C and ran to the end (CI failed so)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
