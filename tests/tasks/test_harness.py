"""The evaluation harness through ``fabula eval``: a toy task registered from a test module, the report
layout, per-item logs, failures, and resuming after an interruption or a kill with no repeated model call."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import orjson
import pytest

from fabula.errors import ConfigError
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.tasks import get_task, log_path_for, run_eval, task_names
from tests.conftest import ROOT, run_cli
from tests.tasks import toy_tasks
from tests.tasks.toy_tasks import Interrupt


def lines(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_eval_list_shows_every_task(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("eval", "--list") == 0
    out = capsys.readouterr().out
    for name in ("quotes", "characters", "toy-sums", "toy-llm"):
        assert name in out and name in task_names()


def test_toy_task_runs_through_the_cli_with_its_declared_options(tmp_path: Path) -> None:
    out = tmp_path / "toy.json"
    assert run_cli("eval", "toy-sums", "--label", "y", "--json", out) == 0
    report = orjson.loads(out.read_bytes())
    assert report["task"] == "toy-sums" and report["settings"] == {"label": "y"}
    assert report["items"] == 6 and report["novels"] == {}
    assert report["mean"] == {"accuracy": pytest.approx(4 / 6)}  # items 2 and 5 are wrong
    add = report["groups"]["category"]["add"]
    assert add == {"accuracy": pytest.approx(2 / 3), "items": 3, "seconds": add["seconds"]}
    assert 0.0 <= add["seconds"] < 5.0  # wall time of three additions: near zero, but a loaded machine varies
    assert report["groups"]["level"]["2"]["accuracy"] == 0.5  # level 2 (first term >= 3): q2 right, q4 wrong
    log = lines(log_path_for(out))
    assert log[0]["task"] == "toy-sums" and log[-1] == {"complete": True}
    items = log[1:-1]
    assert [r["id"] for r in items] == [f"q{i}" for i in range(6)]
    assert items[1]["scores"] == {"accuracy": 0.0} and items[1]["prediction"] == 6
    assert items[1]["groups"] == {"category": "add", "level": "1"}


def test_declared_option_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("eval", "toy-sums", "--label", "z") == 2
    err = capsys.readouterr().err
    assert "--label: must be one of x, y, not 'z'" in err and "--label --label" not in err


def test_limit_runs_the_first_items_and_is_a_setting_of_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "toy.json"
    assert run_cli("eval", "toy-sums", "--limit", "2", "--json", out) == 0
    report = orjson.loads(out.read_bytes())
    assert report["items"] == 2 and report["settings"] == {"label": "x", "limit": 2}
    assert [r["id"] for r in lines(log_path_for(out)) if "id" in r] == ["q0", "q1"]
    assert run_cli("eval", "toy-sums", "--limit", "0") == 2
    assert "--limit" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="--limit must be at least 1"):
        run_eval(get_task("toy-sums")(), limit=0, progress=False)
    assert run_eval(get_task("toy-sums")(), limit=99, progress=False).items == 6  # more than there are


def test_every_task_takes_limit(capsys: pytest.CaptureFixture[str]) -> None:
    for name in task_names():
        assert run_cli("eval", name, "--help") == 0
        assert "--limit" in capsys.readouterr().out, name


def test_an_interrupted_run_resumes_only_with_the_same_limit(tmp_path: Path) -> None:
    out = tmp_path / "toy.json"
    log = log_path_for(out)

    def cut_after_two_items() -> None:  # header, q0 (marked, to see whether it is run again), q1
        header, first, second = lines(log)[:3]
        log.write_bytes(
            b"".join(orjson.dumps(r) + b"\n" for r in (header, {**first, "prediction": -1}, second))
        )

    run_eval(get_task("toy-sums")(), json_path=out, progress=False, limit=4)
    cut_after_two_items()
    resumed = run_eval(get_task("toy-sums")(), json_path=out, progress=False, limit=4)
    assert resumed.items == 4 and resumed.settings["limit"] == 4
    records = [r for r in lines(log) if "id" in r]
    assert [r["id"] for r in records] == ["q0", "q1", "q2", "q3"] and records[0]["prediction"] == -1
    cut_after_two_items()
    wider = run_eval(get_task("toy-sums")(), json_path=out, progress=False, limit=5)
    records = [r for r in lines(log) if "id" in r]
    assert wider.items == 5 and [r["id"] for r in records] == [f"q{i}" for i in range(5)]
    assert records[0]["prediction"] == 3  # another limit is another run: started afresh
    assert "limit" not in run_eval(get_task("toy-sums")(), progress=False).settings


def test_unwritable_report_fails_before_the_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("eval", "toy-sums", "--json", tmp_path / "missing" / "toy.json") == 2
    assert "folder does not exist" in capsys.readouterr().err
    assert run_cli("eval", "toy-sums", "--json", tmp_path) == 2


class _ClosingToy(toy_tasks.ToyLlm):
    """ToyLlm that counts the harness's calls of `close` (where a task releases what `check` opened)."""

    closed = 0

    def close(self) -> None:
        type(self).closed += 1


