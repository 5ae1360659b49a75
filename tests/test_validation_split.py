"""The project's validation split of PDNC (every third of the 21 sorted novel folders is frozen), defined
once in `fabula.datasets` and used by scripts/eval_split.py whichever novels a report holds."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest

from fabula.datasets import PDNC_FROZEN, PDNC_NOVELS, PDNC_TUNE, find_pdnc_novels, pdnc_split

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def _eval_split() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eval_split", SCRIPTS / "eval_split.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_frozen_novels_are_every_third_of_the_sorted_21() -> None:
    assert list(PDNC_NOVELS) == sorted(PDNC_NOVELS) and len(PDNC_NOVELS) == 21
    assert sorted(PDNC_FROZEN) == [PDNC_NOVELS[i] for i in (2, 5, 8, 11, 14, 17, 20)]
    assert len(PDNC_TUNE) == 14 and not PDNC_TUNE & PDNC_FROZEN
    assert pdnc_split("Persuasion") == "frozen" and pdnc_split("Emma") == "tune"
    assert pdnc_split("Frankenstein") is None


def test_the_named_novels_are_the_shared_pdnc_folders(pdnc_dir: Path) -> None:
    assert tuple(folder.name for folder in find_pdnc_novels(pdnc_dir)) == PDNC_NOVELS


def _report(scores: dict[str, float | None]) -> dict[str, Any]:
    return {"mean": {"accuracy": None}, "novels": {n: {"accuracy": s} for n, s in scores.items()}}


def test_a_partial_report_gets_only_the_rows_it_can_fill_with_the_projects_split() -> None:
    # three tuning novels: "every third" among them would have called TheGambler frozen
    rows = dict(_eval_split().split_rows(_report({"Emma": 0.5, "DaisyMiller": 0.7, "TheGambler": 0.9})))
    assert list(rows) == ["all (3)", "tune (3 of 14)"]
    assert rows["tune (3 of 14)"]["accuracy"] == pytest.approx(0.7)


def test_a_report_with_both_halves_and_an_outside_novel() -> None:
    rows = dict(_eval_split().split_rows(_report({"Emma": 0.2, "Persuasion": 0.6, "Frankenstein": 1.0})))
    assert list(rows) == ["all (3)", "tune (1 of 14)", "frozen (1 of 7)"]
    assert rows["frozen (1 of 7)"]["accuracy"] == pytest.approx(0.6)
    assert rows["all (3)"]["accuracy"] == pytest.approx(0.6)


def test_a_full_report_prints_all_three_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "full.json"
    path.write_bytes(orjson.dumps(_report({n: (1.0 if n in PDNC_FROZEN else 0.0) for n in PDNC_NOVELS})))
    assert _eval_split().main([str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2:] == [
        "| full.json | all (21) | 33.3 |",
        "| full.json | tune (14) | 0.0 |",
        "| full.json | frozen (7) | 100.0 |",
    ]
