"""`fabula._ray.run_remote` when Ctrl-C comes while calls are pending, against a stand-in for Ray that records
what it is asked (the real-signal tests are in tests/corpus/test_ray_signals.py): an instance started or joined
here is shut down, which ends its calls, without cancelling them first (``ray.cancel`` racing a call that was
just finishing crashed Ray's core worker in the driver: status 1 and a native stack trace, 2 of 12 Ctrl-Cs on
a busy machine); an instance that was already initialised lives on, so its pending calls are cancelled."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fabula import _ray


class _StandIn:
    """The part of Ray's API `run_remote` uses; a call's object reference is its first argument."""

    def __init__(self, initialised: bool) -> None:
        self.initialised = initialised
        self.asked: list[object] = []

    def is_initialized(self) -> bool:
        return self.initialised

    def init(self, **options: Any) -> None:
        self.asked.append("init")
        self.initialised = True

    def shutdown(self) -> None:
        self.asked.append("shutdown")
        self.initialised = False

    def remote(self, **options: Any) -> Callable[[Callable[..., Any]], Any]:
        class Remote:
            @staticmethod
            def remote(*args: Any) -> Any:
                return args[0]

        return lambda function: Remote

    def wait(self, refs: list[Any], num_returns: int, timeout: float) -> tuple[list[Any], list[Any]]:
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref: Any) -> Any:
        return ref

    def cancel(self, ref: Any, force: bool = False) -> None:
        self.asked.append(("cancel", ref))


def _ctrl_c_after_the_first_result(monkeypatch: pytest.MonkeyPatch, ray: _StandIn) -> list[object]:
    monkeypatch.setattr(_ray, "ray_module", lambda: ray)

    def finished(key: object, result: object, error: BaseException | None) -> None:
        raise KeyboardInterrupt  # as Python raises it on SIGINT, while the other two calls are pending

    calls = [(name, (name,)) for name in ("first", "second", "third")]
    with pytest.raises(KeyboardInterrupt):
        # a cluster's address: nothing local is started (no reaper process)
        _ray.run_remote(print, calls, finished, address="ray://cluster.invalid:10001")
    return ray.asked


def test_ctrl_c_shuts_down_an_instance_joined_here_without_cancelling_its_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _ctrl_c_after_the_first_result(monkeypatch, _StandIn(initialised=False)) == ["init", "shutdown"]


def test_ctrl_c_cancels_the_pending_calls_of_an_instance_that_lives_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _ctrl_c_after_the_first_result(monkeypatch, _StandIn(initialised=True)) == [
        ("cancel", "second"),
        ("cancel", "third"),
    ]
