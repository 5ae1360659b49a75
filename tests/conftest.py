"""Shared test fixtures: where the shared evaluation data lives, and the shipped example novel."""

from __future__ import annotations

import os
from pathlib import Path

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
