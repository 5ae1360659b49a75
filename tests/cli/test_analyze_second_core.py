"""``fabula analyze BOOK`` uses the second core in its own process (`fabula._parallel`): the book read ahead
while the command line loads, a long book's name candidates in two halves, its later conversations'
attribution, ``report.html`` beside the other files. As real processes: the outputs are byte-identical to one core's (``FABULA_FORK=0``), and Ctrl-C at
any moment ends the run with the usual one line and status 130, leaving no process behind."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_NOVEL, like_a_terminal_job, pdnc_novel_dir

needs_fork = pytest.mark.skipif(
    not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2,
    reason="no second core here (one core or not Linux): fabula analyze runs on one",
)

# the console script counting its forks (it sets OPENBLAS_NUM_THREADS=1 before numpy loads: numpy's BLAS
# threads would stop every fork)
_COUNTING = """
import os, sys
forks, fork = [], os.fork

def counted():
    pid = fork()
    if pid:
        forks.append(pid)
    return pid

os.fork = counted
import fabula._parallel as parallel
taken, take = [], parallel.take_ahead

def take_counted(key):
    done, result = take(key)
    taken.append(done)
    return done, result

parallel.take_ahead = take_counted  # before fabula.book imports it
{patch}
from fabula.cli import main
try:
    main()
finally:
    print("forks:", len(forks), "taken:", taken, file=sys.stderr)
"""
# ... with books short enough for the tests split as a long book is (these imports load numpy first, so
# the tests that use it set OPENBLAS_NUM_THREADS=1 themselves)
_PATCHED = _COUNTING.format(
    patch="""
import fabula.characters._discover._candidates as candidates
import fabula.corpus._write as write
import fabula.describe._lines as lines
import fabula.quotes._ranker as ranker
candidates.FORK_CHARACTERS = write.FORK_CHARACTERS = ranker.FORK_TURNS = lines.AHEAD_QUOTES = 0
"""
)
DATA_FILES = ("book.json", "characters.jsonl", "quotes.jsonl", "quotes.tsv")


def _analyze(book: Path, out: Path, script: str = _PATCHED, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, "analyze", str(book), "-o", str(out)],
        # FABULA_FORK=1: fork whatever the machine's load (by default only with a core to spare)
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "FABULA_FORK": "1", **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _without_run_times(report: bytes) -> bytes:
    """``report.html`` without what differs from run to run (the run's seconds and date)."""
    return re.sub(rb"\d{4}-\d\d-\d\d[ T][\d:]+|\d+(?:\.\d+)? ?s\b", b"", report)


@needs_fork
def test_two_cores_write_what_one_core_writes(tmp_path: Path) -> None:
    one = _analyze(EXAMPLE_NOVEL, tmp_path / "one", FABULA_FORK="0")
    assert one.returncode == 0, one.stderr
    both = _analyze(EXAMPLE_NOVEL, tmp_path / "two")
    assert both.returncode == 0, both.stderr
    assert "forks: 0 taken: [False, False]" in one.stderr
    # the book read ahead, its candidates' half, its quotes' lines, its later conversations' attribution, the
    # report; the book and the lines taken
    assert "forks: 5 taken: [True, True]" in both.stderr
    folder = "alice_in_wonderland"
    for name in DATA_FILES:
        assert (tmp_path / "one" / folder / name).read_bytes() == (
            tmp_path / "two" / folder / name
        ).read_bytes()
    reports = [
        _without_run_times((tmp_path / run / folder / "report.html").read_bytes()) for run in ("one", "two")
    ]
    assert reports[0] == reports[1]


@needs_fork
def test_books_in_worker_processes_write_what_one_core_writes(tmp_path: Path) -> None:
    """``--jobs 2`` over a folder with forking allowed (FABULA_FORK=1; a worker never forks: it is banned,
    and its parent-watch thread alone rules it out) writes what ``--jobs 1`` on one core writes."""
    folder = tmp_path / "books"
    folder.mkdir()
    for name in ("first", "second"):
        (folder / f"{name}.txt").write_bytes(EXAMPLE_NOVEL.read_bytes())
    runs = {"one": ("1", "0"), "jobs": ("2", "1")}
    for run, (jobs, fork) in runs.items():
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                _PATCHED,
                "analyze",
                str(folder),
                "-o",
                str(tmp_path / run),
                "--jobs",
                jobs,
            ],
            env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "FABULA_FORK": fork},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    for book in ("first", "second"):
        for name in DATA_FILES:
            assert (tmp_path / "one" / book / name).read_bytes() == (
                tmp_path / "jobs" / book / name
            ).read_bytes()


