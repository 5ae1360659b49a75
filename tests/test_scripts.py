"""Every script in scripts/ runs: each on a tiny input (handmade PDNC-style novels, a toy report, a few
census lines), in a subprocess with this checkout's sources first on the path. A script that cannot run
without an optional extra is skipped with the reason."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import ROOT
from tests.tasks.pdnc_fixture import dialogue_novel

SCRIPTS = ROOT / "scripts"
BENCHMARKS = ROOT / "benchmarks"  # the benchmarks written from 2026-11-26 on have a smoke test here too
pytestmark = pytest.mark.slow  # one subprocess per script, several read novels


def run(script: str, *args: str | Path, cwd: Path = ROOT, folder: Path = SCRIPTS) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, str(folder / script), *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{script}: {done.stderr[-2000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def pdnc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pdnc")
    dialogue_novel(root / "A", names=("Anna", "Ben"))
    dialogue_novel(root / "B", names=("Carl", "Dora"))
    return root


def test_every_script_has_a_smoke_test() -> None:
    tested = {
        name.removeprefix("test_").replace("_runs", "") for name in globals() if name.startswith("test_")
    }
    assert {p.stem for p in SCRIPTS.glob("*.py")} <= tested


def test_bench_quote_styles_runs(pdnc: Path) -> None:
    """One row per style, the converters taken from scripts/format_variants.py; the curly double copy
    scores as the shipped one (its marks pair within each paragraph)."""
    out = run("bench_quote_styles.py", "--pdnc", pdnc, "--novel", "A", folder=BENCHMARKS)
    rows = {
        line.split(" | ")[1]: line.split(" | ")[2:] for line in out.splitlines() if line.startswith("| A |")
    }
    assert set(rows) == {"straight double (as shipped)", "curly double", "straight single", "curly single"}
    assert rows["curly double"] == rows["straight double (as shipped)"]


def test_bench_attribution_runs(pdnc: Path) -> None:
    """Both collector settings; one row per novel."""
    out = run("bench_attribution.py", "--pdnc", pdnc, "--novel", "A", "--repeat", "1", folder=BENCHMARKS)
    assert "CPU median s" in out and "\nA " in out
    out = run(
        "bench_attribution.py",
        "--pdnc",
        pdnc,
        "--novel",
        "B",
        "--repeat",
        "1",
        "--default-gc",
        folder=BENCHMARKS,
    )
    assert "\nB " in out


def test_bench_serve_checkpoint_runs(pdnc: Path) -> None:
    """The plain and the reused analyses agree (the script asserts it) and each position has a row."""
    book = pdnc / "A" / "novel_text.txt"
    out = run(
        "bench_serve_checkpoint.py", "--book", book, "--rounds", "1", "--at", "40,90", folder=BENCHMARKS
    )
    assert "first screen with the layers made" in out and "| 40 % |" in out and "| 90 % |" in out


def test_character_genders_runs(pdnc: Path) -> None:
    assert "right" in run("character_genders.py", pdnc)


def test_diagnose_characters_runs(pdnc: Path) -> None:
    assert "=== A" in run("diagnose_characters.py", pdnc)


def test_diagnose_quotes_runs(pdnc: Path) -> None:
    run("diagnose_quotes.py", pdnc, "--type", "all", "--limit", "2")


def test_train_quote_ranker_runs(pdnc: Path, tmp_path: Path) -> None:
    run(
        "train_quote_ranker.py",
        pdnc,
        "--folds",
        "2",
        "--no-write",
        "--json",
        tmp_path / "cv.json",
        "--hide-tags",
        "0.5",
        "--train-hidden",
        "0.5",
        "--sparse-gate",
        "--gate-families",
        "sieve",
        "tag anchors",
        "--copy-weight",
        "0.5",
        "--plain-fixed",
        "--train-predicted",
        "0.5",
    )
    scores = json.loads((tmp_path / "cv.json").read_text())
    assert set(scores["gold hidden"]) == {"A", "B"}  # each novel scored with half its tags hidden too


def test_hide_tags_blanks_the_tags_only(pdnc: Path) -> None:
    """The sparse-tag simulation: every speech tag blanked, quotes and paragraphs where they were."""
    from scripts.train_quote_ranker import hide_tags

    from fabula.datasets import load_pdnc_novel

    novel = load_pdnc_novel(pdnc / "A")
    hidden = hide_tags(novel, 1.0)
    before, after = novel.book.text, hidden.book.text
    assert "said Anna" in before and "said Anna" not in after and "said Ben" not in after
    assert len(after) == len(before)
    assert all(after[s.start : s.end] == before[s.start : s.end] for q in novel.quotes for s in q.spans)
    assert len(hidden.book.paragraphs.starts) == len(novel.book.paragraphs.starts)
    assert after.endswith("Anna and Ben walked home together, and Anna smiled at Ben.\n")  # narration kept
    assert hide_tags(novel, 0.0).book.text == before


def test_train_quote_ranker_writes_the_hidden_tag_copies(pdnc: Path, tmp_path: Path) -> None:
    """--write-hidden: the 'gold hidden' mode's copies as PDNC folders the eval commands read."""
    from scripts.train_quote_ranker import hide_tags

    from fabula.datasets import load_pdnc_novel

    out = run("train_quote_ranker.py", pdnc, "--hide-tags", "0.5", "--write-hidden", tmp_path / "hidden")
    assert "wrote 2 novels" in out
    for name in ("A", "B"):
        copy = load_pdnc_novel(tmp_path / "hidden" / name)  # its annotations hold on the copy
        expected = hide_tags(load_pdnc_novel(pdnc / name), 0.5).book.text
        assert copy.book.text == expected != load_pdnc_novel(pdnc / name).book.text
        assert len(copy.quotes) == len(load_pdnc_novel(pdnc / name).quotes)


