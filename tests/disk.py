"""Real write failures for tests: a tiny tmpfs (a full disk: ENOSPC) and a read-only tmpfs (EROFS),
mounted for the test and unmounted after. Mounting needs root (CAP_SYS_ADMIN); elsewhere the test skips
with the reason. Root ignores file permissions, so a read-only mount is the only honest read-only folder."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def mounted(folder: Path, options: str) -> Iterator[Path]:
    """``folder`` as a fresh tmpfs mounted with ``options`` (``size=64k``, ``ro``), unmounted on exit."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot mount a tmpfs here ({exc})")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30, check=False)


def full_disk(folder: Path, size: str = "16k") -> contextlib.AbstractContextManager[Path]:
    """A folder on a disk that fills after ``size`` bytes."""
    return mounted(folder, f"size={size}")


def read_only(folder: Path) -> contextlib.AbstractContextManager[Path]:
    """A folder on a read-only file system (writable by no one, root included)."""
    return mounted(folder, "ro")
