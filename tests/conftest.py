"""Shared test fixtures: where the shared evaluation data lives, and the shipped example novel."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("FABULA_SHARED_DATA", ROOT.parent / "shared" / "data"))
PDNC_DIR = SHARED_DATA / "pdnc"
LFED_DIR = SHARED_DATA / "lfed"
EXAMPLE_NOVEL = ROOT / "examples" / "alice_in_wonderland.txt"


def _real_cache_dirs() -> tuple[Path, ...]:
    """The user's fabula cache folders by default (``$XDG_CACHE_HOME/fabula``, ``~/.cache/fabula``): read
    once, before any test sets the variables."""
    found = {Path.home() / ".cache" / "fabula"}
    if os.environ.get("XDG_CACHE_HOME"):
        found.add(Path(os.environ["XDG_CACHE_HOME"]) / "fabula")
    return tuple(sorted(Path(os.path.abspath(path.expanduser())) for path in found))


class RealCacheGuard:
    """Refuses (and records) this process's every access under the user's real fabula cache: a test that
    read or wrote it would depend on, or change, the user's LLM answers and indexes. An audit hook
    (`sys.addaudithook`) sees each file opened, folder made, file renamed or removed and SQLite database
    connected, in any thread; product code that swallows the `PermissionError` still fails its test,
    because `real_fabula_cache_untouched` checks `touched` after each test. Child processes inherit the
    test's ``FABULA_CACHE_DIR`` instead."""

    #: the audited events that name a path (the first argument) or two (the first two: from, to)
    EVENTS = frozenset(
        {"open", "os.mkdir", "os.remove", "os.rmdir", "os.utime", "os.chmod", "os.truncate", "os.listdir"}
        | {"os.scandir", "shutil.rmtree", "sqlite3.connect"}
    )
    TWO_PATHS = frozenset({"os.rename", "os.link", "os.symlink", "shutil.copyfile", "shutil.move"})

    def __init__(self, real: tuple[Path, ...]) -> None:
        self.real = tuple(str(path) for path in real)
        self.touched: list[str] = []
        sys.addaudithook(self._audit)

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event in self.EVENTS:
            paths = args[:1]
        elif event in self.TWO_PATHS:
            paths = args[:2]
        else:
            return
        for arg in paths:
            if not isinstance(arg, (str, bytes, os.PathLike)):
                continue
            path = os.fsdecode(os.fspath(arg))
            absolute = os.path.abspath(path) if path else path
            if any(absolute == real or absolute.startswith(real + os.sep) for real in self.real):
                self.touched.append(f"{event} {absolute}")
                raise PermissionError(f"a test reached the user's real fabula cache: {event} {absolute}")


_CACHE_GUARD = RealCacheGuard(_real_cache_dirs())


@pytest.fixture(scope="session", autouse=True)
def fabula_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """fabula's cache folder (``FABULA_CACHE_DIR``: LLM answers, indexes, the tiktoken copy, ``fabula
    serve``'s checkpoints) for this test session (this xdist worker), shared by its tests: set for the
    whole session, so the processes that module fixtures start (Ray's workers) have it too."""
    folder = tmp_path_factory.mktemp("fabula-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FABULA_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(autouse=True)
def real_fabula_cache_untouched(
    fabula_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[RealCacheGuard]:
    """Each test fails if it reached the user's real fabula cache (`RealCacheGuard`). The session's cache
    folder is set again per test, so a test that deleted the variable cannot leave the next one on it."""
    monkeypatch.setenv("FABULA_CACHE_DIR", str(fabula_cache_dir))
    before = len(_CACHE_GUARD.touched)
    yield _CACHE_GUARD
    touched, _CACHE_GUARD.touched[before:] = _CACHE_GUARD.touched[before:], []
    assert not touched, f"the test reached the user's real fabula cache: {touched[:5]}"


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