def test_compare_eval_reports_runs(pdnc: Path, tmp_path: Path) -> None:
    from fabula.tasks import get_task, run_eval

    report = tmp_path / "r.json"
    run_eval(get_task("quotes")(pdnc=pdnc), json_path=report, progress=False)
    run("compare_eval_reports.py", report, report)


def test_eval_split_runs(pdnc: Path, tmp_path: Path) -> None:
    from fabula.tasks import get_task, run_eval

    report = tmp_path / "r.json"
    run_eval(get_task("characters")(pdnc=pdnc), json_path=report, progress=False)
    assert "all" in run("eval_split.py", report)
    two = run("eval_split.py", report, "--digits", "2")
    cells = [c.strip() for c in two.splitlines()[2].split("|")[3:-1]]
    assert cells and all(c == "–" or len(c.split(".")[1]) == 2 for c in cells)


def test_make_given_names_runs(tmp_path: Path) -> None:
    (tmp_path / "dist.male.first").write_text("JAMES 3.318 3.318 1\nLESLIE 0.010 90.0 500\n", "ascii")
    (tmp_path / "dist.female.first").write_text("MARY 2.629 2.629 1\nLESLIE 0.010 90.0 500\n", "ascii")
    out = tmp_path / "given_names.tsv"
    run("make_given_names.py", tmp_path, out)
    rows = [line.split("\t") for line in out.read_text("utf-8").splitlines() if not line.startswith("#")]
    assert ["James", "male", "999"] in rows and ["Mary", "female", "999"] in rows
    assert not any(r[0] == "Leslie" for r in rows)


def test_recap_judge_runs(tmp_path: Path) -> None:
    out = tmp_path / "judged.jsonl"
    run("recap_judge.py", out, "X-1", "3=the same scene")
    assert json.loads(out.read_text("utf-8")) == {"id": "X-1", "related": {"3": "the same scene"}}


def test_recap_gold_runs(tmp_path: Path) -> None:
    for name in ("PP.candidates.jsonl", "judgements.jsonl"):
        shutil.copy(ROOT / "data" / "recap" / name, tmp_path / name)
    run("recap_gold.py", tmp_path)
    gold = [json.loads(line) for line in (tmp_path / "gold.jsonl").read_text("utf-8").splitlines()]
    assert gold and all(isinstance(r["gold"], list) for r in gold)


def test_recap_annotate_runs() -> None:
    first = json.loads((ROOT / "data" / "recap" / "PP.candidates.jsonl").read_text("utf-8").splitlines()[0])
    book = ROOT / "data" / "recap" / first["book"]
    if not book.is_file():
        pytest.skip(f"shared data not found at {book}")
    assert "=== TARGET" in run("recap_annotate.py", "show", first["id"], "0:3")


