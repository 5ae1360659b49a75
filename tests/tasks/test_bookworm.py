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


RELEASED_PROMPTS = (
    Path(__file__).resolve().parents[3] / "shared" / "papers" / "released" / "bookworm" / "prompts"
)


def _bookworm_folder(root: Path, records: list[dict[str, object]]) -> Path:
    """A BookWorm data folder as the release's scripts leave it: the lists, the book text, the user's split
    texts. The fixture pairs the shipped example novel with references written here."""
    (root / "splits" / "description").mkdir(parents=True)
    (root / "books.tsv").write_text("Id\tTitle\tAuthor\n11\tAlice in Wonderland\tLewis Carroll\n7\tX\tY\n")
    (root / "splits" / "description" / "test.tsv").write_text(
        "BookId\tTitle\tAuthor\n11\tAlice in Wonderland\tLewis Carroll\n"
    )
    (root / "corpus" / "books" / "11").mkdir(parents=True)
    (root / "corpus" / "books" / "11" / "book_cleaned.txt").write_text(
        EXAMPLE_NOVEL.read_text(encoding="utf-8")
    )
    (root / "corpus" / "description").mkdir(parents=True)
    (root / "corpus" / "description" / "test.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records)
    )
    return root


def test_bookworm_folder_loader_and_its_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fabula.datasets import bookworm_references

    records = [{"id": 11, "character": "Alice", "description": REFERENCES[0]["reference"]}]
    root = _bookworm_folder(tmp_path / "ok", records)
    [ref] = bookworm_references(root, "description", "test")
    assert (ref.book.gutenberg_id, ref.character, ref.kind) == (11, "Alice", "description")
    assert ref.book_path.name == "book_cleaned.txt" and ref.reference.startswith("Alice is a curious girl")
    items = get_task("describe")(data=root).items()
    assert [(i.id, i.groups) for i in items] == [
        ("11:Alice", {"novel": "Alice in Wonderland", "kind": "description"})
    ]
    stray = _bookworm_folder(tmp_path / "stray", [{"id": 7, "character": "A", "description": "B c."}])
    assert run_cli("eval", "describe", "--data", stray) == 2
    err = capsys.readouterr().err
    assert "book 7 is not in splits/description/test.tsv" in err and "Traceback" not in err
    (root / "corpus" / "books" / "11" / "book_cleaned.txt").unlink()
    assert run_cli("eval", "describe", "--data", root) == 2
    assert "no book text for 'Alice in Wonderland'" in capsys.readouterr().err
    assert run_cli("eval", "describe", "--data", root, "--split", "description") == 2


@pytest.mark.slow  # analyses the example novel and runs the harness twice
def test_protocol_bookworm_through_the_harness(tmp_path: Path) -> None:
    """``fabula eval describe --protocol bookworm`` on a BookWorm folder: the released prompt, 0.4, 110 new
    tokens, one call per item (bm25) or one per segment plus a merge (hierarchical), logged per item."""
    template_file = RELEASED_PROMPTS / "description_prompt.txt"
    if not template_file.is_file():
        pytest.skip(f"the BookWorm release is not beside the repository ({RELEASED_PROMPTS})")
    template = template_file.read_text(encoding="utf-8")
    records = [
        {"id": 11, "character": "Alice", "description": REFERENCES[0]["reference"]},
        {"id": "11", "character": "Hatter", "description": REFERENCES[1]["reference"]},
    ]
    root = _bookworm_folder(tmp_path / "data", records)

    def answer(messages: list[dict[str, str]]) -> str:
        return "MERGED" if "by merging" in messages[-1]["content"] else "Alice follows the White Rabbit."

    for context in ("bm25", "hierarchical"):
        out = tmp_path / f"{context}.json"
        with ScriptedOpenAIServer(answer) as server:
            args = ["eval", "describe", "--data", root, "--method", "llm", "--protocol", "bookworm"]
            spec = f"openai:toy@{server.url}"
            assert run_cli(*args, "--context", context, "--llm", spec, "--no-cache", "--json", out) == 0
            bodies = server.bodies
        report = orjson.loads(out.read_bytes())
        settings = report["settings"]
        assert settings["protocol"] == "bookworm" and settings["context"] == context
        assert settings["temperature"] == 0.4 and settings["max_new_tokens"]["description"] == 110
        assert all(b["temperature"] == 0.4 and b["max_tokens"] == 110 for b in bodies)
        assert all(len(b["messages"]) == 1 for b in bodies)  # no system message, as released
        rows = [orjson.loads(line) for line in log_path_for(out).read_text().splitlines()]
        items = {r["id"]: r for r in rows if r.get("id") in ("11:Alice", "11:Hatter")}
        assert set(items) == {"11:Alice", "11:Hatter"}
        calls = [items[i]["details"]["calls"] for i in ("11:Alice", "11:Hatter")]
        assert sum(calls) == len(bodies)
        head = template.split("{context}")[0]
        for name in ("Alice", "Hatter"):
            assert any(b["messages"][0]["content"].startswith(head.format(character=name)) for b in bodies)
        if context == "bm25":
            assert calls == [1, 1] and items["11:Alice"]["prediction"] == "Alice follows the White Rabbit."
            assert 0 < items["11:Alice"]["details"]["context_tokens"] <= 7600
        else:
            segments = items["11:Alice"]["details"]["segment_outputs"]
            assert calls[0] == len(segments) + 1 >= 3 and items["11:Alice"]["prediction"] == "MERGED"