@needs_fork
def test_the_console_script_forks_for_a_long_book(tmp_path: Path) -> None:
    """The plain console script (nothing loaded before it, BLAS as the environment says) on a 160K-word
    novel: five children, and a clean exit (FABULA_FORK=1: whatever the machine's load)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"} | {"FABULA_FORK": "1"}
    book = pdnc_novel_dir("Emma") / "novel_text.txt"
    done = subprocess.run(
        [sys.executable, "-c", _COUNTING.format(patch=""), "analyze", str(book), "-o", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # the book read ahead, its candidates' second half, its quotes' lines, its later conversations'
    # attribution, the report; and load_book took the book read ahead, the profiles the lines
    assert "forks: 5 taken: [True, True]" in done.stderr, done.stderr


def _process_group(group: int) -> set[int]:
    """The live processes of a process group (from /proc)."""
    members = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == group and fields[0] != "Z":
                    members.add(int(entry.name))
    return members


@needs_fork
@pytest.mark.parametrize("after", [0.0, 0.3, 1.0, 2.0])
def test_ctrl_c_at_any_moment_stops_cleanly_and_leaves_no_process(tmp_path: Path, after: float) -> None:
    book = pdnc_novel_dir("Emma") / "novel_text.txt"
    process = subprocess.Popen(
        [sys.executable, "-c", _COUNTING.format(patch=""), "analyze", str(book), "-o", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell gives a foreground job
        preexec_fn=like_a_terminal_job,
        env={**os.environ, "FABULA_FORK": "1"},  # the children whatever the machine's load
    )
    deadline = time.monotonic() + 60
    while len(_process_group(process.pid)) < 2:  # the book is being read ahead: the command has started
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()[1]
        time.sleep(0.01)
    time.sleep(after)  # then at once, during the imports, discovery, attribution
    os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail("Ctrl-C did not stop fabula analyze within 60 s")
    deadline = time.monotonic() + 5
    while _process_group(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _process_group(process.pid), "a child of fabula analyze outlived it"
    finished = "✓ Emma" in err
    if process.returncode == 0 or (finished and process.returncode == -signal.SIGINT):
        # finished before the signal came (a fast machine), or it came while the finished command was
        # exiting, where Python's own SIGINT default applies again: the outputs are whole either way
        assert finished and list((tmp_path / "out").rglob("report.html")), err
        return
    assert process.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.count("interrupted") == 1, err


@needs_fork
def test_ctrl_c_just_after_the_read_ahead_forks_is_one_line(tmp_path: Path) -> None:
    """The Ctrl-C of the test above, arriving once the book's read-ahead child exists but before the command
    line's guard: where the parent was descheduled right after the fork on a busy machine (the test saw the
    child and pressed Ctrl-C meanwhile). The keypress is simulated at that moment, the only way to hit it
    every time: the fork, then KeyboardInterrupt in the parent as Python raises it on SIGINT. Status 130 and
    one line (it was a traceback, the read-ahead being started outside the guard), and no process left."""
    script = f"""
import sys
import fabula._parallel as parallel

fork = parallel._fork

def fork_then_ctrl_c():
    pid = fork()
    if pid:
        raise KeyboardInterrupt
    return pid