def small_gold(tmp_path: Path) -> tuple[Path, int, int]:
    """One target per novel and split of the recap gold set (book paths made absolute), and how many of
    them are tuning and frozen targets."""
    gold = ROOT / "data" / "recap" / "gold.jsonl"
    records = [json.loads(line) for line in gold.read_text("utf-8").splitlines()]
    picked: dict[tuple[str, str], dict[str, object]] = {}
    for record in records:
        picked.setdefault((record["book"], record["split"]), record)
    if not all((gold.parent / str(r["book"])).is_file() for r in picked.values()):
        pytest.skip("shared data not found beside the repository")
    data = tmp_path / "gold.jsonl"
    data.write_text(
        "".join(
            json.dumps({**r, "book": str((gold.parent / str(r["book"])).resolve())}) + "\n"
            for r in picked.values()
        )
    )
    tuning = sum(r["split"] == "tuning" for r in picked.values())
    return data, tuning, len(picked) - tuning


def test_recap_weights_runs(tmp_path: Path) -> None:
    """Every section prints."""
    data, tuning, frozen = small_gold(tmp_path)
    out = run("recap_weights.py", "--data", data)
    assert f"{tuning + frozen} targets: {tuning} tuning, {frozen} frozen" in out
    assert "grid: leave-one-novel-out pooled" in out
    assert "logistic: leave-one-novel-out pooled" in out
    assert "shipped - closest-5 on frozen:" in out and "paired bootstrap 95 %" in out


def test_recap_mmr_runs(tmp_path: Path) -> None:
    """Every section prints, and --tuning-only stops before the first frozen score."""
    data, tuning, frozen = small_gold(tmp_path)
    out = run("recap_mmr.py", "--data", data)
    assert f"{tuning + frozen} targets: {tuning} tuning, {frozen} frozen" in out
    assert "leave one tuning novel out" in out and "leave one novel out (all" in out
    assert "frozen, minus closest-5:" in out and "paired bootstrap 95 %" in out
    out = run("recap_mmr.py", "--data", data, "--tuning-only")
    assert "leave one tuning novel out" in out and "frozen" not in out.split("\n", 1)[1]


def test_recap_learned_runs(tmp_path: Path) -> None:
    """Every section prints, --tuning-only stops before the first frozen score, and the feature cache is
    reused."""
    data, tuning, frozen = small_gold(tmp_path)
    features = tmp_path / "features.pkl"
    out = run("recap_learned.py", "--data", data, "--tuning-only", "--features", features)
    assert f"{tuning + frozen} targets: {tuning} tuning, {frozen} frozen" in out
    assert "chosen on the tuning targets:" in out and "frozen" not in out.split("\n", 1)[1]
    assert features.is_file()
    out = run("recap_learned.py", "--data", data, "--features", features)
    assert "leave one novel out (all" in out
    assert "frozen, minus closest-5:" in out and "paired bootstrap 95 %" in out


def test_recap_prf_runs(tmp_path: Path) -> None:
    """Every section prints, and --tuning-only reads no frozen target."""
    data, tuning, frozen = small_gold(tmp_path)
    out = run("recap_prf.py", "--data", data, "--tuning-only")
    assert f"{tuning} targets: {tuning} tuning, 0 frozen" in out
    assert "chosen on the tuning targets:" in out and "frozen:" not in out
    out = run("recap_prf.py", "--data", data)
    assert f"{tuning + frozen} targets: {tuning} tuning, {frozen} frozen" in out
    assert "frozen, minus closest-5:" in out and "paired bootstrap 95 %" in out
    assert "leave one novel out (all targets):" in out


def test_cluster_evidence_runs(pdnc: Path) -> None:
    out = run("cluster_evidence.py", pdnc, "A", "B")
    assert "=== A" in out and "=== B" in out


def test_discovery_passes_runs(pdnc: Path) -> None:
    out = run("discovery_passes.py", pdnc, "--split", "all")
    assert "recall" in out