def test_judged_metrics_use_a_separate_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With --method llm the described model never judges: --judge is required and gets every judged call."""
    data = _data(tmp_path)
    args = ["eval", "describe", "--data", data, "--method", "llm", "--context", "bm25", "--budget", "300"]
    with ScriptedOpenAIServer("Alice is curious.") as writer:
        spec = f"openai:w@{writer.url}"
        assert run_cli(*args, "--llm", spec, "--metrics", "qa_f1", "--no-cache") == 2
        assert "need a separate judge: give --judge SPEC" in capsys.readouterr().err
        assert run_cli(*args, "--llm", spec, "--judge", spec, "--metrics", "qa_f1", "--no-cache") == 2
        assert "--judge names the described model" in capsys.readouterr().err
        with ScriptedOpenAIServer("not json") as judge:
            out = tmp_path / "judged.json"
            code = run_cli(
                *args, "--llm", spec, "--judge", f"openai:j@{judge.url}", "--metrics", "qa_f1", "--no-cache",
                "--json", out,
            )  # fmt: skip
            assert code == 0
            judged = [" ".join(m["content"] for m in b["messages"]) for b in judge.bodies]
        written = [b["messages"][-1]["content"] for b in writer.bodies]
    assert len(written) == 2 and all("Write 5 questions" not in p for p in written)
    # only question writing (with its one reminder retry): unparseable, so no question survives
    assert judged and all("Write 5 questions" in p for p in judged)
    report = orjson.loads(out.read_bytes())
    assert report["settings"]["judge"].startswith("openai:j@") and "judge_usage" in report["settings"]


def test_entity_recall_by_a_spacy_pipeline_folder(tmp_path: Path) -> None:
    """--ner-model: the reference's entities by spaCy (here a blank pipeline with an entity ruler built in
    the test, saved as a folder), not by capitalised runs."""
    spacy = pytest.importorskip("spacy", reason="the 'ner' extra is not installed")
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "PERSON", "pattern": "Alice"}, {"label": "PERSON", "pattern": "Rabbit"}])
    nlp.to_disk(tmp_path / "ner")
    data = _data(tmp_path)
    by_ruler = run_eval(
        get_task("describe")(data=data, method="lead", ner_model=str(tmp_path / "ner")), progress=False
    )
    by_capitals = run_eval(get_task("describe")(data=data, method="lead"), progress=False)
    assert (
        by_ruler.settings["entities"].startswith("spaCy ")
        and by_capitals.settings["entities"] == "capitalised runs"
    )
    # the ruler finds only the two patterns, capitalised runs find every name: the means differ
    assert by_ruler.mean["entity_recall"] != by_capitals.mean["entity_recall"]
