"""PDNC's pseudo-speakers (_narr, _group, _unknowable) are annotations, not characters: both evaluations
leave them out of scoring and say how many were left out (issue 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula.tasks import get_task, run_eval
from tests.conftest import run_cli
from tests.tasks.pdnc_fixture import dialogue_novel


def test_quotes_by_a_pseudo_speaker_are_not_scored(tmp_path: Path) -> None:
    dialogue_novel(tmp_path / "pdnc" / "Crowd")
    report = run_eval(get_task("quotes")(pdnc=tmp_path / "pdnc"), progress=False)
    scores = report.novels["Crowd"]
    # 24 quotes by Anna and Ben, all tagged; the crowd's 10 ("_group", 10 quotes: would be scored as a
    # speaker with >= 10 quotes) are left out, not counted wrong
    assert (scores["scored"], scores["pseudo_speaker_quotes"], scores["gold_quotes"]) == (24, 10, 34)
    assert scores["accuracy"] == 1.0
    assert scores["detection_recall"] == 1.0  # detection still counts every quote
    assert report.micro is not None and report.micro["pseudo_speaker_quotes"] == 10


def test_pseudo_speakers_are_not_missed_characters(tmp_path: Path) -> None:
    dialogue_novel(tmp_path / "pdnc" / "Crowd")
    scores = run_eval(get_task("characters")(pdnc=tmp_path / "pdnc"), progress=False).novels["Crowd"]
    assert (scores["gold_characters"], scores["pseudo_speakers"]) == (2, 1)
    assert scores["recall"] == 1.0 and scores["missed"] == []


@pytest.mark.parametrize("speaker", ["_narr", "_unknowable"])
def test_the_cli_says_how_many_were_left_out(
    tmp_path: Path, speaker: str, capsys: pytest.CaptureFixture[str]
) -> None:
    dialogue_novel(tmp_path / "pdnc" / "Crowd", crowd_speaker=speaker)
    assert run_cli("eval", "quotes", "--pdnc", tmp_path / "pdnc") == 0
    assert "10 quotes by pseudo-speakers" in capsys.readouterr().out