def test_michel_fixture_runs(tmp_path: Path) -> None:
    released = ROOT.parent / "shared" / "papers" / "released" / "quote-attribution-llama3"
    if not released.is_dir() or not (ROOT.parent / "shared" / "data" / "pdnc" / "DaisyMiller").is_dir():
        pytest.skip(f"the authors' released code or PDNC is not at {released.parent.parent}")
    out = tmp_path / "fixture.json"
    run("michel_fixture.py", "DaisyMiller", out)
    assert json.loads(out.read_text("utf-8"))["chunks"]


def test_distill_static_model_runs() -> None:
    """Its imports and arguments (distilling itself needs model2vec[distill], torch and a local model:
    minutes and hundreds of MB, so not here)."""
    assert "--pca-dims" in run("distill_static_model.py", "--help")


def test_gold_names_in_code_runs(tmp_path: Path) -> None:
    novel = tmp_path / "pdnc" / "X"
    novel.mkdir(parents=True)
    (novel / "character_info.csv").write_text(
        "Character ID,Main Name,Aliases,Gender,Category\n"
        "0,Prudence Quarrie,\"{'Miss Quarrie', 'Prudence'}\",F,major\n",
        encoding="utf-8",
    )
    code = tmp_path / "code.py"
    code.write_text(
        '"""Rules for Miss Quarrie."""\n\nNAMES = ["Prudence Quarrie"]  # a list, not a docstring\n'
        "# a comment naming Prudence\n",
        encoding="utf-8",
    )
    out = run("gold_names_in_code.py", tmp_path / "pdnc", code)
    assert f"{code}:1: Miss Quarrie" in out and f"{code}:4: Prudence" in out
    assert ":3:" not in out  # string data in code is not looked at


def test_personhood_loo_runs(pdnc: Path) -> None:
    out = run("personhood_loo.py", pdnc)
    assert "clusters in 2 novels; leave-one-novel-out" in out and "non-people among the 20" in out


def test_nonpersons_top20_runs(pdnc: Path) -> None:
    # each fixture novel's cast holds its gold names ("said Anna") and a speaking role its list leaves out
    out = run("nonpersons_top20.py", pdnc, "--show")
    assert "A: the crowd (rank 3, 10 mentions): unlabelled" in out
    assert "| other | 40 | 2 | 0 | 0 | 2 |" in out
    swept = run("nonpersons_top20.py", pdnc, "--sweep", "0,2")
    assert "PERSON_EVIDENCE_MIN = 2;" in swept and "leave-one-novel-out (values chosen: {2: 2})" in swept


def test_display_names_runs(pdnc: Path) -> None:
    # the fixture's people are named one way only ("said Anna"): every policy shows the main name
    out = run("display_names.py", pdnc)
    assert "| current | other | 4 | 100.0 | 100.0 |" in out and "| most-frequent | other | 4 |" in out


def test_richer_gold_lists_runs(pdnc: Path) -> None:
    # the fixture's tags ("said Anna") are the gold names already: both lists score the same
    out = run("richer_gold_lists.py", pdnc)
    assert "| other | 2 | " in out and "richer lists: recall / merge / split" in out


def test_gold_list_variants_runs(pdnc: Path) -> None:
    # the fixture's novels are no PDNC novel: scored as tuning ones; every rewrite keeps the speakers' ids
    out = run("gold_list_variants.py", pdnc, "--per-novel", "--show")
    rows = [line for line in out.splitlines() if line.startswith("| ") and "/" in line and "list" not in line]
    assert [r.split(" | ")[0].strip("| ") for r in rows] == [
        "as-written", "richer", "main-only", "main-plus-one", "unmarked", "ungendered", "swapped", "untitled",
        "titled", "qualified", "placeholders", "family",
    ]  # fmt: skip
    assert all(r.split(" | ")[2] == "-" and r.split(" | ")[3] == "2" for r in rows)  # no frozen novel
    assert "   as-written A (tune): " in out
    one = run("gold_list_variants.py", pdnc, "--variant", "qualified", "--novel", "B")
    assert "| qualified | " in one and " | 1 | " in one


def test_self_named_quotes_runs(pdnc: Path) -> None:
    # the fixture's novels are tuning ones, and their tags name the speakers outside the quotes
    out = run("self_named_quotes.py", pdnc)
    assert "| split | names its speaker: quotes / speaker wrong |" in out
    assert "| tune | 0 / - | " in out and "| frozen |" not in out