def test_task_is_closed_after_a_run_and_after_an_interrupted_one() -> None:
    with ScriptedOpenAIServer(toy_tasks.answer) as server:
        from fabula.llm import get_llm

        llm = get_llm(f"openai:toy@{server.url}", cache=False)
        try:
            run_eval(_ClosingToy(), llm=llm, progress=False)
            assert _ClosingToy.closed == 1
            Interrupt.after_item = "q1"
            with pytest.raises(KeyboardInterrupt):
                run_eval(_ClosingToy(), llm=llm, progress=False)
            assert _ClosingToy.closed == 2  # a cut-off run still releases the judge it opened
        finally:
            Interrupt.after_item = None
            llm.close()


def test_llm_items_log_their_calls_and_resume_after_an_interruption(tmp_path: Path) -> None:
    out = tmp_path / "llm.json"
    cache = tmp_path / "cache.sqlite"
    with ScriptedOpenAIServer(toy_tasks.answer) as server:
        spec = f"openai:toy@{server.url}"
        Interrupt.after_item = "q2"  # q0, q1 logged; q2's call answered and cached, then Ctrl-C
        try:
            assert run_cli("eval", "toy-llm", "--llm", spec, "--json", out, "--no-cache") == 130
            Interrupt.after_item = None
            # without the cache the cut-off item's call is repeated; start over with the cache on
            assert server.requests == 3
        finally:
            Interrupt.after_item = None
        os.environ["FABULA_CACHE_DIR"] = str(tmp_path)
        try:
            Interrupt.after_item = "q2"
            assert run_cli("eval", "toy-llm", "--llm", spec, "--json", out, "--no-resume") == 130
            Interrupt.after_item = None
            before = server.requests
            assert before == 6  # q0, q1, q2 asked again (fresh run), q2 cached
            assert run_cli("eval", "toy-llm", "--llm", spec, "--json", out) == 0
        finally:
            Interrupt.after_item = None
            del os.environ["FABULA_CACHE_DIR"]
        assert server.requests - before == 3  # q3, q4, q5 only: q2 came from the cache
    del cache
    report = orjson.loads(out.read_bytes())
    assert report["mean"]["accuracy"] == 0.5 and report["items"] == 6  # additions right, products 0
    assert report["settings"]["llm"] == spec
    log = lines(log_path_for(out))
    items = [r for r in log if "id" in r]
    assert [r["id"] for r in items] == [f"q{i}" for i in range(6)]
    q2 = next(r for r in items if r["id"] == "q2")
    assert q2["cache_hit"] is True and q2["raw_answer"] == "9" and len(q2["prompt_hash"]) == 64
    q3 = next(r for r in items if r["id"] == "q3")
    assert q3["cache_hit"] is False and q3["prediction"] == 0 and q3["details"]["llm_calls"][0]["seconds"] > 0


