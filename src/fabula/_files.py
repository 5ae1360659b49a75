"""Atomic file output: write to a temporary file beside the target, then rename.

An interrupted run never leaves a half-written output file; every writer in fabula goes through here.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Literal, overload

from fabula.errors import OutputError

# what a full disk, a quota, a file-size limit, a read-only remount or a failing device say while a file
# is written: errors of where the output goes, reported as `OutputError` (one line), not a traceback
WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO})

LOCK_FILE = ".fabula.lock"  # `folder_lock`'s file in a folder being written

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
    if target.is_dir():
        raise OutputError("is a folder, not a file", target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"cannot write here ({exc.strerror or exc})", target) from exc
    try:
        os.chmod(tmp_name, 0o666 & ~_UMASK)  # mkstemp makes 0600 files; outputs get the usual permissions
        handle = os.fdopen(fd, mode) if "b" in mode else os.fdopen(fd, mode, encoding=encoding, newline="")
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except OSError as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        if exc.errno in WRITE_FAILURES:  # the disk, not the caller: one line naming the file
            raise OutputError(f"cannot write ({exc.strerror or exc})", target) from exc
        raise
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


def check_output_path(path: str | Path, *, folder: bool = False) -> None:
    """Fail now, with a one-line `OutputError`, when ``path`` (a file, or a folder with ``folder``) cannot be
    written: a file or a non-folder on the way, a folder where the file should go, or no permission to
    create files in the nearest existing folder. Creates nothing, so commands call it before the work."""
    target = Path(path)
    if target.exists() and target.is_dir() != folder:
        raise OutputError("is a folder, not a file" if not folder else "exists and is not a folder", target)
    ancestor = target if folder else target.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        if ancestor.is_symlink():  # a dangling link: creating through it fails
            break
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"cannot write here: {ancestor} is not a folder", target)
    try:  # os.access says yes to root even on read-only mounts: try it instead
        fd, probe = tempfile.mkstemp(prefix=".fabula-write-check.", dir=ancestor)
    except OSError as exc:
        raise OutputError(f"cannot write here: {ancestor}: {exc.strerror or exc}", target) from exc
    os.close(fd)
    os.unlink(probe)


@contextlib.contextmanager
def folder_lock(folder: str | Path, what: str) -> Iterator[None]:
    """Hold ``FOLDER/.fabula.lock`` while the block runs, so two runs never write one folder at once
    (`file_lock`; ``what`` names the writer, e.g. ``fabula analyze``)."""
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot write here ({exc.strerror or exc})", target) from exc
    with file_lock(target / LOCK_FILE, what, target):
        yield


@contextlib.contextmanager
def file_lock(lock: Path, what: str, where: Path) -> Iterator[None]:
    """Hold the file ``lock`` (an exclusive `fcntl.flock`) while the block runs; a second holder fails at
    once with a one-line `OutputError` about ``where`` saying which process holds it. The kernel drops the
    lock when the holder exits, however it exits: a killed run never leaves anything locked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Windows: no lock
        yield
        return
    try:
        handle = open(lock, "a+")  # noqa: SIM115 - held open for the block
    except OSError as exc:
        raise OutputError(f"cannot write here ({exc.strerror or exc})", where) from exc
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise OutputError(
                f"{what} by {holder} is writing to this {'folder' if where.is_dir() else 'file'}; wait for "
                "it to finish or choose another",
                where,
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()}")
        handle.flush()
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                handle.truncate(0)
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
