"""The local engine's worker pool: what an interrupt leaves behind."""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

from fabula.corpus._local import _stop_now


def test_stopping_the_pool_leaves_no_manager_thread_to_race_the_exit_hook() -> None:
    # a manager thread still running at interpreter exit races concurrent.futures' exit hook, which
    # then writes to a pipe the thread is closing: "Exception ignored … OSError: Bad file descriptor"
    # printed after "fabula: interrupted" (seen in the Ctrl-C tests of `fabula analyze --jobs 2`)
    pool = ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn"))
    futures = [pool.submit(time.sleep, 30) for _ in range(3)]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(p.is_alive() for p in (pool._processes or {}).values()):
        time.sleep(0.01)
    manager = pool._executor_manager_thread
    assert manager is not None and manager.is_alive()
    _stop_now(pool)
    assert not manager.is_alive()
    assert all(f.done() for f in futures)