def test_killed_run_resumes_with_zero_repeated_model_calls(tmp_path: Path) -> None:
    """SIGKILL a ``fabula eval`` process while its fourth model call is in flight, then run it again."""
    reached, release = threading.Event(), threading.Event()
    answered: Counter[str] = Counter()

    def answer(messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        if prompt.startswith("What is 2 mul 2") and not release.is_set():
            reached.set()
            release.wait(30)
            return "never delivered"
        answered[prompt] += 1
        return toy_tasks.answer(messages)

    out = tmp_path / "killed.json"
    env = {
        **os.environ,
        "FABULA_CACHE_DIR": str(tmp_path),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    with ScriptedOpenAIServer(answer) as server:
        command = [
            sys.executable,
            "-c",
            "import sys, tests.tasks.toy_tasks; from fabula.cli import main; main(sys.argv[1:])",
            "eval",
            "toy-llm",
            "--llm",
            f"openai:toy@{server.url}",
            "--json",
            str(out),
        ]
        child = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE)
        try:
            assert reached.wait(60), "the run never reached its fourth item"
            child.send_signal(signal.SIGKILL)
            child.wait(30)
        finally:
            if child.poll() is None:
                child.kill()
        assert not out.exists()
        first = server.requests
        assert first == 4 and sum(answered.values()) == 3
        release.set()
        time.sleep(0.05)
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()
        assert b"resuming: 3 of 6 items already done" in done.stderr
    assert server.requests - first == 3  # the cut-off item and the two after it, nothing else
    del answered["never delivered"]
    assert set(answered.values()) == {1} and len(answered) == 6  # each question answered exactly once
    assert orjson.loads(out.read_bytes())["items"] == 6
    # one sample line per question (the items are the samples), the resumed ones with their model calls
    header, *samples = lines(log_path_for(out, "samples"))
    assert header["task"] == "toy-llm" and len(samples) == 6
    assert all(len(s["calls"]) == 1 and s["calls"][0]["prompt_hash"] for s in samples)
    assert {s["item"] for s in samples} == {r["id"] for r in lines(log_path_for(out))[1:-1]}


def test_a_finished_log_is_not_resumed(tmp_path: Path) -> None:
    out = tmp_path / "toy.json"
    first = run_eval(get_task("toy-sums")(), json_path=out, progress=False)
    again = run_eval(get_task("toy-sums")(), json_path=out, progress=False, limit=3)
    assert first.items == 6 and again.items == 3
    assert len([r for r in lines(log_path_for(out)) if "id" in r]) == 3


def test_a_method_that_needs_a_model_is_refused_before_any_novel_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.tasks.pdnc_fixture import dialogue_novel

    dialogue_novel(tmp_path / "pdnc" / "A")
    out = tmp_path / "r.json"
    assert run_cli("eval", "quotes", "--pdnc", tmp_path / "pdnc", "--method", "hybrid", "--json", out) == 2
    err = capsys.readouterr().err
    assert "the hybrid attribution method needs a model: pass --llm SPEC" in err
    assert not log_path_for(out).exists() and "… A" not in err


def test_items_run_concurrently_with_a_model_and_record_their_own_calls(tmp_path: Path) -> None:
    """Items in worker threads, each calling generate_many (more threads): every call lands in the log
    line of the item that made it."""
    from fabula.llm import get_llm

    with ScriptedOpenAIServer(toy_tasks.answer, delay=0.05) as server:
        llm = get_llm(f"openai:toy@{server.url}", cache=False)
        report = run_eval(get_task("toy-batch")(), llm=llm, json_path=tmp_path / "b.json", concurrency=3)
        assert server.requests == 12
    assert report.mean["accuracy"] == 0.5
    for record in lines(log_path_for(tmp_path / "b.json"))[1:-1]:
        calls = record["details"]["llm_calls"]
        assert len(calls) == 2 and len({c["prompt_hash"] for c in calls}) == 2
        assert sorted(c["raw_answer"] for c in calls) == sorted(record["prediction"])


def test_a_second_evaluation_writing_the_same_report_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two ``fabula eval`` runs with one ``--json``: the second is refused in one line while the first
    runs (their item logs interleaved and both exited 0), and the first finishes with a clean log."""
    reached, release = threading.Event(), threading.Event()

    def answer(messages: list[dict[str, str]]) -> str:
        reached.set()
        release.wait(30)
        return toy_tasks.answer(messages)

    out = tmp_path / "shared.json"
    path = os.pathsep.join([str(ROOT / "src"), str(ROOT)])  # this checkout's fabula, and its tests
    env = {**os.environ, "FABULA_CACHE_DIR": str(tmp_path), "PYTHONPATH": path}
    with ScriptedOpenAIServer(answer) as server:
        command = [
            sys.executable,
            "-c",
            "import sys, tests.tasks.toy_tasks; from fabula.cli import main; main(sys.argv[1:])",
            *("eval", "toy-llm", "--llm", f"openai:toy@{server.url}", "--json", str(out)),
        ]
        first = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE)
        try:
            assert reached.wait(60), "the first run never asked the model"
            code = run_cli("eval", "toy-sums", "--json", out)
            err = capsys.readouterr().err.strip()
            release.set()
            _, first_err = first.communicate(timeout=120)
        finally:
            release.set()
            if first.poll() is None:
                first.kill()
    assert code == 2, err
    assert err.startswith("fabula: error:") and "\n" not in err and "is writing to this file" in err, err
    assert f"process {first.pid}" in err
    assert first.returncode == 0, first_err.decode()
    log = lines(log_path_for(out))
    assert log[0]["task"] == "toy-llm" and log[-1] == {"complete": True}
    assert sorted(r["id"] for r in log[1:-1]) == [f"q{i}" for i in range(6)]


def test_plain_progress_lines_stay_whole_when_items_finish_on_many_threads(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An evaluation with a model answers items on worker threads; with stderr piped, two lines came out
    as "… lfed-6 (5/10)… lfed-7 (6/10)" and an empty line (the line and its newline were two writes, and
    the count was read and raised by several threads at once)."""
    import re

    from fabula.tasks._run import plain_progress

    threads = 19  # fewer than 20 items: every item gets its line
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as on a busy machine writing to a pipe
    try:
        for _ in range(30):
            start = threading.Barrier(threads)
            with plain_progress("toy", threads, 0) as note:

                def work(t: int, start: threading.Barrier) -> None:
                    start.wait()
                    note(f"item-{t}")

                workers = [threading.Thread(target=work, args=(t, start)) for t in range(threads)]
                for worker in workers:
                    worker.start()
                for worker in workers:
                    worker.join()
            lines = capsys.readouterr().err.splitlines()
            assert all(re.fullmatch(r"… item-\d+ \(\d+/19\)", line) for line in lines), lines
            assert sorted(int(line.rsplit("(", 1)[1].split("/")[0]) for line in lines) == list(range(1, 20))
    finally:
        sys.setswitchinterval(switch)
