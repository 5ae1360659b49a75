"""``fabula eval recognize`` on the harness: per-direction and per-level accuracy, anonymised runs."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from fabula.anonymize import Anonymizer
from fabula.errors import ConfigError
from fabula.recognition import Question, write_questions
from fabula.tasks import get_task, run_eval
from tests.conftest import run_cli
from tests.recognition.test_methods import CASES, NAMES


@pytest.fixture()
def data(story_path: Path, tmp_path: Path) -> Path:
    questions = [
        Question(f"d{i}", story_path, "desc2name", text, NAMES, answer, 1 + i % 2)
        for i, (text, answer) in enumerate(CASES)
    ] + [
        Question(f"n{i}", story_path, "name2desc", NAMES[i], tuple(t for t, _ in CASES), i, 1)
        for i in range(4)
    ]
    path = tmp_path / "questions.jsonl"
    write_questions(path, questions)
    return path


def test_report_has_accuracy_per_direction_and_level(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert run_cli("eval", "recognize", "--data", data, "--method", "bm25", "--json", out) == 0
    report = orjson.loads(out.read_bytes())
    assert report["mean"]["accuracy"] == 1.0 and report["items"] == 8
    assert set(report["groups"]["direction"]) == {"desc2name", "name2desc"}
    assert report["groups"]["level"]["2"]["items"] == 2 and report["novels"]["story"]["items"] == 8
    logged = [orjson.loads(line) for line in (tmp_path / "r.items.jsonl").read_text().splitlines()[1:]]
    assert {row["id"] for row in logged if "id" in row} >= {"d0", "n3"}


def test_anonymized_run_renames_books_and_questions(data: Path) -> None:
    task = get_task("recognize")(data=data, method="bm25")
    report = run_eval(task, progress=False, anonymize=Anonymizer(seed=1))
    assert report.mean["accuracy"] == 1.0 and report.settings["anonymized"] == {"seed": 1}
    item = task.items()[0]
    asked = task.shelf.question(item.payload)
    assert (
        "Thornton" not in " ".join(asked.options) and "Thornton" not in task.shelf.index(asked.book).book.text
    )
    assert asked.options[0].startswith("Mr. ")


def test_llm_methods_need_a_model_and_unknown_methods_are_refused(data: Path) -> None:
    with pytest.raises(ConfigError, match="needs a model"):
        run_eval(get_task("recognize")(data=data, method="llm"), progress=False)
    with pytest.raises(ConfigError, match="unknown recognition method"):
        get_task("recognize")(data=data, method="magic")
    with pytest.raises(ConfigError, match="needs a model"):
        run_eval(get_task("recognize")(data=data, method="query-only"), progress=False)
    with pytest.raises(ConfigError, match="use bow-tfidf"):
        get_task("recognize")(data=data, method="tfidf")


def test_anonymized_run_from_the_command_line(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    args = ("eval", "recognize", "--data", data, "--method", "bm25", "--json", out)
    assert run_cli(*args, "--anonymize", "--anonymize-seed", "4") == 0
    assert orjson.loads(out.read_bytes())["settings"]["anonymized"] == {"seed": 4}
    assert run_cli(*args, "--anonymize", "--anonymize-mode", "rep", "--no-resume") == 0
    assert orjson.loads(out.read_bytes())["settings"]["anonymized"] == {"seed": 0, "mode": "rep"}
