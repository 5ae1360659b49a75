"""``fabula analyze`` under the faults a real user meets: a killed parent, a kill while a folder is being
rewritten, Ctrl-C on a corpus run, temporary files a kill left, a read-only output folder, and a reading
position in the folder of the whole-book results. Real novels, real processes and real signals."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from fabula.corpus import AnalyzeSettings, analyze_to_folder, plan_jobs, up_to_date
from tests.conftest import ROOT, like_a_terminal_job, run_cli

ALICE = ROOT / "examples" / "alice_in_wonderland.txt"
CLI = [sys.executable, "-c", "from fabula.cli import main; main()"]


def _children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _many_books(pdnc_dir: Path) -> list[Path]:
    """Every PDNC novel: enough work that a fast machine is still busy when the test signals it (three
    books finished in under four seconds on the CI machine, before the signal was sent)."""
    books = sorted(pdnc_dir.glob("*/novel_text.txt"))
    if len(books) < 6:
        pytest.skip(f"fewer than six PDNC novels found in {pdnc_dir}")
    return books


def _start_corpus_run(books: list[Path], out: Path) -> tuple[subprocess.Popen[bytes], set[int]]:
    """``fabula analyze`` on several books with two workers, returned once both workers are busy."""
    process = subprocess.Popen(
        [*CLI, "analyze", *map(str, books), "-o", str(out), "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a shell gives a foreground job
        preexec_fn=like_a_terminal_job,
        env={**os.environ, "COLUMNS": "200"},
    )
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while time.monotonic() < deadline and process.poll() is None:
        workers = _children(process.pid)
        if len(workers) >= 2:
            time.sleep(1)  # let the workers get into a book
            if process.poll() is not None:
                pytest.fail("the corpus run ended before the test could signal it; give it more books")
            return process, _children(process.pid)
        time.sleep(0.2)
    process.kill()
    pytest.fail(f"the workers never started: {process.communicate()[1].decode()[-2000:]}")


def _wait_gone(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = {pid for pid in pids if _alive(pid)}
        if not alive:
            return set()
        time.sleep(0.2)
    return {pid for pid in pids if _alive(pid)}


def _ctrl_c(process: subprocess.Popen[bytes], seconds: float, lost: str) -> str:
    """Press Ctrl-C as a terminal does (SIGINT to the whole foreground group) and wait for the run to
    end; its stderr, or the test fails with ``lost`` when it is still running after ``seconds``."""
    os.killpg(process.pid, signal.SIGINT)
    try:
        _, err = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail(lost)
    return err.decode()


def test_sigkill_of_the_parent_ends_every_worker(tmp_path: Path, pdnc_dir: Path) -> None:
    process, workers = _start_corpus_run(_many_books(pdnc_dir), tmp_path / "out")
    assert workers
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    left = _wait_gone(workers, 15)
    for pid in left:  # do not leave them behind for the next test
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"workers outlived their killed parent: {left}"


def test_ctrl_c_stops_at_once_keeps_what_finished_and_says_so(tmp_path: Path, pdnc_dir: Path) -> None:
    books = _many_books(pdnc_dir)
    out = tmp_path / "out"
    process, workers = _start_corpus_run(books, out)
    text = _ctrl_c(process, 20, "Ctrl-C did not stop fabula analyze within 20 s")
    assert process.returncode == 130, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert "interrupted" in text and "run the same command again" in text, text
    assert text.count("fabula: interrupted") == 1, text  # said once, by the corpus run
    assert not _wait_gone(workers, 10)
    # what finished is kept: every folder with a manifest is complete, and a re-run redoes only the rest
    for folder in out.iterdir():
        if (folder / "manifest.json").exists():
            assert (folder / "report.html").is_file()


def test_ctrl_c_while_the_workers_start_is_not_lost(tmp_path: Path, pdnc_dir: Path) -> None:
    # the parent holds SIGINT back while it spawns the workers (so they never see it); a Ctrl-C pressed
    # then must still stop the run once the pool is up, not be dropped (it once was: the run went on)
    process = subprocess.Popen(
        [*CLI, "analyze", *map(str, _many_books(pdnc_dir)), "-o", str(tmp_path / "out"), "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=like_a_terminal_job,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None and not _children(process.pid):
        time.sleep(0.01)
    # the first child exists: the pool is starting
    text = _ctrl_c(process, 30, "a Ctrl-C during the workers' start was lost: fabula analyze went on")
    assert process.returncode == 130, text
    assert "Traceback" not in text and "EOFError" not in text, text  # no child cut off while starting
    assert text.count("fabula: interrupted") == 1, text


def test_a_kill_while_rewriting_a_folder_is_never_called_up_to_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = tmp_path / "alice.txt"
    text = ALICE.read_text(encoding="utf-8")
    book.write_text(text[: text.index("CHAPTER IV")], encoding="utf-8")
    settings = AnalyzeSettings()
    [job] = plan_jobs([book], tmp_path / "out")
    assert analyze_to_folder(job, settings).status == "done"
    assert up_to_date(job, settings) is not None

    class Killed(BaseException):
        pass

    import fabula.corpus._book as run

    real_write = run.write_outputs

    def killed_half_way(analysis: object, folder: Path) -> None:
        (Path(folder) / "book.json").write_text("{half a book")
        raise Killed

    monkeypatch.setattr(run, "write_outputs", killed_half_way)
    with pytest.raises(Killed):
        analyze_to_folder(job, settings, force=True)
    monkeypatch.setattr(run, "write_outputs", real_write)
    assert up_to_date(job, settings) is None  # the half-rewritten folder must be redone
    assert analyze_to_folder(job, settings).status == "done"
    assert orjson.loads((job.folder / "book.json").read_bytes())["text"]


def test_temporary_files_left_by_a_kill_are_cleaned(tmp_path: Path) -> None:
    book = tmp_path / "alice.txt"
    text = ALICE.read_text(encoding="utf-8")
    book.write_text(text[: text.index("CHAPTER III")], encoding="utf-8")
    out = tmp_path / "out"
    assert run_cli("analyze", book, "-o", out) == 0
    leftovers = [out / "alice" / ".book.json.k2j3h4.tmp", out / "alice" / ".report.html.x8y9.tmp"]
    for path in leftovers:
        path.write_bytes(b"x" * 1000)
    mine = out / "alice" / ".notes.tmp"  # not a name fabula writes: left alone
    mine.write_text("keep")
    assert run_cli("analyze", book, "-o", out) == 0  # up to date, and still cleaned
    assert not any(path.exists() for path in leftovers)
    assert mine.exists()


def test_a_reading_position_never_replaces_the_whole_book_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / "alice.txt"
    text = ALICE.read_text(encoding="utf-8")
    book.write_text(text[: text.index("CHAPTER V")], encoding="utf-8")
    out = tmp_path / "out"
    assert run_cli("analyze", book, "-o", out) == 0
    whole = (out / "alice" / "book.json").read_bytes()
    assert run_cli("analyze", book, "-o", out, "--until", "50%") == 0
    assert run_cli("analyze", book, "-o", out, "--until-chapter", "2") == 0
    assert (out / "alice" / "book.json").read_bytes() == whole
    half = orjson.loads((out / "alice.until-50pct" / "book.json").read_bytes())
    assert half["until"] is not None and len(half["text"]) < len(orjson.loads(whole)["text"])
    assert (out / "alice.until-chapter-2" / "manifest.json").is_file()
    capsys.readouterr()
    assert run_cli("analyze", book, "-o", out) == 0
    assert "up to date" in capsys.readouterr().err  # the whole-book folder is still the whole-book run


def test_a_read_only_output_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    if os.geteuid() == 0:  # root writes through permission bits: make the folder immutable instead
        if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(out)]).returncode:
            pytest.skip("cannot make a folder read-only for root here (no chattr +i)")
    else:
        out.chmod(0o555)
    try:
        code = run_cli("analyze", ALICE, ALICE, "-o", out)
        err = capsys.readouterr().err
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(out)], check=True)
        out.chmod(0o755)
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"fabula: error: {out}: cannot write"), err
    assert not list(out.iterdir())


def test_an_output_path_under_a_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert run_cli("analyze", ALICE, "-o", afile / "sub") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fabula: error:") and "\n" not in err and "internal error" not in err, err
