"""The quotation-attribution paper's protocol (Michel et al., NAACL 2025; ``--method llm``) against the
authors' own code and prompts.

``data/michel2025_persuasion.json`` was made by ``scripts/michel_fixture.py``: the authors' released
``process_pdnc_chunks.py`` and ``incremental_pred.py`` run on the shared Persuasion with fabula's chapters and
approximate tokenizer (what a loopback server gets); it holds, for one chapter cut into three chunks, the
hash of each marked chunk, its quote ids (global and as shown) and the hash of the prompt the released code
builds. The loopback server answers as the script's scripted model did.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from fabula.book import Character, Quote, load_book
from fabula.datasets import PdncNovel, load_pdnc_novel
from fabula.errors import BackendError
from fabula.llm import ResponseCache, ScriptedLLM, get_llm
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.quotes import attribute_parts, quote_parts
from fabula.quotes._michel import (
    alias_table,
    chunk_spans,
    fill_prompt,
    map_name,
    paper_chunks,
    paper_prompt,
    parse_answer,
)
from tests.conftest import pdnc_novel_dir, run_cli

FIXTURE = json.loads((Path(__file__).parent / "data" / "michel2025_persuasion.json").read_text())
RELEASED = Path(__file__).resolve().parents[2] / "../shared/papers/released/quote-attribution-llama3/prompts"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _persuasion() -> tuple[PdncNovel, list[tuple[int, int, int, int]], set[int]]:
    """Persuasion with its gold quotes (pseudo-speakers unmarked), its parts, and the parts of the
    released code's population (non-minor speakers) in the fixture's chapter."""
    novel = load_pdnc_novel(pdnc_novel_dir("Persuasion"))
    pseudo = {id(q) for q in novel.pseudo_speaker_quotes()}
    valid = [q for q in novel.quotes if id(q) not in pseudo]
    novel.book.quotes = [Quote(q.id, list(q.spans)) for q in valid]
    parts = quote_parts(novel.book.quotes)
    category = {c.id: c.category for c in novel.characters}
    chapter = novel.book.chapters[FIXTURE["chapter"]]
    targets = {
        i
        for i, (s, _, qi, _) in enumerate(parts)
        if category.get(valid[qi].speaker_id) != "minor" and chapter.start <= s < chapter.end
    }
    return novel, parts, targets


def _scripted_answer(messages: list[dict[str, str]]) -> str:
    """The fixture script's scripted model: every id shown gets names[id % len(names)]."""
    prompt = messages[-1]["content"]
    names = [line.split("=")[0] for line in FIXTURE["names"].split("\n")]
    passage = prompt.split("**Passage:**\n---\n", 1)[1].split("\n---\n\n**", 1)[0]
    ids = sorted(set(re.findall(r"\|(\d+)\|", passage)), key=int)
    return str({i: names[int(i) % len(names)] for i in ids})


def test_chunk_boundaries_and_ids_equal_the_authors_code() -> None:
    novel, parts, targets = _persuasion()
    chunks, tokenizer = paper_chunks(
        novel.book, ScriptedLLM(["x"]), [(s, e) for s, e, _, _ in parts], targets
    )
    assert tokenizer.startswith("approx(")
    ours = [c for c in chunks if c.to_predict]
    expected = FIXTURE["chunks"]
    assert len(ours) == len(expected) == 3
    for chunk, theirs in zip(ours, expected, strict=True):
        assert chunk.raw[:80] == theirs["chunk_head"] and chunk.raw[-80:] == theirs["chunk_tail"]
        assert _sha(chunk.raw) == theirs["chunk_sha256"]
        assert chunk.to_predict == theirs["to_predict"]
        assert {k: chunk.local[k] for k in theirs["local_ids"]} == theirs["local_ids"]
        assert sorted(chunk.local.values(), key=int) == [str(i) for i in range(1, len(chunk.local) + 1)]


