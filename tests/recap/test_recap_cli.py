"""``fabula recap``: the command, its JSON, the data file it builds, and that --at never leaks."""

from __future__ import annotations

import json

import pytest

from fabula.book import book_from_text, load_book, resolve_position
from fabula.recap import read_records, recap
from tests.conftest import pdnc_novel_dir, run_cli
from tests.recap.conftest import SENTENCES

SPOILER = "Zanzibarwick"


@pytest.mark.parametrize(
    "method", ["closest", "bm25", "tfidf", "character-filter", "combined", "reach-back", "select-all"]
)
def test_recap_never_uses_text_at_or_after_the_position(method):
    # the same sentences, then a later chapter full of a spoiler name that shares the target's words
    later = " ".join(f"{SPOILER} ate the strawberries at Donwell Abbey with Miss Bennet." for _ in range(30))
    book = book_from_text("\n\n".join(SENTENCES) + "\n\n" + later + "\n")
    position = book.text.index(SPOILER)
    result = recap(book, position, k=5, method=method)
    payload = json.dumps(result.to_dict())
    assert SPOILER not in payload
    assert result.target.end <= position
    assert all(s.end <= position for s in result.snippets)


@pytest.mark.parametrize("at", ["10%", "chapter:5", "50000"])
def test_cli_recap_json_on_a_real_novel(at, capsys):
    path = pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt"
    book = load_book(path)
    position = resolve_position(book, at)
    assert run_cli("recap", path, "--at", at, "-k", "3", "--method", "combined", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["position"] == position
    assert len(out["snippets"]) == 3
    for snippet in [out["target"], *out["snippets"]]:
        assert snippet["end"] <= position
        assert book.span_text((snippet["start"], snippet["end"]), normalize=True) == snippet["text"]
    assert out["snippets"][0]["chapter"] is not None
    # the reader's chapter, as the text output says it (the passage just read may start in the one before)
    reader = book.chapter_at(position - 1)
    assert reader is not None and out["position_chapter"] == reader.id + 1
    if at == "chapter:5":
        assert out["position_chapter"] == 5


def test_cli_recap_text_and_errors(tmp_path, capsys):
    path = pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt"
    assert run_cli("recap", path, "--at", "chapter:2", "--method", "bm25") == 0
    assert "1. chapter" in capsys.readouterr().out
    assert run_cli("recap", path, "--at", "chapter:2", "--method", "nope") != 0
    assert "unknown recap method" in capsys.readouterr().err
    assert run_cli("recap", path, "--at", "chapter:2", "--method", "pipeline") != 0
    assert "needs an LLM" in capsys.readouterr().err
    assert run_cli("recap", tmp_path / "missing.txt", "--at", "5%") != 0
    assert run_cli("recap", path) != 0  # no reading position
    assert "say where the reader is" in capsys.readouterr().err
    assert run_cli("recap", path, "--until-chapter", "2", "--method", "closest", "-k", "1") == 0
    assert "1. chapter 2" in capsys.readouterr().out


def test_cli_recap_build_writes_annotatable_targets(tmp_path):
    path = pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt"
    out = tmp_path / "targets.jsonl"
    assert run_cli("recap", "build", path, "-o", out, "--targets", "4") == 0
    records = read_records(out)
    assert len(records) == 4
    for record in records:
        assert len(record["candidates"]) == 60 and "gold" not in record
        assert record["candidates"][-1][1] <= record["target"][0]


def test_bad_data_file_is_one_clear_error(tmp_path):
    from fabula.errors import InputError

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "book": "x.txt", "target": [10, 20], "candidates": [[5, 30]]}\n')
    with pytest.raises(InputError, match="line 1: every candidate must end before the target"):
        read_records(bad)
