"""Work on a second core in a forked child process: two halves at once (`fork_call`), two halves that swap what
each found midway (`fork_talk`), or one piece started now and collected later (`fork_start`, and
`start_ahead`/`take_ahead` for work keyed by what it computes).

A single ``fabula analyze`` of one book is one process; a machine with two cores leaves one idle. Where a
piece of work is independent of what this process does meanwhile (the report beside the other output
files; the book read while the command line's modules load), it runs in a child forked from this process
— which starts with everything this one has loaded, so nothing is imported or sent to it — and its
result comes back pickled through a pipe. The result is exactly what the call gives here, which is what
happens where forking is not worth it or not safe (`can_fork`): one core, no core to spare (the 1-minute load
average within half a core of the CPUs), not Linux, not the main thread
(a server's worker threads), any other thread alive (a notebook kernel's, a library user's: a child forked
while another thread holds a lock, the import lock or a logging handler's, would wait for it forever, and
the parent with it), inside a worker process of a corpus run or a Ray task (those already use every core:
`forbid_forking`), inside a forked child itself, and unless the process allows it: ``fabula analyze``'s own
process does (`allow_forking`); ``FABULA_FORK=1`` in the environment allows it anywhere else and
``FABULA_FORK=0`` forbids it everywhere.

After a fork, the first write to each page either process shares costs a page fault (CPython writes to
every object it touches: reference counts); measured on a 160K-word novel, about 7,000 faults for the parent's
next stage (tens of milliseconds), so a piece is worth forking from about a tenth of a second of work
(docs/benchmarks.md, issue 28's eighth session).

A child never outlives its use: it ignores Ctrl-C, which the parent turns into killing it (and reaping it)
before the `KeyboardInterrupt` goes on; it asks the kernel to end it when the parent dies; it leaves with
``os._exit``, so it runs no exit handlers and flushes none of the parent's buffers. A child that fails in
any way (an exception, a crash, a kill) costs time, not correctness: the parent then computes that piece
itself, so its exception, if any, is raised here as it would be without forking.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Generic, TypeVar

T = TypeVar("T")
U = TypeVar("U")

_forbidden = False
_allowed = False


def forbid_forking() -> None:
    """Never fork in this process (a worker of a pool that already keeps every core busy)."""
    global _forbidden
    _forbidden = True


def allow_forking() -> None:
    """Let this process fork for a second core (``fabula analyze``'s own process: one book, its own
    process, nothing else running in it; see the module docstring)."""
    global _allowed
    _allowed = True


def can_fork() -> bool:
    """Whether `fork_call` and `fork_start` use a child process here (see the module docstring)."""
    setting = os.environ.get("FABULA_FORK")
    if _forbidden or setting == "0" or not (_allowed or setting == "1"):
        return False
    if not sys.platform.startswith("linux"):
        return False
    if threading.current_thread() is not threading.main_thread() or threading.active_count() > 1:
        return False
    if _native_threads() > 1:  # a library's own threads (a BLAS thread pool) count too
        return False
    cpus = _cpus()
    return cpus >= 2 and (setting == "1" or _spare_core(cpus))


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _spare_core(cpus: int) -> bool:
    """Whether the machine has a core to spare: the 1-minute load average (this process's own run counted)
    at least half a core below the CPUs this process may use. A child only pays when it runs beside this
    process; on a busy machine it competes with it, and the fork's cost (the copied pages, a second import of
    what the child needs) is added. ``FABULA_FORK=1`` forks whatever the load."""
    try:
        return os.getloadavg()[0] < cpus - 0.5
    except OSError:
        return True


def _native_threads() -> int:
    """The threads of this process as the kernel counts them (Python's `threading` sees only its own)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


class Forked(Generic[T]):
    """``fn()`` running in a forked child (`fork_start`): `collect` its result, or `cancel` it."""

    def __init__(self, pid: int, read_end: int) -> None:
        self._pid: int | None = pid
        self._read_end = read_end

    def collect(self) -> tuple[bool, T | None]:
        """``(True, fn())`` from the child (waiting for it), or ``(False, None)`` when it failed (then the
        caller computes it itself). Ctrl-C while waiting kills the child and goes on."""
        if self._pid is None:
            return False, None
        pid, self._pid = self._pid, None
        try:
            data = _read_all(self._read_end)
            _, status = os.waitpid(pid, 0)
        except BaseException:  # Ctrl-C: the child's work is not wanted
            _kill(pid)
            raise
        finally:
            os.close(self._read_end)
        if status == 0 and data:
            with contextlib.suppress(Exception):
                return True, pickle.loads(data)
        return False, None

    def cancel(self) -> None:
        """End the child now (its result is not wanted) and reap it."""
        if self._pid is None:
            return
        pid, self._pid = self._pid, None
        _kill(pid)
        os.close(self._read_end)


def fork_start(fn: Callable[[], T]) -> Forked[T] | None:
    """Start ``fn()`` in a forked child now (its result must pickle), or None where `can_fork` says no (the
    caller then computes it itself). ``fn`` sees this process's memory as it is now; what it changes
    there is lost."""
    if not can_fork():
        return None
    read_end, write_end = os.pipe()
    me = os.getpid()
    pid = _fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
        _run_child(fn, read_end, write_end, me)
    os.close(write_end)
    return Forked(pid, read_end)


def fork_call(child: Callable[[], T], parent: Callable[[], U]) -> tuple[T, U]:
    """``(child(), parent())``, the two computed at the same time when `can_fork`: ``child`` in a forked
    process (its result must pickle), ``parent`` here. Both must be free of side effects on this
    process's state that the other reads: the child's changes to memory are lost."""
    forked = fork_start(child)
    if forked is None:
        return child(), parent()
    try:
        mine = parent()
    except BaseException:  # Ctrl-C or the parent's half failed: the child's work is not wanted
        forked.cancel()
        raise
    done, theirs = forked.collect()
    return (theirs if done else child()), mine  # type: ignore[return-value]


class Channel:
    """The child's end of `fork_talk`: `send` a message to the parent, `receive` one from it."""

    def __init__(self, read_end: int, write_end: int) -> None:
        self._read_end, self._write_end = read_end, write_end

    def send(self, message: object) -> None:
        _send(self._write_end, message)

    def receive(self) -> Any:
        """The parent's next message (waiting for it); `EOFError` when the parent sends none."""
        found = _receive(self._read_end)
        if found is None:
            raise EOFError("the parent sent nothing")
        return pickle.loads(found)


class Talk(Generic[T]):
    """``fn(channel)`` running in a forked child (`fork_talk`): exchange messages with it (`receive`,
    `send`), then `collect` its result, or `cancel` it. Once the child has failed, every call answers
    False (the caller computes the rest itself) and the child is gone."""

    def __init__(self, pid: int, read_end: int, write_end: int) -> None:
        self._pid: int | None = pid
        self._read_end, self._write_end = read_end, write_end

    def receive(self) -> tuple[bool, Any]:
        """``(True, message)``: the child's next message (waiting for it), or ``(False, None)`` when the
        child failed. Ctrl-C while waiting kills the child and goes on."""
        if self._pid is None:
            return False, None
        try:
            data = _receive(self._read_end)
        except BaseException:  # Ctrl-C: the child's work is not wanted
            self.cancel()
            raise
        if data is not None:
            with contextlib.suppress(Exception):
                return True, pickle.loads(data)
        self.cancel()
        return False, None

    def send(self, message: object) -> bool:
        """Send ``message`` to the child; False when it is gone (it failed)."""
        if self._pid is None:
            return False
        try:
            _send(self._write_end, message)
        except OSError:  # the child exited: its end of the pipe is closed
            self.cancel()
            return False
        except BaseException:
            self.cancel()
            raise
        return True

    def collect(self) -> tuple[bool, T | None]:
        """``(True, fn(channel))`` from the child (waiting for it), or ``(False, None)`` when it failed."""
        done, result = self.receive()
        if not done:
            return False, None
        pid, self._pid = self._pid, None
        assert pid is not None
        try:
            _, status = os.waitpid(pid, 0)
        except BaseException:
            _kill(pid)
            raise
        finally:
            self._close()
        return (True, result) if status == 0 else (False, None)

    def cancel(self) -> None:
        """End the child now (its work is not wanted) and reap it."""
        if self._pid is None:
            return
        pid, self._pid = self._pid, None
        _kill(pid)
        self._close()

    def _close(self) -> None:
        for fd in (self._read_end, self._write_end):
            with contextlib.suppress(OSError):
                os.close(fd)


def fork_talk(fn: Callable[[Channel], T]) -> Talk[T] | None:
    """Start ``fn(channel)`` in a forked child now, with a channel to this process both ways (messages and
    the result must pickle), or None where `can_fork` says no (the caller then computes it itself): for
    two halves of a computation that must swap what each found midway. The child's ``channel.receive``
    waits for this process's `Talk.send`; to never block both processes on full pipes, this process
    receives a message before it sends its own."""
    if not can_fork():
        return None
    from_child, to_parent = os.pipe()
    from_parent, to_child = os.pipe()
    me = os.getpid()
    pid = _fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
        os.close(to_child)
        channel = Channel(from_parent, to_parent)
        _run_child(lambda: fn(channel), from_child, to_parent, me, framed=True)
    os.close(to_parent)
    os.close(from_parent)
    return Talk(pid, from_child, to_child)


_ahead: dict[Hashable, Forked[Any]] = {}


def start_ahead(key: Hashable, fn: Callable[[], object]) -> bool:
    """Start ``fn()`` in a forked child for a later `take_ahead(key)` (work this process will need after
    what it does now, such as a book to read while modules load); False where `can_fork` says no."""
    forked = fork_start(fn)
    if forked is not None:
        _ahead[key] = forked
    return forked is not None


def take_ahead(key: Hashable) -> tuple[bool, Any]:
    """``(True, result)`` of the work `start_ahead` began under ``key`` (once), else ``(False, None)``:
    none started, or it failed (the caller computes it itself)."""
    forked = _ahead.pop(key, None)
    return (False, None) if forked is None else forked.collect()


def ahead_pending() -> bool:
    """Whether work `start_ahead` began is waiting to be taken (this process has time to spare until then)."""
    return bool(_ahead)


def cancel_ahead() -> None:
    """End every child `start_ahead` began whose result was not taken (the process is about to end)."""
    while _ahead:
        _ahead.popitem()[1].cancel()


@contextlib.contextmanager
def quiet_sigint() -> Iterator[None]:
    """Hold Ctrl-C back while worker processes are started or stopped, or the command line loads its modules
    (a C extension initialising then turns KeyboardInterrupt into its own ImportError), then act on it
    (only possible in the main thread). SIGINT is blocked in this thread, so the children start with it blocked (the mask
    survives exec; a pool's initializer then ignores it; Ray's raylet and workers keep it) and a Ctrl-C to
    the terminal's whole process group reaches this process alone: children never print a
    KeyboardInterrupt, and a Ray instance is not torn down under its driver. Another thread (a progress
    display) may still receive it, so a handler only records it meanwhile: interrupting the parent
    half-way through handing a child its start-up data left that child failing with EOFError."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) in (
        signal.SIG_IGN,
        None,
    ):
        yield  # (a process that ignores Ctrl-C, as it was started, keeps ignoring it)
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: pressed.append(number))
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        signal.signal(signal.SIGINT, previous)
        if pressed:
            raise KeyboardInterrupt


def _fork() -> int:
    """``os.fork()``, without Python 3.12+'s warning that forking a multi-threaded process may deadlock (the
    child runs only fabula's own code and exits with `os._exit`). SIGINT is blocked across the fork (the
    child unblocks it once it ignores it, in `_run_child`): a Ctrl-C to the process group that reached the
    new child while Python was still running its at-fork hooks raised KeyboardInterrupt inside
    ``threading._after_fork``, which Python reports with a traceback on stderr. This process gets its
    Ctrl-C as soon as the fork is done."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        raise
    if pid != 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return pid


def _run_child(
    fn: Callable[[], object], read_end: int, write_end: int, parent_pid: int, *, framed: bool = False
) -> None:  # pragma: no cover
    """The forked process: compute, send the pickled result (as one message of `_send` when ``framed``),
    leave without any clean-up of the parent's."""
    global _forbidden
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and kills this process
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # (`_fork` blocked it; now ignored)
        _forbidden = True  # a child never forks again: its parent keeps the other core busy
        _ahead.clear()  # the parent's other children are the parent's to collect
        os.close(read_end)
        _die_with_parent(parent_pid)
        result = fn()
        if framed:
            _send(write_end, result)
        else:
            _write_all(write_end, pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
        code = 0
    except BaseException:  # any failure: the parent computes this piece itself
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


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


_HEADER = 8  # a message's length, little-endian, before its pickle


def _send(fd: int, message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    _write_all(fd, len(data).to_bytes(_HEADER, "little") + data)


def _receive(fd: int) -> bytes | None:
    """One message's pickle, or None at the end of the pipe (the other process sent no whole message)."""
    header = _read_exactly(fd, _HEADER)
    return None if header is None else _read_exactly(fd, int.from_bytes(header, "little"))


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


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
