"""``fabula eval … --anonymize``: the offset map, gold PDNC data carried onto renamed books exactly, the
harness hook, and the one-line refusals."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from fabula.anonymize import Anonymizer, NameMapping, plan_mapping
from fabula.datasets import PdncNovel, find_pdnc_novels, load_pdnc_novel
from fabula.errors import ConfigError
from fabula.tasks import get_task, run_eval
from fabula.tasks.pdnc_quotes import anonymized_novel
from tests.conftest import pdnc_novel_dir, run_cli


def test_offset_map_carries_spans_over_replaced_names() -> None:
    text = "Darcy met Mr. Darcy's sister, Georgiana. GEORGIANA wept."
    mapping = NameMapping({"Darcy": "Wilberforce", "Georgiana": "Ann"})
    rewrite = mapping.rewrite(text)
    new = rewrite.text
    assert new == "Wilberforce met Mr. Wilberforce's sister, Ann. ANN wept."
    for word in ("met", "sister", "wept", "."):
        start = text.index(word)
        a, b = rewrite.offsets.span(start, start + len(word))
        assert new[a:b] == word
    start = text.index("Mr. Darcy's")
    a, b = rewrite.offsets.span(start, start + len("Mr. Darcy's"))
    assert new[a:b] == "Mr. Wilberforce's"
    a, b = rewrite.offsets.span(2, 4)  # a span that cuts a name keeps the whole new name
    assert new[a:b] == "Wilberforce"
    assert rewrite.offsets.span(len(text), len(text)) == (len(new), len(new))


def test_body_only_rewrite_leaves_the_rest_and_shifts_offsets_after_it() -> None:
    text = "Darcy. Darcy. Darcy."
    rewrite = NameMapping({"Darcy": "Al"}).rewrite(text, 7, 13)
    assert rewrite.text == "Darcy. Al. Darcy."
    assert rewrite.offsets.offset(14) == 11 and rewrite.text[11:16] == "Darcy"


def test_pdnc_gold_quotes_speakers_and_characters_are_carried_over_exactly() -> None:
    novel = load_pdnc_novel(pdnc_novel_dir("PrideAndPrejudice"))
    anonymized = anonymized_novel(novel, Anonymizer(seed=3))
    mapping = anonymizer_mapping(novel)
    assert len(mapping.names) > 30 and "Darcy" in mapping.names and "Bennet" in mapping.names
    assert "Darcy" not in anonymized.book.text[anonymized.book.body.start : anonymized.book.body.end]
    spans = 0
    for original, renamed in zip(novel.quotes, anonymized.quotes, strict=True):
        assert renamed.id == original.id and renamed.speaker_id == original.speaker_id
        assert renamed.speaker == mapping.apply(original.speaker)
        for before, after in zip(original.spans, renamed.spans, strict=True):
            spans += 1
            assert anonymized.book.text[after.start : after.end] == mapping.apply(
                novel.book.text[before.start : before.end]
            )
    assert spans >= 1700
    darcy_id = next(c.id for c in novel.characters if c.name.endswith("Darcy"))
    darcy = next(c for c in anonymized.characters if c.id == darcy_id)
    assert darcy.name.endswith(mapping.names["Darcy"])
    assert anonymized.quote_counts == novel.quote_counts


@pytest.mark.slow
def test_every_pdnc_novel_keeps_its_quote_spans_and_round_trips(pdnc_dir: Path) -> None:
    """All 21 novels (~20 s): each gold span's new text is the old text renamed, and the mapping inverts."""
    for folder in find_pdnc_novels(pdnc_dir):
        novel = load_pdnc_novel(folder)
        anonymized = anonymized_novel(novel, Anonymizer())
        mapping = plan_mapping(novel.book, novel.characters, seed=0)
        inverse = mapping.inverse()
        assert inverse.apply(anonymized.book.text) == novel.book.text, folder.name
        for original, renamed in zip(novel.quotes, anonymized.quotes, strict=True):
            for before, after in zip(original.spans, renamed.spans, strict=True):
                old = novel.book.text[before.start : before.end]
                new = anonymized.book.text[after.start : after.end]
                # the inverse, not ``mapping.apply(old)``: a contextual word at a span's start is renamed by
                # what stands before the span ("but  That was all" inside a sentence)
                assert inverse.apply(new) == old, folder.name
                if not any(word in old for word in mapping.contextual):
                    assert new == mapping.apply(old), folder.name


_MAPPING_SCRIPT = """
import sys, orjson
from fabula.anonymize import plan_mapping
from fabula.datasets import load_pdnc_novel
novel = load_pdnc_novel(sys.argv[1])
mapping = plan_mapping(novel.book, novel.characters, seed=0)
sys.stdout.write(orjson.dumps(mapping.to_json(), option=orjson.OPT_SORT_KEYS).decode())
"""


@pytest.mark.slow
def test_the_mapping_is_the_same_in_processes_with_different_string_hashes() -> None:
    """Two interpreters with different hash seeds draw the same mapping (a set of names walked while drawing
    once gave a cast word a different replacement in each process; these two seeds differed then)."""
    folder = pdnc_novel_dir("TheSignOfTheFour")
    outputs = []
    for hash_seed in ("1", "2"):
        env = os.environ | {"PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", _MAPPING_SCRIPT, str(folder)], env=env, capture_output=True, check=True
        )
        outputs.append(orjson.loads(done.stdout))
    assert len(outputs[0]["names"]) > 20
    assert outputs[0] == outputs[1]


def anonymizer_mapping(novel: PdncNovel) -> NameMapping:
    return plan_mapping(novel.book, novel.characters, seed=3)


def test_eval_quotes_and_characters_run_anonymised_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = pdnc_novel_dir("DaisyMiller")
    out = tmp_path / "q.json"
    args = ("--pdnc", folder.parent, "--novel", "DaisyMiller", "--json", out)
    assert run_cli("eval", "quotes", *args, "--anonymize", "--anonymize-seed", "2") == 0
    assert "ran on anonymised copies" in capsys.readouterr().out
    report = orjson.loads(out.read_bytes())
    assert report["settings"]["anonymized"] == {"seed": 2}
    assert report["novels"]["DaisyMiller"]["accuracy"] >= 0.85  # the gold names renamed with the book
    assert run_cli("eval", "characters", *args, "--anonymize") == 0
    report = orjson.loads(out.read_bytes())
    assert report["settings"]["anonymized"] == {"seed": 0}
    assert report["novels"]["DaisyMiller"]["recall"] >= 0.5


def test_a_task_that_cannot_says_why_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = tmp_path / "b.txt"
    book.write_text("Some text.\n")
    assert (
        run_cli("eval", "probe", "--paths", book, "--llm", "openai:http://127.0.0.1:9/v1", "--anonymize") != 0
    )
    err = capsys.readouterr().err.strip()
    assert "cannot run on anonymised books: the probes measure what a model remembers" in err
    assert len(err.splitlines()) == 1
    with pytest.raises(ConfigError, match="cannot run on anonymised books"):
        run_eval(get_task("probe")(paths=[book]), anonymize=Anonymizer(), progress=False)
