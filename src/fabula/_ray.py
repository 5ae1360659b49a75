"""The Ray plumbing every ``--engine ray`` shares (`fabula analyze` over books, `fabula eval` over novels):
start a local Ray instance on demand (or join ``--ray-address``), run one remote call per unit of work,
hand each result back as it finishes, and end the rest on Ctrl-C.

Ray is the optional extra ``fabula[ray]``, imported only here and only when a Ray engine runs. A call
whose worker process dies is re-run by Ray (``retries``); an exception raised by the function itself
is not retried and comes back to ``finished`` as the error.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fabula._parallel import quiet_sigint
from fabula.errors import BackendError, ConfigError

ENGINES = ("local", "ray")  # where the work of `fabula analyze` and `fabula eval` runs
LOCAL_CPUS = 2  # a local instance started on demand: this machine's two cores
TASK_RETRIES = 2  # re-runs of a call whose worker process died
MARKER = "FABULA_RAY_DRIVER"  # in the environment of every process of a Ray instance this process starts
_REAPERS: list[subprocess.Popen[bytes]] = []


def check_engine(engine: str, ray_address: str | None) -> None:
    """A `ConfigError` for an unknown engine, or ``--ray-address`` without ``--engine ray``."""
    if engine not in ENGINES:
        raise ConfigError(f"unknown engine {engine!r}; use one of {', '.join(ENGINES)}", "--engine")
    if ray_address is not None and engine != "ray":
        raise ConfigError("--ray-address needs --engine ray", "--ray-address")


def ray_module() -> Any:
    """``import ray``, or a `BackendError` saying which extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise BackendError(
            "the ray engine needs Ray: install the optional extra with pip install 'fabula[ray]'", "--engine"
        ) from exc
    return ray


def run_remote(
    function: Callable[..., Any],
    calls: Sequence[tuple[Any, tuple[Any, ...]]],
    finished: Callable[[Any, Any, BaseException | None], None],
    *,
    address: str | None = None,
    cpus: int = LOCAL_CPUS,
    retries: int = TASK_RETRIES,
) -> None:
    """Run ``function(*args)`` as one Ray task (1 CPU) per ``(key, args)`` of ``calls``; call
    ``finished(key, result, None)`` as each ends, or ``finished(key, None, error)`` when it failed.

    A Ray instance already initialised in this process is used as is; else one is started (``cpus``
    CPUs) or joined (``address``) and shut down at the end. Ctrl-C ends the calls still pending: that
    shutdown ends them, and in an instance that was already initialised they are cancelled.
    """
    if not calls:
        return
    ray = ray_module()
    started_here = not ray.is_initialized()
    if started_here:
        marker = _start_reaper() if address is None else None
        try:
            # the instance's processes start with SIGINT blocked (the mask survives exec), so a Ctrl-C to the
            # terminal's process group reaches this driver alone and the instance is not torn down under it
            with quiet_sigint():
                ray.init(
                    address=address,
                    num_cpus=None if address else cpus,
                    include_dashboard=False,
                    logging_level=logging.WARNING,
                    log_to_driver=False,
                    configure_logging=False,
                )
        except KeyboardInterrupt:  # Ctrl-C while the instance started: it is not wanted
            if ray.is_initialized():
                with quiet_sigint():
                    ray.shutdown()
            raise
        except Exception as exc:  # connection refused, bad address, ...
            raise BackendError(f"cannot start or reach Ray ({exc})", address or "--engine ray") from exc
        finally:
            if marker is not None:  # the Ray processes have it now; this process's later children must not
                os.environ.pop(MARKER, None)
    remote = ray.remote(num_cpus=1, max_retries=retries)(function)
    pending: dict[Any, Any] = {remote.remote(*args): key for key, args in calls}
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in ready:
                key = pending.pop(ref)
                try:
                    result = ray.get(ref)
                except Exception as exc:  # the function raised, or its worker died too often
                    finished(key, None, exc)
                else:
                    finished(key, result, None)
    except BaseException:
        # Ctrl-C or a failure: the calls still running are not wanted. An instance started or joined here is
        # shut down below, which ends them (its processes stop; a cluster ends a departed driver's tasks);
        # cancelling them first raced the ones just finishing and crashed Ray's core worker in this process
        # ("Check failed ... Tried to complete task that was not pending", task_manager.cc): status 1 and a
        # native stack trace instead of one line and 130 (2 of 12 Ctrl-Cs on a busy 2-core machine).
        if not started_here:  # an instance this process had already: it lives on, so cancel them
            for ref in pending:
                with contextlib.suppress(Exception):  # already finished or gone: nothing to stop
                    ray.cancel(ref, force=True)
        raise
    finally:
        if started_here:
            # a Ctrl-C inside shutdown left Ray half shut, and its exit hook then ended the process with
            # status 1 after "interrupted" had been printed: the interrupt is acted on once shutdown is done
            with quiet_sigint():
                ray.shutdown()


