"""The Ray plumbing every ``--engine ray`` shares (`fabula analyze` over books, `fabula eval` over novels):
start a local Ray instance on demand (or join ``--ray-address``), run one remote call per unit of work,
hand each result back as it finishes, and cancel the rest on Ctrl-C.

Ray is the optional extra ``fabula[ray]``, imported only here and only when a Ray engine runs. A call
whose worker process dies is re-run by Ray (``retries``); an exception raised by the function itself
is not retried and comes back to ``finished`` as the error.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from typing import Any

from fabula.errors import BackendError, ConfigError

ENGINES = ("local", "ray")  # where the work of `fabula analyze` and `fabula eval` runs
LOCAL_CPUS = 2  # a local instance started on demand: this machine's two cores
TASK_RETRIES = 2  # re-runs of a call whose worker process died


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
    CPUs) or joined (``address``) and shut down at the end. Ctrl-C cancels the calls still pending.
    """
    if not calls:
        return
    ray = ray_module()
    started_here = not ray.is_initialized()
    if started_here:
        try:
            ray.init(
                address=address,
                num_cpus=None if address else cpus,
                include_dashboard=False,
                logging_level=logging.WARNING,
                log_to_driver=False,
                configure_logging=False,
            )
        except Exception as exc:  # connection refused, bad address, ...
            raise BackendError(f"cannot start or reach Ray ({exc})", address or "--engine ray") from exc
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
        for ref in pending:
            with contextlib.suppress(Exception):  # already finished or gone: nothing to stop
                ray.cancel(ref, force=True)
        raise
    finally:
        if started_here:
            ray.shutdown()
