"""Two pieces of one computation on two cores: one in a forked child process, one here (`fork_call`).

A single ``fabula analyze`` of one book is one process; a machine with two cores leaves one idle. Where a
stage splits into independent halves (the two halves of a book's paragraphs to segment, the report beside
the other output files), `fork_call` runs one half in a child forked from this process — which starts
with everything this one has loaded, so nothing is imported or sent to it — and the other half here; the
child's result comes back pickled through a pipe. The result is exactly what the two calls give one after
the other, which is what happens where forking is not worth it or not safe (`can_fork`): one core, not
Linux, not the main thread (a server's worker threads), any other thread alive (a notebook kernel's, a
library user's: a child forked while another thread holds a lock, the import lock or a logging
handler's, would wait for it forever, and the parent with it), inside a worker process of a corpus run or a Ray
task (those already use every core: `forbid_forking`), and unless ``FABULA_FORK=1`` is in the environment:
forking is opt-in, since on the 2-core machine it was measured on it did not pay (`fabula analyze` on Emma
about the same wall time, 0.4-0.6 s more CPU: after a fork every page the child or, later, the parent
writes to is copied or faulted in again, and CPython writes to every object it touches; see
docs/benchmarks.md, issue 28's fourth session). It stays for larger independent halves (attribution by
chapter) and for machines where the measurement comes out otherwise.

The child never outlives its use: it ignores Ctrl-C, which the parent turns into killing it (and
reaping it) before the `KeyboardInterrupt` goes on; it asks the kernel to end it when the parent dies; it
leaves with ``os._exit``, so it runs no exit handlers and flushes none of the parent's buffers. A child
that fails in any way (an exception, a crash, a kill) costs time, not correctness: the parent then runs
that half itself, so its exception, if any, is raised here as it would be without forking.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
U = TypeVar("U")

_forbidden = False


def forbid_forking() -> None:
    """Never fork in this process (a worker of a pool that already keeps every core busy)."""
    global _forbidden
    _forbidden = True


def can_fork() -> bool:
    """Whether `fork_call` runs its two halves at the same time here (see the module docstring)."""
    if _forbidden or os.environ.get("FABULA_FORK", "0") != "1" or not sys.platform.startswith("linux"):
        return False
    if threading.current_thread() is not threading.main_thread() or threading.active_count() > 1:
        return False
    try:
        return len(os.sched_getaffinity(0)) >= 2
    except (AttributeError, OSError):
        return (os.cpu_count() or 1) >= 2


def fork_call(child: Callable[[], T], parent: Callable[[], U]) -> tuple[T, U]:
    """``(child(), parent())``, the two computed at the same time when `can_fork`: ``child`` in a forked
    process (its result must pickle), ``parent`` here. Both must be free of side effects on this
    process's state that the other reads: the child's changes to memory are lost."""
    if not can_fork():
        return child(), parent()
    read_end, write_end = os.pipe()
    me = os.getpid()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: "multi-threaded, fork() may deadlock"
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
        _run_child(child, read_end, write_end, me)
    os.close(write_end)
    try:
        mine = parent()
        data = _read_all(read_end)
        _, status = os.waitpid(pid, 0)
    except BaseException:  # Ctrl-C or the parent's half failed: the child's work is not wanted
        _kill(pid)
        raise
    finally:
        os.close(read_end)
    if status == 0 and data:
        with contextlib.suppress(Exception):
            return pickle.loads(data), mine
    return child(), mine  # the child failed: compute its half here (raising its exception, if any)


def _run_child(
    child: Callable[[], object], read_end: int, write_end: int, parent_pid: int
) -> None:  # pragma: no cover
    """The forked process: compute, send the pickled result, leave without any clean-up of the parent's."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and kills this process
        os.close(read_end)
        _die_with_parent(parent_pid)
        data = pickle.dumps(child(), protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
        code = 0
    except BaseException:  # any failure: the parent computes this half itself
        pass
    finally:
        os._exit(code)


def _die_with_parent(parent_pid: int) -> None:  # pragma: no cover - runs in the child
    """Ask Linux to SIGKILL this process when its parent dies (``prctl(PR_SET_PDEATHSIG)``)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    if os.getppid() != parent_pid:  # the parent died before that took effect
        os._exit(1)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _kill(pid: int) -> None:
    """End the child now and reap it (no zombie, nothing left running)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
