"""Atomic file output: write to a temporary file beside the target, then rename.

An interrupted run never leaves a half-written output file; every writer in fabula goes through here.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Literal, overload

_UMASK = os.umask(0)  # read the process umask once (os.umask can only read it by setting it)
os.umask(_UMASK)


@overload
@contextlib.contextmanager
def atomic_open(path: str | Path, mode: Literal["w"] = "w", encoding: str = "utf-8") -> Iterator[IO[str]]: ...
@overload
@contextlib.contextmanager
def atomic_open(path: str | Path, mode: Literal["wb"], encoding: str = "utf-8") -> Iterator[IO[bytes]]: ...
@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str = "utf-8") -> Iterator[IO[Any]]:
    """Open ``path`` for writing so that it appears only when the block finishes without error."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(tmp_name, 0o666 & ~_UMASK)  # mkstemp makes 0600 files; outputs get the usual permissions
        handle = os.fdopen(fd, mode) if "b" in mode else os.fdopen(fd, mode, encoding=encoding, newline="")
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8)."""
    with atomic_open(path, "w") as handle:
        handle.write(text)


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_open(path, "wb") as handle:
        handle.write(data)
