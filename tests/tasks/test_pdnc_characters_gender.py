"""The characters evaluation scores the genders of the matched gold characters (issue 28): in the JSON
report, the per-sample records and the printed table."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from fabula.tasks import get_task, run_eval
from tests.conftest import run_cli
from tests.tasks.pdnc_fixture import dialogue_novel


@pytest.mark.parametrize(("names", "expected"), [(("Anna", "Ben"), 1.0), (("Ben", "Anna"), 0.0)])
def test_gender_agreement_of_the_matched_cast(
    tmp_path: Path, names: tuple[str, str], expected: float
) -> None:
    # the fixture's list makes the first name a woman and the second a man; the names' usual genders
    # (no pronoun in the text) agree with it in the first order and contradict it in the second
    dialogue_novel(tmp_path / "pdnc" / "Pair", names=names)
    scores = run_eval(get_task("characters")(pdnc=tmp_path / "pdnc"), progress=False).novels["Pair"]
    assert scores["gendered"] == 2
    assert (scores["gender_accuracy"], scores["gender_wrong"], scores["gender_unknown"]) == (
        expected,
        1.0 - expected,
        0.0,
    )
    assert scores["gender_accuracy_quotes"] == expected  # 12 quotes each


def test_samples_and_table_show_genders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dialogue_novel(tmp_path / "pdnc" / "Pair", names=("Ben", "Anna"))
    out = tmp_path / "r.json"
    assert run_cli("eval", "characters", "--pdnc", tmp_path / "pdnc", "--json", out) == 0
    assert "gender_wrong" in capsys.readouterr().out
    report = orjson.loads(out.read_bytes())
    assert report["mean"]["gender_wrong"] == 1.0
    lines = [orjson.loads(line) for line in out.with_suffix(".samples.jsonl").read_bytes().splitlines()]
    ben = next(s for s in lines[1:] if s.get("gold_name") == "Ben")
    assert (ben["gold_gender"], ben["predicted_gender"], ben["quotes"]) == ("female", "male", 12)