def test_speech_verb_holdout_runs(pdnc: Path) -> None:
    # the fixture's novels are scored as tuning ones: a row per arm, the means over the two folds last
    out = run("speech_verb_holdout.py", pdnc, "--folds", "2", "--novel", "A")
    rows = [line for line in out.splitlines() if line.startswith("| ") and "lexicon |" not in line]
    assert len(rows) == 2 + 2 + 2 * 2 + 2
    assert all(r.split(" | ")[2] == "-" for r in rows)  # no frozen novel
    assert rows[-1].startswith("| **mean over the folds, learned (3 uses)** | ")


def test_sweep_discovery_constant_runs(pdnc: Path) -> None:
    out = run("sweep_discovery_constant.py", pdnc, "CONFLICT_SHARE", "0.05,0.1")
    assert "leave-one-novel-out" in out and "| 0.1 |" in out
    out = run("sweep_discovery_constant.py", pdnc, "COUPLE_MIN", "2,3")  # a constant of the joins
    assert "COUPLE_MIN (now 2.0)" in out and "| 3.0 |" in out


def test_quote_error_kinds_runs(pdnc: Path, tmp_path: Path) -> None:
    # a two-person scene (Anna "0", Ben "1") of four quotes, the third given to the other one
    rows = [
        {"item": "A", "scored": True, "type": "explicit", "span": [i * 50, i * 50 + 30], "right": i != 2,
         "gold_speaker_id": "01"[i % 2], "predicted_speaker_id": "01"[(i + (i == 2)) % 2]}
        for i in range(4)
    ]  # fmt: skip
    samples = tmp_path / "q.samples.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = run("quote_error_kinds.py", pdnc, samples, "--split", "all")
    assert "| two-person | 4 | 1 | 25.0 % |" in out
    assert "| ... of which flips | | 1 |" in out
    assert "| kinship tag | 0 | 0 |" in out and "| given to a neutral entry | 0 | 0 |" in out


LLM_CLIENT = """
import sys
from fabula.llm import GenerateOptions, get_llm
llm = get_llm(sys.argv[1], cache=None)
for prompt in sys.argv[2:]:
    generation = llm.generate(prompt, GenerateOptions(max_tokens=8, temperature=0.0))
    print(repr(generation.text), generation.finish_reason, generation.error is not None)
"""


def test_llm_batch_runs(tmp_path: Path) -> None:
    """record writes each distinct request once; replay answers them as generated (text, finish reason,
    a generated context error) and counts a request that was never generated, with a non-zero exit."""
    client = tmp_path / "client.py"
    client.write_text(LLM_CLIENT)
    requests = tmp_path / "requests.jsonl"
    command = ["--", sys.executable, client, "{llm}"]
    out = run("llm_batch.py", "record", requests, *command, "first", "second", "first")
    assert "2 new requests (2 in" in out and out.count("'(recorded)' stop False") == 3
    rows = [json.loads(line) for line in requests.read_text().splitlines()]
    assert [row["messages"][-1]["content"] for row in rows] == ["first", "second"]
    assert all(row["max_tokens"] == 8 and row["temperature"] == 0.0 for row in rows)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        json.dumps(
            {
                "key": rows[0]["key"],
                "text": "one",
                "prompt_tokens": 3,
                "completion_tokens": 1,
                "finish_reason": "stop",
            }
        )
        + "\n"
        + json.dumps(
            {"key": rows[1]["key"], "error": "Requested tokens (9000) exceed context window of 8192"}
        )
        + "\n"
    )
    out = run("llm_batch.py", "replay", answers, *command, "first", "second")
    assert "'one' stop False" in out and "1 answered, 1 errors as generated, 0 not generated" in out
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "llm_batch.py"), "replay", str(answers), *map(str, command), "third"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0 and "0 answered, 0 errors as generated, 1 not generated" in done.stdout


def test_set_aside_loo_runs(pdnc: Path) -> None:
    out = run("set_aside_loo.py", pdnc, "--values", "0,1", "--show")
    assert (
        "| 1, other | " in out and "leave-one-novel-out (values chosen: {" in out and "| LOO, other |" in out
    )


