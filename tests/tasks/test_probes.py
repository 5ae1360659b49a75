"""Memorisation probes: corrupted-speaker passages, Min-K%, the statistics, and a run on a PDNC novel."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import pytest

from fabula.book import Character, book_from_text
from fabula.llm import get_llm
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.tasks import run_eval
from fabula.tasks.probes import (
    MemorisationProbes,
    compare_probe,
    corrupt_speaker,
    min_k_percent,
    replacement_names,
)
from tests.conftest import pdnc_novel_dir, run_cli

PASSAGE = (
    '"Come here, Lizzy," said Mr. Bennet. Elizabeth Bennet looked up; Jane Bennet did not. '
    "Mr. Darcy watched Elizabeth. Lizzyish words and Bennetton shops are not names of hers."
)


def test_csg_replaces_all_and_only_the_speaker_s_named_mentions() -> None:
    elizabeth = Character(
        id="eliz", name="Elizabeth Bennet", aliases={"Elizabeth Bennet": 3, "Lizzy": 2, "Miss Bennet": 1}
    )
    corrupted = corrupt_speaker(PASSAGE, elizabeth, "Harriet", "Howard")
    assert corrupted == (
        '"Come here, Harriet," said Mr. Howard. Harriet Howard looked up; Jane Howard did not. '
        "Mr. Darcy watched Harriet. Lizzyish words and Bennetton shops are not names of hers."
    )  # honorifics kept, other characters' given names kept, words that merely contain a name kept


def test_csg_renames_like_the_anonymiser_plurals_capitals_and_surname_roles() -> None:
    """One replacement code for CSG and `fabula.anonymize` changed the probe for the better: the speaker's
    family plural and ALL-CAPS forms were left for the model to read (a clue to the true speaker), and a
    bare surname ("Darcy") got the given-name replacement ("Mr. Harriet")."""
    darcy = Character(id="darcy", name="Mr. Darcy", aliases={"Fitzwilliam Darcy": 1, "Darcy": 4})
    corrupted = corrupt_speaker(
        "The Darcys dined. DARCY! Darcy's horse; Fitzwilliam Darcy bowed.", darcy, "Harriet", "Howard"
    )
    assert corrupted == "The Howards dined. HOWARD! Howard's horse; Harriet Howard bowed."


def test_replacement_surnames_are_surnames_absent_from_the_book() -> None:
    from importlib import resources

    listed = resources.files("fabula.anonymize").joinpath("surnames.txt").read_text("utf-8").split()
    book = book_from_text("Mary Abbott and John Acton met in the garden.\n")
    drawn = {replacement_names(book, "male", random.Random(seed))[1] for seed in range(30)}
    assert drawn <= set(listed) and not drawn & {"Abbott", "Acton"}


def test_replacement_names_match_the_gender_and_never_occur_in_the_book() -> None:
    book = book_from_text("Mary and John met Anna, Harriet and Oscar in the garden.\n")
    for seed in range(20):
        given, surname = replacement_names(book, "female", random.Random(seed))
        assert given not in book.text and surname not in book.text
        assert given not in {"Mary", "Anna", "Harriet"}
    from fabula.characters import clear_given_names

    assert replacement_names(book, "female", random.Random(1))[0] in clear_given_names("female")


def test_min_k_percent_by_hand() -> None:
    values = [-0.1, -2.0, -0.5, -4.0, -1.0, -0.2, -3.0, -0.3, -0.4, -0.6]
    assert min_k_percent(values, 20) == pytest.approx((-4.0 + -3.0) / 2)  # the 2 lowest of 10
    assert min_k_percent(values, 100) == pytest.approx(sum(values) / 10)
    assert min_k_percent([-1.5], 20) == -1.5  # at least one token
    with pytest.raises(ValueError):
        min_k_percent([], 20)


def test_compare_matches_scipy_on_fixed_inputs() -> None:
    stats = pytest.importorskip("scipy.stats")
    probe = {
        f"b{i}": v for i, v in enumerate([0.9, 0.1, 0.5, 0.7, 0.3, 0.8, 0.2, 0.6, 0.4, 0.05, 0.95, 0.15])
    }
    task = {f"b{i}": v for i, v in enumerate([0.8, 0.4, 0.6, 0.7, 0.5, 0.9, 0.3, 0.5, 0.45, 0.2, 0.85, 0.35])}
    result = compare_probe(probe, task, top=5)
    books = sorted(probe)
    rho, p = stats.spearmanr([probe[b] for b in books], [task[b] for b in books])
    assert result["spearman_rho"] == pytest.approx(rho) and result["spearman_p"] == pytest.approx(p)
    ranked = sorted(books, key=lambda b: probe[b])
    t, tp = stats.ttest_ind([task[b] for b in ranked[-5:]], [task[b] for b in ranked[:5]], equal_var=False)
    assert result["t_statistic"] == pytest.approx(t) and result["t_p"] == pytest.approx(tp)
    assert set(result["top_books"]) == {"b10", "b0", "b5", "b3", "b7"}
    assert not math.isnan(result["spearman_rho"])


def test_probes_on_a_pdnc_novel_against_the_scripted_server(tmp_path: Path) -> None:
    folder = pdnc_novel_dir("DaisyMiller")
    prompts: list[str] = []

    def answer(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        prompts.append(text)
        if "[MASK]" in text:
            return "Winterbourne</name>"
        return "Daisy Miller"

    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        task = MemorisationProbes(paths=[folder], probes="csg,no-context,name-cloze,min-k", samples=5)
        report = run_eval(task, llm=llm, json_path=tmp_path / "p.json", progress=False)
    scores = report.novels["DaisyMiller"]
    assert 0.0 <= scores["csg_true"] <= 1.0 and 0.0 <= scores["no_context"] <= 1.0
    assert scores["min_k"] < 0  # the scripted server's echo log-probabilities
    csg_prompts = [p for p in prompts if p.startswith("Read this passage")]
    assert len(csg_prompts) == 15  # 5 per quote type
    for prompt in csg_prompts:
        passage = prompt.split("<<<", 1)[1].split(">>>", 1)[0]
        assert len(re.findall(r"[.!?][\"”’']?\s", passage)) >= 5  # about ±10 sentences, not just the quote
    logs = [json.loads(line) for line in (tmp_path / "p.items.jsonl").read_text().splitlines()]
    replaced = [r for r in logs if r.get("groups", {}).get("probe") == "csg"]
    assert all(r["details"]["replacement"] for r in replaced)


def test_probe_compare_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("scipy")
    probe = {"novels": {f"n{i}": {"csg_true": i / 10} for i in range(10)}}
    task = {"novels": {f"n{i}": {"accuracy": 0.5 + i / 40} for i in range(10)}}
    (tmp_path / "p.json").write_text(json.dumps(probe))
    (tmp_path / "t.json").write_text(json.dumps(task))
    assert (
        run_cli("probe", "compare", tmp_path / "p.json", tmp_path / "t.json", "--json", tmp_path / "c.json")
        == 0
    )
    assert "Spearman rho 1.000" in capsys.readouterr().out
    assert json.loads((tmp_path / "c.json").read_text())["books"] == 10


def test_a_metric_that_is_not_a_fraction_is_printed_as_is() -> None:
    from fabula.tasks._evaluation import _pct

    assert _pct(0.285) == "28.5" and _pct(1) == "100.0" and _pct(-8.4319) == "-8.43" and _pct(None) == "–"