parallel._fork = fork_then_ctrl_c
sys.argv = ["fabula", "analyze", {str(EXAMPLE_NOVEL)!r}, "-o", {str(tmp_path / "out")!r}]
from fabula.cli import main
main()
"""
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "FABULA_FORK": "1"},
    )
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130 and err == "fabula: interrupted\n", err
    deadline = time.monotonic() + 5
    while _process_group(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _process_group(process.pid), "the read-ahead child outlived fabula analyze"


@needs_fork
def test_ctrl_c_while_the_ranker_s_child_works_stops_cleanly(tmp_path: Path) -> None:
    """Ctrl-C while attribution's child (`fabula.quotes._ranker._rank_on_two_cores`) is working: status 130,
    one line, no traceback, and the child is gone (the parent waits for it in `fork_talk`'s pipe)."""
    pid_file = tmp_path / "ranker-child.pid"
    script = _COUNTING.format(
        patch=f"""
import time
import fabula.quotes._ranker as ranker

def working(*args):
    open({str(pid_file)!r}, "w").write(str(os.getpid()))
    time.sleep(60)

ranker._later_conversations = working
"""
    )
    book = pdnc_novel_dir("DaisyMiller") / "novel_text.txt"  # 504 turns: the ranker forks
    process = subprocess.Popen(
        [sys.executable, "-c", script, "analyze", str(book), "-o", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=like_a_terminal_job,
        # the patch imports numpy before the command line can keep BLAS on one thread
        env={**os.environ, "FABULA_FORK": "1", "OPENBLAS_NUM_THREADS": "1"},
    )
    err = _ctrl_c_once(process, lambda: pid_file.exists() and bool(pid_file.read_text()))
    assert process.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.count("interrupted") == 1, err
    deadline = time.monotonic() + 5
    while _process_group(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _process_group(process.pid), "the ranker's child outlived fabula analyze"


def _ctrl_c_to_python_m_fabula(tmp_path: Path, patch: str, marker: Path) -> tuple[int, str]:
    """``python -m fabula analyze`` on a short novel with ``patch`` run first (as a ``sitecustomize`` module:
    ``-m`` runs no other code before the command); once the patched code has written ``marker``, Ctrl-C to
    the process group. The exit status and stderr."""
    patches = tmp_path / "patches"
    patches.mkdir()
    (patches / "sitecustomize.py").write_text(patch)
    book = pdnc_novel_dir("DaisyMiller") / "novel_text.txt"  # 504 turns: the ranker forks
    path = os.pathsep.join(filter(None, [str(patches), os.environ.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [sys.executable, "-m", "fabula", "analyze", str(book), "-o", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=like_a_terminal_job,
        env={**os.environ, "FABULA_FORK": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": path},
    )
    err = _ctrl_c_once(process, marker.exists)
    return process.returncode, err


def _ctrl_c_once(process: subprocess.Popen[str], ready: Callable[[], bool]) -> str:
    """Once ``ready()`` holds, Ctrl-C to ``process``'s group (a terminal's foreground job); its stderr,
    once it has ended (within 60 s, or the test fails)."""
    deadline = time.monotonic() + 120
    while not ready():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()[1]
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    try:
        return process.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail("Ctrl-C did not stop fabula analyze within 60 s")


@needs_fork
def test_ctrl_c_inside_an_exec_of_a_string_still_ends_with_status_130(tmp_path: Path) -> None:
    """A Ctrl-C that lands inside an ``exec`` of a string (dataclasses and namedtuples build methods so while
    modules load) left ``python -m fabula`` ending by SIGINT at exit, status -2 after fabula's own
    "interrupted" line: CPython remembers a plain KeyboardInterrupt that leaves such an exec, even once
    caught, and ``-m`` checks that at exit (about 1 in 30 random Ctrl-Cs here). The command raises
    `fabula.cli._CtrlC`, a subclass CPython does not remember. Here the parent's half of attribution runs in
    an exec of a string."""
    marker = tmp_path / "in-exec"
    patch = f"""
import fabula.quotes._ranker as ranker

def working(*args):
    # the sleeps in steps: a Ctrl-C that comes just before one long sleep starts is acted on only as it
    # ends (CPython checks for signals between calls), and the test would wait for that
    exec("open({str(marker)!r}, 'w').write('x')\\nimport time\\nfor _ in range(600): time.sleep(0.1)")

ranker._earlier_conversations = working
"""
    status, err = _ctrl_c_to_python_m_fabula(tmp_path, patch, marker)
    assert status == 130, err
    assert "Traceback" not in err and err.count("interrupted") == 1, err


@needs_fork
def test_ctrl_c_while_modules_load_waits_for_them(tmp_path: Path) -> None:
    """A C extension that is initialising when Ctrl-C comes (numpy's) turns the KeyboardInterrupt into its
    own ImportError: a traceback and status 1 (seen about once in 50 random Ctrl-Cs). The command holds
    Ctrl-C back while it loads its modules and acts on it after: here the loading behaves like such an
    extension."""
    marker = tmp_path / "loading"
    patch = f"""
import time
import fabula.cli as cli

loading = cli.load_commands

def load_commands(names=None):
    open({str(marker)!r}, "w").write("x")
    try:
        time.sleep(1)
    except KeyboardInterrupt:
        raise ImportError("a C extension failed to import") from None
    loading(names)

cli.load_commands = load_commands
"""
    status, err = _ctrl_c_to_python_m_fabula(tmp_path, patch, marker)
    assert status == 130, err
    assert "Traceback" not in err and err.strip() == "fabula: interrupted", err


@needs_fork
def test_ctrl_c_inside_a_finalizer_is_not_lost(tmp_path: Path) -> None:
    """A Ctrl-C that lands where Python cannot pass an exception on (here a ``__del__``; seen in a weakref
    callback of the import system, once in 100 random Ctrl-Cs) was printed as "Exception ignored ...
    Traceback" and lost: the command ran on and finished. It is raised again where it can be."""
    marker = tmp_path / "in-finalizer"
    patch = f"""
import os
import time
import fabula.quotes._ranker as ranker

class Finalized:
    def __del__(self):
        # the marker by file descriptor: a file object closed here would be finalized in this __del__, and
        # CPython clears an exception raised while it closes one, silently (neither hook nor traceback)
        os.close(os.open({str(marker)!r}, os.O_WRONLY | os.O_CREAT))
        for _ in range(300):  # in steps: a Ctrl-C just before one long sleep waits for its end
            time.sleep(0.1)

def working(*args):
    Finalized()
    for _ in range(100):  # a Ctrl-C lost in the finalizer: the analysis would go on from here
        time.sleep(0.1)

ranker._earlier_conversations = working
"""
    status, err = _ctrl_c_to_python_m_fabula(tmp_path, patch, marker)
    assert status == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err and err.count("interrupted") == 1, err
