"""Memorisation probes as Michel et al. (NAACL 2025) run them: corrupted-speaker passages and exact-alias
scoring, name cloze, Min-K% on verbalised annotation rows, the statistics, and a run on a PDNC novel."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
from pathlib import Path

import pytest

from fabula.book import Character, book_from_text
from fabula.datasets import PDNC_NOVELS
from fabula.llm import get_llm
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.tasks import run_eval
from fabula.tasks.probes import (
    CsgItem,
    MemorisationProbes,
    build_csg,
    compare_probe,
    contains_name,
    corrupt_speaker,
    load_probe_book,
    min_k_percent,
    paired_ttest,
    parse_tagged,
    propensity_match,
    replacement_names,
    score_csg,
    speaker_names,
    verbalize_rows,
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


def test_replacement_names_are_the_paper_s_when_absent_from_the_book() -> None:
    book = book_from_text("Mary and John met Anna, Harriet and Oscar in the garden.\n")
    drawn = {replacement_names(book, "female", random.Random(seed)) for seed in range(30)}
    assert {g for g, _ in drawn} == {"Emma", "Elizabeth"}
    assert {s for _, s in drawn} == {"Stone", "Walker", "Smith"}
    males = {replacement_names(book, "male", random.Random(s))[0] for s in range(30)}
    assert males == {"Henry", "Joseph"}
    taken = book_from_text("Emma Stone met Elizabeth Walker and Mr Smith.\n")
    given, surname = replacement_names(taken, "female", random.Random(1))  # none free: fabula's lists
    assert given not in taken.text and surname not in taken.text


def test_min_k_percent_by_hand() -> None:
    # ten scored tokens after a first one: k = int(20 % of 11) = 2, int(30 % of 11) = 3, int(10 % of 11) = 1
    values = [-0.1, -2.0, -0.5, -4.0, -1.0, -0.2, -3.0, -0.3, -0.4, -0.6]
    assert min_k_percent(values, 20) == pytest.approx((-4.0 + -3.0) / 2)
    assert min_k_percent(values, 30) == pytest.approx((-4.0 + -3.0 + -2.0) / 3)
    assert min_k_percent(values, 10) == pytest.approx(-4.0)
    assert min_k_percent([-1.5], 20) == -1.5  # at least one token
    with pytest.raises(ValueError):
        min_k_percent([], 20)


def test_annotation_rows_are_verbalised_as_figure_4() -> None:
    rows = verbalize_rows(pdnc_novel_dir("AlicesAdventuresInWonderland") / "quotation_info.csv")
    assert rows[0].startswith("quoteID: Q0; quoteText: ")
    assert "; quoteType: " in rows[0] and "; mentionEntitiesList: " in rows[0] and not rows[0].endswith("; ")


def test_csg_scores_exact_aliases_only() -> None:
    item = CsgItem(
        "anaphoric",
        "passage",
        "quote",
        ("Sir Walter Elliot", "Walter Elliot", "Sir Walter", "Walter"),
        ("Sir Joseph Walker", "Joseph Walker", "Sir Joseph", "Joseph"),
        "Joseph Walker",
    )
    assert score_csg("Sir Walter", item) == (1.0, 0.0)
    assert score_csg("Joseph", item) == (0.0, 1.0)
    # a shared word is not the speaker: another Elliot, a half name, a different case, nothing
    for answer in ("Elizabeth Elliot", "Elliot", "sir walter", "Walter Elliot.", "Walker", None):
        assert score_csg(answer, item) == (0.0, 0.0)
    assert parse_tagged("<speaker>[Sir Walter]<\\speaker>", "speaker") == "Sir Walter"
    assert parse_tagged("<Speaker>Anne</Speaker>", "speaker") == "Anne"
    assert parse_tagged("The speaker: Anne", "speaker") == "Anne" and parse_tagged("Anne", "speaker") is None


@pytest.mark.slow
def test_csg_targets_are_the_quotes_own_words_and_passages_hide_the_true_speaker() -> None:
    """Over all 21 shared novels: every CSG target quote is the quote's parts and nothing between them,
    and no corrupted passage holds a name of the true speaker (and each still names the renamed one)."""
    checked = 0
    for name in PDNC_NOVELS:
        probe_book = load_probe_book(pdnc_novel_dir(name))
        book = probe_book.book
        rng = random.Random(0)
        for quote in probe_book.quotes:
            if quote.minor:
                continue
            given, surname = replacement_names(book, quote.speaker.gender, rng)
            item = build_csg(book, quote, given, surname)
            if item is None:
                continue
            checked += 1
            parts = [book.text[s:e] for s, e in quote.spans]
            assert item.target == corrupt_speaker(" ".join(parts), quote.speaker, given, surname)
            for (_, e1), (s2, _) in itertools.pairwise(quote.spans):
                between = book.text[e1:s2].strip(" \"'\n,")
                if len(between) > 3 and not any(between in p for p in parts):  # e.g. "I said." in a quote
                    assert between not in item.target, (name, between)
            assert not contains_name(item.passage, speaker_names(quote.speaker)), (name, quote.spans)
            assert contains_name(item.passage, [given, surname])
            assert (item.type == "explicit") == ("[MASK]" in item.passage)
    assert checked > 3000


def test_statistics_match_scipy() -> None:
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
    t, tp = stats.ttest_ind([task[b] for b in ranked[-5:]], [task[b] for b in ranked[:5]])  # Student's
    assert result["t_statistic"] == pytest.approx(t) and result["t_p"] == pytest.approx(tp)
    assert set(result["top_books"]) == {"b10", "b0", "b5", "b3", "b7"}
    assert not math.isnan(result["spearman_rho"])
    first, second = [-3.1, -2.9, -3.4, -2.7, -3.0, -3.3], [-3.0, -3.1, -3.2, -2.9, -2.8, -3.5]
    paired = paired_ttest(first, second)
    t, p = stats.ttest_rel(first, second)
    assert paired["t_statistic"] == pytest.approx(t) and paired["p"] == pytest.approx(p)


def test_propensity_matching_pairs_each_treated_novel_with_the_closest_control() -> None:
    covariates = {
        "t1": [0.9, 0.1],
        "t2": [0.2, 0.8],
        "c1": [0.85, 0.15],
        "c2": [0.25, 0.75],
        "c3": [0.5, 0.5],
    }
    matched = propensity_match(covariates, {"t1", "t2"})
    assert set(matched) == {"t1", "t2"} and set(matched.values()) <= {"c1", "c2", "c3"}


def test_probes_on_a_pdnc_novel_against_the_scripted_server(tmp_path: Path) -> None:
    folder = pdnc_novel_dir("DaisyMiller")
    prompts: list[str] = []

    def answer(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        prompts.append(text)
        if "<name>" in text:
            return "<name>Winterbourne</name>"
        return "<speaker>Daisy Miller</speaker>"

    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        task = MemorisationProbes(paths=[folder], probes="csg,no-context,name-cloze,min-k", samples=5)
        report = run_eval(task, llm=llm, json_path=tmp_path / "p.json", progress=False)
    scores = report.novels["DaisyMiller"]
    for key in ("csg_mem", "csg_reason", "csg_mem_cloze", "name_cloze", "no_context"):
        assert 0.0 <= scores[key] <= 1.0, key
    assert all(scores[f"min_k_{k}"] < 0 for k in (10, 20, 30))  # the scripted server's echo log-probabilities
    opening = "You will be given a passage of the book Daisy Miller written by Henry James"
    csg = [p for p in prompts if p.startswith(opening)]
    assert len(csg) == 15  # 5 per quote type
    cloze = [p for p in csg if "Find the proper name that fills the [MASK] token" in p]
    assert len(cloze) == 5 and all("[MASK]" in p.split("Target quote:")[0] for p in cloze)
    for prompt in csg:
        passage = prompt.split("\nPassage:\n", 1)[1].split("\n\nTarget quote:\n", 1)[0]
        assert len(re.findall(r"[.!?][\"”’']?\s", passage)) >= 5  # about ±10 sentences, not just the quote
    assert sum("Output: <name>Ponyboy</name>" in p for p in prompts) == 5
    logs = [json.loads(line) for line in (tmp_path / "p.items.jsonl").read_text().splitlines()]
    replaced = [r for r in logs if r.get("groups", {}).get("probe") == "csg"]
    assert len(replaced) == 15 and all(r["details"]["replacement"] for r in replaced)
    assert all(r["details"]["prompt"] in prompts and r["details"]["gold"]["memorisation"] for r in replaced)
    cloze_logs = [r for r in logs if r.get("groups", {}).get("probe") == "name-cloze"]
    assert len(cloze_logs) == 5 and all(
        r["details"]["prompt"] in prompts and r["details"]["gold"] for r in cloze_logs
    )


def test_probe_compare_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("scipy")
    probe = {"novels": {f"n{i}": {"csg_mem": i / 10} for i in range(10)}}
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


def test_min_k_through_the_server_equals_a_hand_computation(tmp_path: Path) -> None:
    """Min-K% on the verbalised rows of a PDNC folder, with log-probabilities scripted by the loopback
    server: the report's value is the mean over the sampled rows of the mean of each row's k % lowest."""
    folder = pdnc_novel_dir("DaisyMiller")

    def logprobs(words: list[str]) -> list[float]:
        return [-float((len(w) * 7 + i) % 11) - 0.25 for i, w in enumerate(words[1:])]

    with ScriptedOpenAIServer(logprobs=logprobs) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        task = MemorisationProbes(paths=[folder], probes="min-k", seed=3)
        report = run_eval(task, llm=llm, json_path=tmp_path / "m.json", progress=False)
        rows = verbalize_rows(folder / "quotation_info.csv")
        order = random.Random("3:DaisyMiller").sample(range(len(rows)), len(rows))
        kept = [rows[i] for i in order if 16 < llm.count_tokens(rows[i]) + 1 < 256]
        kept = kept[: int(len(kept) * 0.2)]
        assert len(kept) > 50
        expected = {}
        for k in (10, 20, 30):
            per_row = []
            for row in kept:
                values = sorted(logprobs(row.split()))
                count = max(1, int(k / 100 * (len(values) + 1)))
                per_row.append(sum(values[:count]) / count)
            expected[k] = sum(per_row) / len(per_row)
    scores = report.novels["DaisyMiller"]
    for k in (10, 20, 30):
        assert scores[f"min_k_{k}"] == pytest.approx(expected[k])