def test_fit_weighs_groups_and_keeps_fixed_weights() -> None:
    """`fit`'s group weights count a group as that many copies of it; `fit_model` with ``plain_fixed``
    keeps the plain weights of the novels as written alone and fits only the gated ones it names."""
    from scripts.train_quote_ranker import GateFit, fit, fit_model

    rng = np.random.default_rng(5)
    groups = [(rng.normal(size=(int(rng.integers(2, 6)), 4)), 0) for _ in range(120)]
    groups = [(f, int(rng.integers(len(f)))) for f, _ in groups]
    doubled = fit(groups + groups[:40], 0.3)
    weighed = fit(groups, 0.3, np.concatenate([np.full(40, 2.0), np.ones(80)]))
    np.testing.assert_allclose(weighed, doubled, atol=1e-4)
    assert not np.allclose(weighed, fit(groups, 0.3), atol=1e-3)
    rows = [(np.hstack([f, rng.uniform(0, 1) * f]), y) for f, y in groups]
    gated = np.array([1.0, 0.0, 1.0, 1.0])
    weights = fit_model(rows[:80], rows[80:], 0.3, GateFit(gated, 0.5, None, plain_fixed=True))
    np.testing.assert_array_equal(weights[:4], fit([(f[:, :4], y) for f, y in rows[:80]], 0.3))
    assert weights[5] == 0.0 and np.all(weights[[4, 6, 7]] != 0.0)


def test_format_variants_runs(pdnc: Path, tmp_path: Path) -> None:
    """Every variant keeps each novel's length (PDNC's offsets hold) and links its annotations."""
    variants = ("nbsp", "ebook", "single", "modern", "present", "dash", "unmarked")
    out = run("format_variants.py", pdnc, tmp_path, *[f"--variant={v}" for v in variants])
    assert "ebook: 2 novels" in out
    for variant in variants:
        for novel in ("A", "B"):
            copy = (tmp_path / variant / novel / "novel_text.txt").read_text(encoding="utf-8")
            assert len(copy) == len((pdnc / novel / "novel_text.txt").read_text(encoding="utf-8"))
            assert (tmp_path / variant / novel / "quotation_info.csv").is_file()
    assert "‘" in (tmp_path / "single" / "A" / "novel_text.txt").read_text(encoding="utf-8")
    modern = (tmp_path / "modern" / "A" / "novel_text.txt").read_text(encoding="utf-8")
    assert "Anna says" in modern and '" said Anna' not in modern
    present = (tmp_path / "present" / "A" / "novel_text.txt").read_text(encoding="utf-8")
    assert "Anna says" in present and "walks  home" in present and "Anna smiles at" in present
    assert "walked" in modern
    dashed = (tmp_path / "dash" / "A" / "novel_text.txt").read_text(encoding="utf-8")
    assert "—Good morning number 0,  said Anna." in dashed and '"' not in dashed
    assert " Good morning number 0,  said Anna." in (
        tmp_path / "unmarked" / "A" / "novel_text.txt"
    ).read_text(encoding="utf-8")


def test_fit_with_several_right_candidates() -> None:
    """A group with several right candidates (a discovered cast that splits the speaker) is fitted by
    their summed probability: one right candidate as a 1-tuple is the plain label, a group whose every
    candidate is right adds nothing, and two right ones pull the weights toward both."""
    from scripts.train_quote_ranker import fit

    rng = np.random.default_rng(7)
    groups = [(rng.normal(size=(int(rng.integers(2, 6)), 3)), 0) for _ in range(150)]
    groups = [(f, int(rng.integers(len(f)))) for f, _ in groups]
    plain = fit(groups, 0.3)
    np.testing.assert_array_equal(fit([(f, (y,)) for f, y in groups], 0.3), plain)
    np.testing.assert_allclose(
        fit(groups + [(f, tuple(range(len(f)))) for f, _ in groups[:20]], 0.3), plain, atol=1e-6
    )
    # the first feature marks the right candidates: either of two marked ones, never the unmarked one
    pair = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    assert fit([(pair, (0, 1))] * 10, 0.3)[0] > 1.0
    assert fit([(pair, 2)] * 10, 0.3)[0] < -1.0