def test_prompts_received_equal_the_authors_prompts_byte_for_byte() -> None:
    novel, parts, targets = _persuasion()
    with ScriptedOpenAIServer(_scripted_answer) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        pseudo = {id(q) for q in novel.pseudo_speaker_quotes()}
        speakers = {q.speaker_id for q in novel.quotes if id(q) not in pseudo and q.speaker_id}
        report = attribute_parts(
            novel.book,
            llm,
            [(s, e) for s, e, _, _ in parts],
            novel.characters,
            targets=targets,
            speakers=speakers,
            strategy="incremental",
        )
        bodies = server.bodies
    expected = FIXTURE["chunks"]
    assert [len(b["messages"]) for b in bodies] == [1] * len(expected)  # one user turn, no system message
    prompts = [b["messages"][0]["content"] for b in bodies]
    assert [_sha(p) for p in prompts] == [c["prompt_sha256"] for c in expected]
    assert [("**Previous predictions**" in p) for p in prompts] == [c["incremental"] for c in expected]
    assert all(b["temperature"] == 0.0 and b["max_tokens"] == 2000 for b in bodies)
    assert report.incremental_prompts == 2 and report.predicted == len(targets)


def test_the_prompt_files_are_the_released_prompts() -> None:
    normal = (RELEASED / "normal_attribution_prompt.txt").read_text()
    assert paper_prompt("normal") == normal
    incremental = (RELEASED / "incremental_attribution_prompt.txt").read_text()
    ours = paper_prompt("incremental")
    # the code (and Figure 8) add two sentences the released prompt file lacks
    assert (
        ours.replace(
            " You will also be provided a list of characters and their aliases, and previous predictions.", ""
        ).replace(" Update the previous predictions if you think it contains wrong speaker prediction.", "")
        == incremental
    )
    filled = fill_prompt("incremental", "P <INSERT CHARACTER LIST> $x", "A=B", {"1": "A"})
    assert "---\nP <INSERT CHARACTER LIST> $x\n---" in filled and "---\n{'1': 'A'}\n---" in filled
    assert "---\nA=B\n---" in filled


def test_names_list_as_the_authors_build_it() -> None:
    people = [
        Character("0", "Miss Anne Elliot", {"Anne": 3}),
        Character("1", "Mr Elliot", {"William": 1}),
        Character("2", "Mrs Elliot", {}),
        Character("3", "_group", {}),
        Character("4", "The Waiter", {}),
    ]
    table = alias_table(people)
    # "Elliot" would name two people: not added; "Anne Elliot" and "Waiter" name one each
    assert (
        table.text() == "Miss Anne Elliot=Anne=Anne Elliot\nMr Elliot=William\nMrs Elliot\nThe Waiter=Waiter"
    )
    assert alias_table(people, {"1"}).text() == "Mr Elliot=William=Elliot"
    # exact names only (the paper); the released alias2id also takes a part of a name
    assert map_name("Anne Elliot", table) == "0" and map_name("anne", table) is None
    assert map_name("Elliot", table) is None and map_name("Elliot", table, lenient=True) == "0"
    assert map_name("waiter", table, lenient=True) == "4" and map_name(["Anne"], table) is None


def test_answers_are_parsed_as_the_released_parse_answer() -> None:
    local = {"1": "40", "2": "41"}
    assert parse_answer("{'1': 'Anne', '2': 'Mary'}", local) == {"40": "Anne", "41": "Mary"}
    assert parse_answer('Sure:\n{\n"quote_1": "Anne",\n"|2|": "Mary",\n"9": "X"\n}\n', local) == {
        "40": "Anne",
        "41": "Mary",
    }
    assert parse_answer("1: 'Anne',\n2: Mary\n", local) == {"40": "Anne", "41": "Mary"}
    assert parse_answer("1: Anne\n7: Mary\n", local) == {}  # an id not in the chunk voids the lines
    assert parse_answer("no idea", local) == {}


def test_a_model_that_never_gives_an_id_fails_the_run_and_its_answers_are_not_cached(tmp_path: Path) -> None:
    book = load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt")
    start = book.text.index('"')
    end = book.text.index('"', start + 1)
    llm = ScriptedLLM(lambda _m: "{}", cache=ResponseCache(tmp_path / "c.sqlite"))
    with pytest.raises(BackendError, match="no answer had an id"):
        attribute_parts(book, llm, [(start + 1, end)], [Character("0", "Daisy")])
    assert llm.cache is not None and len(llm.cache) == 0  # a re-run asks again


