"""``fabula eval describe`` (BookWorm) on the shipped example novel: extractive methods and the oracle
through the harness, the LLM method against a scripted server (re-run served from the cache), bad data."""

from __future__ import annotations

import json
import os
from pathlib import Path

import orjson
import pytest

from fabula.llm.testing import ScriptedOpenAIServer
from fabula.tasks import get_task, log_path_for, run_eval
from tests.conftest import EXAMPLE_NOVEL, run_cli

REFERENCES = [
    {
        "id": "alice",
        "character": "Alice",
        "reference": "Alice is a curious girl who follows the White Rabbit down a rabbit-hole, grows and shrinks, "
        "meets the Hatter and the Queen of Hearts, and wakes up beside her sister.",
    },
    {
        "id": "hatter",
        "character": "the Hatter",
        "aliases": ["Hatter"],
        "reference": "The Hatter keeps a mad tea-party with the March Hare and the Dormouse, where it is always "
        "six o'clock, and later is a witness at the trial of the Knave of Hearts.",
    },
]


def _data(tmp_path: Path) -> Path:
    path = tmp_path / "refs.jsonl"
    book = os.path.relpath(EXAMPLE_NOVEL, tmp_path)
    path.write_text(
        "".join(json.dumps({**r, "book": book, "kind": "description"}) + "\n" for r in REFERENCES)
    )
    return path


def test_lead_random_and_oracle_through_the_harness(tmp_path: Path) -> None:
    data = _data(tmp_path)
    task = get_task("describe")
    reports = {m: run_eval(task(data=data, method=m), progress=False) for m in ("lead", "random", "oracle")}
    lead, oracle = reports["lead"].mean, reports["oracle"].mean
    assert lead["rouge1"] is not None and 0 < lead["rouge1"] < 1
    assert (
        oracle["rouge1"] is not None and oracle["rouge1"] >= lead["rouge1"]
    )  # the upper bound of extraction
    assert oracle["rouge1"] >= (reports["random"].mean["rouge1"] or 0)
    assert reports["lead"].novels["alice_in_wonderland"]["unresolved"] == 0
    assert set(lead) == {"rouge1", "rouge2", "rougeL", "entity_recall"}


def test_llm_method_writes_from_the_context_and_a_rerun_costs_no_calls(tmp_path: Path) -> None:
    data = _data(tmp_path)
    out = tmp_path / "llm.json"
    os.environ["FABULA_CACHE_DIR"] = str(tmp_path)
    try:
        with ScriptedOpenAIServer("Alice follows the White Rabbit down a rabbit-hole.") as server:
            spec = f"openai:toy@{server.url}"
            args = [
                "eval",
                "describe",
                "--data",
                data,
                "--method",
                "llm",
                "--context",
                "bm25",
                "--budget",
                "600",
            ]
            assert run_cli(*args, "--llm", spec, "--json", out) == 0
            first = server.requests
            assert run_cli(*args, "--llm", spec, "--json", out) == 0
            assert first == 2 and server.requests == first  # the second run is served from the cache
            prompts = [body["messages"][-1]["content"] for body in server.bodies]
    finally:
        del os.environ["FABULA_CACHE_DIR"]
    assert any("The character is Alice." in p for p in prompts) and all("<<<" in p for p in prompts)
    report = orjson.loads(out.read_bytes())
    assert report["settings"]["method"] == "llm" and report["settings"]["context"] == "bm25"
    assert report["mean"]["rouge1"] > 0
    items = [orjson.loads(line) for line in log_path_for(out).read_text().splitlines()]
    alice = next(r for r in items if r.get("id") == "alice")
    assert alice["prediction"] == "Alice follows the White Rabbit down a rabbit-hole."


def test_judged_metrics_need_a_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _data(tmp_path)
    assert run_cli("eval", "describe", "--data", data, "--metrics", "qa_f1") == 2
    assert "needs a model: give --llm SPEC" in capsys.readouterr().err
    assert run_cli("eval", "describe", "--data", data, "--method", "llm") == 2


def test_bad_data_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "book": "b.txt"}\n')
    assert run_cli("eval", "describe", "--data", bad) == 2
    err = capsys.readouterr().err
    assert "line 1 needs a string 'character'" in err and "Traceback" not in err
    assert run_cli("eval", "describe", "--data", bad, "--metrics", "bleu") == 2


def test_anonymized_run_renames_the_book_the_character_and_the_reference(tmp_path: Path) -> None:
    from fabula.anonymize import Anonymizer

    data = _data(tmp_path)
    plain = run_eval(get_task("describe")(data=data, method="oracle"), progress=False)
    task = get_task("describe")(data=data, method="oracle")
    out = tmp_path / "anon.json"
    report = run_eval(task, progress=False, anonymize=Anonymizer(seed=1), json_path=out)
    assert report.settings["anonymized"] == {"seed": 1}
    (copy,) = task.books.copies()
    alice = copy.mapping.names["Alice"]
    assert "Alice" not in copy.book.text[copy.book.body.start : copy.book.body.end]
    assert report.novels["alice_in_wonderland"]["unresolved"] == 0  # "Alice" found as its new name
    rows = [orjson.loads(line) for line in log_path_for(out).read_text().splitlines()[1:-1]]
    alice_row = next(r for r in rows if r["id"] == "alice")
    assert alice in alice_row["prediction"] and "Alice" not in alice_row["prediction"]
    # the oracle extracts against the renamed reference: about as well as on the original
    assert report.mean["rouge1"] == pytest.approx(plain.mean["rouge1"], abs=0.05)