def _start_reaper() -> str | None:
    """Before this process starts a local Ray instance: mark the environment the instance's processes
    inherit, and start a small process that kills every marked process once this one is gone.

    Why: when the driver is killed (SIGKILL, a crash), Ray's workers went on writing a book's outputs for
    up to a second, and its dashboard and runtime-environment agents lingered for minutes. The reaper
    notes the Ray processes below this one while it runs, waits on it (a pidfd: woken the moment it
    exits, however it exits) and then ends them at once. Linux only (``/proc``); elsewhere nothing is
    started."""
    if not sys.platform.startswith("linux"):
        return None
    marker = f"{os.getpid()}-{time.time_ns()}"
    os.environ[MARKER] = marker
    code = "import sys; from fabula._ray import reap_when_gone; reap_when_gone(int(sys.argv[1]), sys.argv[2])"
    try:
        reaper = subprocess.Popen(
            [sys.executable, "-c", code, str(os.getpid()), marker],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # not in the terminal's group: Ctrl-C does not end it before its work
            env={k: v for k, v in os.environ.items() if k != MARKER},
        )
    except OSError:
        os.environ.pop(MARKER, None)
        return None
    _REAPERS.append(reaper)  # held, never waited for: it ends after this process
    return marker


def reap_when_gone(pid: int, marker: str) -> None:
    """Wait until process ``pid`` has exited, then SIGKILL the Ray instance it started: every Ray process
    seen below it while it ran (looked for twice a second; Ray's agents rename themselves, which can wipe
    the environment ``/proc`` shows) and every process whose environment still holds the marker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        pidfd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    seen: dict[int, str] = {}  # pid -> its start time (a pid used again later is not ours)
    while True:
        if pidfd is not None:
            import select

            if select.select([pidfd], [], [], 0.5)[0]:  # readable when the process exits
                break
        elif not _alive(pid):
            break
        else:
            time.sleep(0.5)
        table = _process_table()
        for child in _below(pid, table):
            if child not in seen and child != os.getpid() and _is_ray(child):
                seen[child] = table[child][1]
    wanted = f"{MARKER}={marker}".encode()
    for _ in range(3):  # a worker starting while we look is caught on the next pass
        table = _process_table()
        doomed = {p for p, started in seen.items() if p in table and table[p][1] == started}
        for other in table:
            if other not in doomed and other != os.getpid():
                with contextlib.suppress(OSError):
                    if wanted in (Path("/proc") / str(other) / "environ").read_bytes().split(b"\0"):
                        doomed.add(other)
        if not doomed:
            return
        for victim in doomed:
            with contextlib.suppress(OSError):
                os.kill(victim, signal.SIGKILL)
        time.sleep(0.2)


def _is_ray(pid: int) -> bool:
    """A Ray process: its command line names Ray (``ray::…`` workers and agents, ``…/ray/…`` binaries)."""
    try:
        return b"ray" in (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return False


def _process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, start time) of every living process (``/proc/PID/stat``)."""
    table: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != "Z":
                table[int(entry.name)] = (int(fields[1]), fields[19])
    return table


def _below(pid: int, table: dict[int, tuple[int, str]]) -> set[int]:
    children: dict[int, list[int]] = {}
    for child, (parent, _) in table.items():
        children.setdefault(parent, []).append(child)
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
