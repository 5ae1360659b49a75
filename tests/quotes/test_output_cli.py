"""Quote records, the JSONL/TSV files and ``fabula quotes`` on the shipped example novel."""

from __future__ import annotations

import csv
from pathlib import Path

import orjson
import pytest

from fabula.book import Character, book_from_text
from fabula.characters import find_characters
from fabula.quotes import TSV_COLUMNS, attribute_quotes, detect_quotes, quote_records, write_quotes
from tests.conftest import ROOT, run_cli

ALICE = ROOT / "examples" / "alice_in_wonderland.txt"


def _book():  # type: ignore[no-untyped-def]
    book = book_from_text('Emma sat down.\n\n"Well, Harriet," said Emma, "we shall see."\n')
    detect_quotes(book)
    cast = [
        Character("e", "Emma", gender="female", source="gold"),
        Character("h", "Harriet", gender="female", source="gold"),
    ]
    find_characters(book, gold=cast)
    attribute_quotes(book)
    return book


def test_records_carry_speaker_addressee_type_and_method() -> None:
    (record,) = quote_records(_book())
    assert record["id"] == "Q0"
    assert record["text"] == "Well, Harriet, we shall see."
    assert len(record["spans"]) == 2
    assert (record["speaker_id"], record["speaker"]) == ("e", "Emma")
    assert record["addressees"] == ["Harriet"]
    assert record["type"] == "explicit" and record["method"] == "ranker:tag"
    assert record["mention"]["text"] == "Emma"
    orjson.dumps(record)


def test_tsv_has_booknlp_columns(tmp_path: Path) -> None:
    path = tmp_path / "q.tsv"
    write_quotes(_book(), path, format="tsv")
    rows = list(csv.reader(path.open(encoding="utf-8"), delimiter="\t"))
    assert rows[0] == TSV_COLUMNS
    assert rows[0][:7] == [
        "quote_start",
        "quote_end",
        "mention_start",
        "mention_end",
        "mention_phrase",
        "char_id",
        "quote",
    ]
    assert rows[1][4:7] == ["Emma", "e", "Well, Harriet, we shall see."]


def test_cli_writes_jsonl_for_the_example_novel(tmp_path: Path) -> None:
    out = tmp_path / "quotes.jsonl"
    assert run_cli("quotes", ALICE, "-o", out) == 0
    records = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert len(records) > 100
    attributed = [r for r in records if r["speaker"]]
    assert len(attributed) > 0.8 * len(records)
    assert any(r["speaker"] and "Alice" in r["speaker"] for r in records)


def test_cli_until_limits_the_quotes(tmp_path: Path) -> None:
    full, part = tmp_path / "full.tsv", tmp_path / "part.tsv"
    assert run_cli("quotes", ALICE, "--format", "tsv", "-o", full) == 0
    assert run_cli("quotes", ALICE, "--format", "tsv", "-o", part, "--until", "20%") == 0
    assert 1 < len(part.read_text().splitlines()) < len(full.read_text().splitlines())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--method", "nope"), "unknown attribution method"),
        (("--format", "xml"), "unknown format"),
    ],
)
def test_cli_bad_options_fail_without_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    out = tmp_path / "q.jsonl"
    assert run_cli("quotes", ALICE, "-o", out, *args) != 0
    assert message in capsys.readouterr().err
    assert not out.exists()
