"""The PDNC quote protocol end to end on one real novel, and the eval CLI's JSON layout."""

from __future__ import annotations

from pathlib import Path

import orjson

from fabula.cli import main
from fabula.tasks import get_task, run_eval
from tests.conftest import pdnc_novel_dir


def test_daisy_miller_gold_characters_above_floor() -> None:
    folder = pdnc_novel_dir("DaisyMiller")
    report = run_eval(
        get_task("quotes")(pdnc=folder.parent, characters="gold", novel=["DaisyMiller"]), progress=False
    )
    scores = report.novels["DaisyMiller"]
    assert scores["detection_f1"] >= 0.95
    assert scores["accuracy"] >= 0.88  # ranker trained on all 21 (this one included): 0.92; 7-fold CV: 0.91
    assert scores["explicit"] >= 0.95
    assert scores["scored"] > 400


def test_eval_cli_writes_shared_layout(tmp_path: Path) -> None:
    folder = pdnc_novel_dir("DaisyMiller")
    out = tmp_path / "eval.json"
    try:
        main(
            [
                "eval",
                "quotes",
                "--pdnc",
                str(folder.parent),
                "--novel",
                "DaisyMiller",
                "--characters",
                "predicted",
                "--json",
                str(out),
            ]
        )
    except SystemExit as exc:
        assert not exc.code
    data = orjson.loads(out.read_bytes())
    assert data["task"] == "quotes" and data["settings"]["characters"] == "predicted"
    for key in ("accuracy", "explicit", "anaphoric", "implicit", "detection_f1"):
        assert 0.0 <= data["mean"][key] <= 1.0
        assert key in data["micro"]
    assert data["novels"]["DaisyMiller"]["accuracy"] >= 0.70
