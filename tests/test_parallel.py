"""`fabula._parallel`: `fork_call` gives the same results as two plain calls, `fork_start`/`start_ahead` hand
back what the child computed (or nothing, and the caller computes it), a child that fails costs nothing but
time, Ctrl-C leaves no process behind, and no fork where it is not safe, not useful or not allowed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from fabula import _parallel
from fabula._parallel import can_fork, fork_call
from tests.conftest import like_a_terminal_job

ROOT = Path(__file__).resolve().parents[1]
needs_fork = pytest.mark.skipif(
    not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2,
    reason="fork_call runs sequentially here (one core or not Linux)",
)


@pytest.fixture(autouse=True)
def forking_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forking is for processes that allow it (``fabula analyze``'s, or ``FABULA_FORK=1``): these tests are
    about what it does when on."""
    monkeypatch.setenv("FABULA_FORK", "1")


def _in_a_fresh_interpreter(code: str) -> str:
    """Run ``code`` in a new Python process with forking on and print what it prints: the test runner's
    own process has other threads alive (pytest-xdist's channel, earlier tests' servers, numpy's BLAS
    pool), and `fork_call` never forks beside another thread."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        # BLAS on one thread, as in fabula analyze: numpy's thread pool would stop every fork
        env={**os.environ, "FABULA_FORK": "1", "OPENBLAS_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


@needs_fork
def test_the_child_half_runs_in_another_process_and_comes_back() -> None:
    out = _in_a_fresh_interpreter(
        """
        import os
        import numpy as np
        from fabula._parallel import fork_call
        here = os.getpid()
        (child_pid, array), parent_pid = fork_call(lambda: (os.getpid(), np.arange(5)), os.getpid)
        print(parent_pid == here, child_pid != here, array.tolist())
        """
    )
    assert out.strip().split(maxsplit=2) == ["True", "True", "[0, 1, 2, 3, 4]"]


@needs_fork
def test_the_halves_run_at_the_same_time() -> None:
    out = _in_a_fresh_interpreter(
        """
        import time
        from fabula._parallel import fork_call
        started = time.perf_counter()
        fork_call(lambda: time.sleep(0.5), lambda: time.sleep(0.5))
        print(time.perf_counter() - started)
        """
    )
    assert float(out) < 0.9


def test_a_failing_child_half_is_computed_here_and_raises_as_without_forking() -> None:
    calls: list[str] = []

    def child() -> int:
        calls.append("child")  # only the parent's own call shows here (the forked child's list is its own)
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        fork_call(child, lambda: 1)
    assert calls == ["child"]


@needs_fork
def test_a_child_that_dies_is_replaced_by_the_parent_computing_its_half() -> None:
    parent = os.getpid()

    def child() -> int:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return 7

    assert fork_call(child, lambda: 8) == (7, 8)


def test_no_fork_outside_the_main_thread_beside_other_threads_when_forbidden_or_switched_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[bool] = []
    thread = threading.Thread(target=lambda: seen.append(can_fork()))
    thread.start()
    thread.join()
    assert seen == [False]
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)  # another thread alive: a fork could inherit its locks
    other.start()
    try:
        assert not can_fork()
    finally:
        stop.set()
        other.join()
    monkeypatch.setenv("FABULA_FORK", "0")
    assert not can_fork()
    monkeypatch.setattr(_parallel, "_allowed", True)
    assert not can_fork()  # FABULA_FORK=0 wins over the process allowing it
    monkeypatch.delenv("FABULA_FORK")
    monkeypatch.setattr(_parallel, "_allowed", False)
    assert not can_fork()  # off unless the process allows it (fabula analyze) or FABULA_FORK=1 asks for it
    monkeypatch.setenv("FABULA_FORK", "1")
    monkeypatch.setattr(_parallel, "_forbidden", True)
    assert not can_fork()
    assert fork_call(os.getpid, os.getpid) == (os.getpid(), os.getpid())
    assert _parallel.fork_start(os.getpid) is None
    assert not _parallel.start_ahead("pid", os.getpid) and _parallel.take_ahead("pid") == (False, None)


@needs_fork
def test_by_default_a_child_needs_a_core_to_spare() -> None:
    """Where the process allows forking (fabula analyze) but FABULA_FORK does not insist, a busy machine (the
    1-minute load average within half a core of the CPUs) gets no child: it would only compete."""
    out = _in_a_fresh_interpreter(
        """
        import os
        from fabula import _parallel
        del os.environ["FABULA_FORK"]
        _parallel.allow_forking()
        cpus = len(os.sched_getaffinity(0))
        answers = []
        for load in (0.2, cpus - 0.6, cpus - 0.5, cpus + 3.0):
            os.getloadavg = lambda load=load: (load, load, load)
            answers.append(_parallel.can_fork())
        os.environ["FABULA_FORK"] = "1"
        answers.append(_parallel.can_fork())  # FABULA_FORK=1: whatever the load
        print(*answers)
        """
    )
    assert out.split() == ["True", "True", "False", "False", "True"]


@needs_fork
def test_a_thread_python_does_not_know_of_also_stops_forking() -> None:
    """A library's own thread (a BLAS thread pool, started outside `threading`) counts: a fork beside it
    could copy a lock it holds. ``fabula analyze`` keeps BLAS on one thread for this reason."""
    out = _in_a_fresh_interpreter(
        """
        import _thread, threading, time
        from fabula._parallel import can_fork
        before = can_fork()
        _thread.start_new_thread(time.sleep, (30,))  # not registered with `threading`
        time.sleep(0.2)
        print(before, threading.active_count(), can_fork())
        """
    )
    assert out.split() == ["True", "1", "False"]


def test_fabula_analyze_s_process_allows_forking_without_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FABULA_FORK")
    monkeypatch.setattr(_parallel, "_allowed", False)
    assert not can_fork()
    _parallel.allow_forking()
    assert _parallel._allowed
    monkeypatch.setattr(_parallel, "_allowed", False)


@needs_fork
def test_work_started_ahead_is_taken_once_later_and_a_cancelled_child_is_gone() -> None:
    out = _in_a_fresh_interpreter(
        """
        import os, time
        from fabula._parallel import ahead_pending, cancel_ahead, fork_start, start_ahead, take_ahead
        here = os.getpid()
        pending = ahead_pending()
        print(start_ahead("pid", os.getpid), start_ahead("slow", lambda: time.sleep(60)), pending, ahead_pending())
        taken, pid = take_ahead("pid")
        print(taken, pid != here, take_ahead("pid"), take_ahead("never started"))
        # a child that starts more work ahead: it does not fork again (its parent keeps the other core)
        print(start_ahead("nested", lambda: start_ahead("inner", os.getpid)), take_ahead("nested"))
        forked = fork_start(lambda: 1 / 0)
        print(forked.collect())  # the child raised: the caller computes it itself
        started = time.perf_counter()
        cancel_ahead()  # the 60-second child is killed and reaped, not waited for
        print(time.perf_counter() - started < 5, take_ahead("slow"), ahead_pending())
        """
    )
    assert out.splitlines() == [
        "True True False True",
        "True True (False, None) (False, None)",
        "True (True, False)",
        "(False, None)",
        "True (False, None) False",
    ]


@needs_fork
def test_ctrl_c_in_the_parent_kills_and_reaps_the_child(tmp_path: Path) -> None:
    """SIGINT to the whole process group (what a terminal sends): the parent raises KeyboardInterrupt and
    the child, which was still working, is gone — no orphan, no zombie, no traceback from it."""
    pid_file = tmp_path / "child.pid"
    script = textwrap.dedent(
        f"""
        import os, sys, time
        from fabula._parallel import fork_call

        def child():
            open({str(pid_file)!r}, "w").write(str(os.getpid()))
            time.sleep(60)

        def parent():
            for _ in range(600):  # in steps: a Ctrl-C just before one long sleep waits for its end
                time.sleep(0.1)

        try:
            fork_call(child, parent)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(130)
        """
    )
    _ctrl_c_once_the_child_runs(script, pid_file)


@needs_fork
def test_a_talking_child_swaps_messages_midway_and_its_failures_cost_only_time() -> None:
    """`fork_talk`: the child's message comes here, this process's reaches it, its result comes back; a child
    that fails before or after its first message makes every later call answer False, and is gone."""
    out = _in_a_fresh_interpreter(
        """
        import os
        from fabula._parallel import fork_talk
        here = os.getpid()

        def halves(channel):
            channel.send(("first half", os.getpid()))
            return channel.receive() * 2

        talk = fork_talk(halves)
        (word, pid) = talk.receive()[1]
        print(word, pid != here, talk.send(21), talk.collect())

        def dies_midway(channel):
            channel.send("midway")
            os._exit(3)

        talk = fork_talk(dies_midway)
        print(talk.receive(), talk.collect(), talk.send(1), talk.receive())

        def raises(channel):
            raise ValueError("bad")

        talk = fork_talk(raises)
        print(talk.receive(), talk.send(1), talk.collect())
        try:
            os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            print("no child left")
        """
    )
    assert out.splitlines() == [
        "first half True True (True, 42)",
        "(True, 'midway') (False, None) False (False, None)",
        "(False, None) False (False, None)",
        "no child left",
    ]


@needs_fork
def test_ctrl_c_while_waiting_for_a_talking_child_kills_and_reaps_it(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    script = textwrap.dedent(
        f"""
        import os, sys, time
        from fabula._parallel import fork_talk

        def child(channel):
            open({str(pid_file)!r}, "w").write(str(os.getpid()))
            time.sleep(60)

        talk = fork_talk(child)
        try:
            talk.receive()
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(130)
        """
    )
    _ctrl_c_once_the_child_runs(script, pid_file)


@needs_fork
def test_ctrl_c_while_the_new_child_runs_python_s_at_fork_hooks_prints_nothing(tmp_path: Path) -> None:
    """A Ctrl-C that reaches a child while Python still runs its at-fork hooks (``threading._after_fork``,
    logging's lock; here a slow hook of the test's own, to widen that moment) raised KeyboardInterrupt in the
    hook, and Python printed "Exception ignored in ... Traceback" on stderr (CI failed so once in ~60
    runs). SIGINT stays blocked across the fork until the child ignores it."""
    pid_file = tmp_path / "child.pid"
    script = textwrap.dedent(
        f"""
        import os, sys, time
        from fabula._parallel import fork_call

        def slow_hook():
            open({str(pid_file)!r}, "w").write(str(os.getpid()))
            time.sleep(0.5)

        os.register_at_fork(after_in_child=slow_hook)

        def parent():
            try:
                for _ in range(600):  # in steps: a Ctrl-C just before one long sleep waits for its end
                    time.sleep(0.1)
            except KeyboardInterrupt:  # leave the child time to print what it would
                time.sleep(1.5)
                raise

        try:
            fork_call(lambda: time.sleep(60), parent)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(130)
        """
    )
    _ctrl_c_once_the_child_runs(script, pid_file)


def _ctrl_c_once_the_child_runs(script: str, pid_file: Path) -> None:
    """Run ``script`` as a terminal's job; once its forked child has written ``pid_file``, send SIGINT to
    the whole process group: the script must print "interrupted", exit 130 without a traceback, and leave
    no child behind."""
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # SIGINT at its default, as a shell starts a job: a test process that ignores it (pytest-xdist's
        # workers, or a test before this one) would otherwise pass that on and the child never sees Ctrl-C
        preexec_fn=like_a_terminal_job,
    )
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the child never started"
        time.sleep(0.05)
    child = int(pid_file.read_text())
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130 and out.strip() == "interrupted", err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)