def test_chunks_are_overflowing_windows() -> None:
    spans = [(i, i + 1) for i in range(10)]
    assert chunk_spans(spans, 4, 1) == [(0, 4), (3, 7), (6, 10)]
    assert chunk_spans(spans, 10, 2) == [(0, 10)]
    assert chunk_spans(spans, 6, 2) == [(0, 6), (4, 10)]


def test_eval_quotes_method_llm_is_the_paper_protocol(tmp_path: Path) -> None:
    """End to end on the loopback server: every id answered with one name, so the accuracy is that
    character's share of the scored quotation parts, counted here by hand."""
    folder = pdnc_novel_dir("DaisyMiller")
    novel = load_pdnc_novel(folder)
    scored = novel.scored_speakers()
    first = alias_table(novel.characters).rows[0]
    out = tmp_path / "paper.json"

    def answer(messages: list[dict[str, str]]) -> str:
        ids = sorted(set(re.findall(r"\|(\d+)\|", messages[-1]["content"])), key=int)
        return str({i: first[1] for i in ids})

    with ScriptedOpenAIServer(answer) as server:
        args = ["eval", "quotes", "--pdnc", folder.parent, "--novel", "DaisyMiller", "--method", "llm"]
        code = run_cli(*args, "--llm", f"openai:m@{server.url}", "--no-cache", "--json", out)
    assert code == 0
    report = json.loads(out.read_text())
    settings = report["settings"]
    assert settings["quotes"] == "gold" and settings["strategy"] == "incremental"
    assert settings["population"] == "ge10" and settings["name_matching"] == "exact"
    parts = [(q, s) for q in novel.quotes if q.speaker_id in scored for s in q.spans]
    by_type = {"explicit": [0, 0], "other": [0, 0]}
    for quote, _span in parts:
        tally = by_type["explicit" if quote.type == "explicit" else "other"]
        tally[0] += quote.speaker_id == first[0]
        tally[1] += 1
    scores = report["novels"]["DaisyMiller"]
    assert scores["scored"] == len(parts)
    assert scores["accuracy"] == pytest.approx(sum(q.speaker_id == first[0] for q, _ in parts) / len(parts))
    assert scores["explicit"] == pytest.approx(by_type["explicit"][0] / by_type["explicit"][1])
    assert scores["other"] == pytest.approx(by_type["other"][0] / by_type["other"][1])
    assert scores["detection_f1"] is None
    lines = [json.loads(line) for line in (tmp_path / "paper.samples.jsonl").read_text().splitlines()]
    parts_logged = [r for r in lines if "part" in r]
    assert sum(r["scored"] for r in parts_logged) == len(parts)  # one line per gold quotation part
    assert sum(bool(r["right"]) for r in parts_logged) == sum(q.speaker_id == first[0] for q, _ in parts)


def test_the_protocol_on_fabulas_own_cast_and_quotes_is_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Beyond the paper: fabula's predicted cast (no gold list) and detected quotes, first chapter only;
    every id answered with the names list's first name: scored against the gold speakers by shared names."""
    folder = pdnc_novel_dir("DaisyMiller")

    def answer(messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        first = prompt.split("**Names**\n\n---\n", 1)[1].split("=", 1)[0].split("\n", 1)[0]
        ids = sorted(set(re.findall(r"\|(\d+)\|", prompt)), key=int)
        return str({i: first for i in ids})

    out = tmp_path / "own.json"
    with ScriptedOpenAIServer(answer) as server:
        args = ["eval", "quotes", "--pdnc", folder.parent, "--novel", "DaisyMiller", "--method", "llm"]
        args += ["--characters", "predicted", "--quotes", "detected", "--chapters", "1"]
        code = run_cli(*args, "--llm", f"openai:m@{server.url}", "--no-cache", "--json", out)
    assert code == 0
    printed = capsys.readouterr().out
    assert "Table 1 layout (mean (std) over 1 novels): All " in printed
    report = json.loads(out.read_text())
    settings, scores = report["settings"], report["novels"]["DaisyMiller"]
    assert (
        settings["characters"] == "predicted"
        and settings["quotes"] == "detected"
        and settings["chapters"] == 1
    )
    assert 0 < scores["scored"] < 713 and 0.0 < scores["accuracy"] < 1.0
    # detection against chapter 1's gold quotes
    assert scores["detection_f1"] is not None and scores["detection_f1"] > 0.9
