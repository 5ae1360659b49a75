"""Faults in PDNC-style input give one-line errors naming the file and the problem, and one bad novel
does not abort an evaluation: it is reported, the others are scored (issue 20)."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from fabula.datasets import load_pdnc_novel
from fabula.errors import InputError
from tests.conftest import run_cli
from tests.tasks.pdnc_fixture import dialogue_novel


def _quotes_csv(folder: Path) -> Path:
    return folder / "quotation_info.csv"


def _error(folder: Path) -> str:
    with pytest.raises(InputError) as caught:
        load_pdnc_novel(folder)
    return caught.value.one_line()


def test_span_past_the_end_of_the_text(tmp_path: Path) -> None:
    folder = dialogue_novel(tmp_path / "Bad")
    text = (folder / "novel_text.txt").read_text()
    (folder / "novel_text.txt").write_text(text[: len(text) // 2])  # the wrong (shorter) text
    message = _error(folder)
    assert "quotation_info.csv: row" in message and "lies outside the novel's text" in message


def test_non_utf8_csv(tmp_path: Path) -> None:
    folder = dialogue_novel(tmp_path / "Bad")
    path = _quotes_csv(folder)
    path.write_bytes(path.read_bytes().replace(b"Good morning number 3", b"Bonne journ\xe9e num\xe9ro 3"))
    assert "quotation_info.csv: not UTF-8 text" in _error(folder)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("", "empty file"),
        (
            '"quoteID","quoteText","subQuotationList","quoteByteSpans","speaker","quoteType"\n',
            "only a header",
        ),
    ],
)
def test_empty_or_header_only_csv_is_refused(tmp_path: Path, content: str, problem: str) -> None:
    folder = dialogue_novel(tmp_path / "Bad")
    _quotes_csv(folder).write_text(content)
    assert problem in _error(folder)


def test_renamed_speaker_column(tmp_path: Path) -> None:
    folder = dialogue_novel(tmp_path / "Bad")
    path = _quotes_csv(folder)
    path.write_text(path.read_text().replace('"speaker"', '"Speaker Name"', 1))
    assert "missing column(s) speaker" in _error(folder)


def test_malformed_spans_name_the_row(tmp_path: Path) -> None:
    folder = dialogue_novel(tmp_path / "Bad")
    path = _quotes_csv(folder)
    path.write_text(path.read_text().replace('"[[', '"[[oops', 1))
    assert "row 2: malformed quoteByteSpans" in _error(folder)


def test_one_bad_novel_is_reported_and_the_others_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "pdnc"
    dialogue_novel(root / "Good")
    bad = dialogue_novel(root / "Broken")
    _quotes_csv(bad).write_text("")
    out = tmp_path / "report.json"
    code = run_cli("eval", "quotes", "--pdnc", root, "--json", out)
    captured = capsys.readouterr()
    assert code == 2
    assert "Broken/quotation_info.csv: empty file" in captured.err and "Traceback" not in captured.err
    assert "1 of 2 items could not be scored (Broken)" in captured.err
    report = orjson.loads(out.read_bytes())
    assert list(report["novels"]) == ["Good"] and report["novels"]["Good"]["accuracy"] == 1.0
    assert "empty file" in report["failed"]["Broken"]
    # characters too
    assert run_cli("eval", "characters", "--pdnc", root) == 2
    assert "Broken/quotation_info.csv: empty file" in capsys.readouterr().err


def test_unwritable_json_fails_before_the_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "pdnc"
    dialogue_novel(root / "Good")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert run_cli("eval", "quotes", "--pdnc", root, "--json", blocker / "out.json") == 2
    err = capsys.readouterr().err
    assert "cannot write the report" in err and "… Good" not in err
    shutil.rmtree(root)


def test_quotes_whose_speaker_is_not_listed_are_counted_and_many_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """Gold quotes naming a speaker that character_info.csv lacks were dropped from scoring without a
    word (847 -> 807 on a damaged novel): a few are named in a warning, many fail that novel."""
    root = tmp_path / "pdnc"
    few = dialogue_novel(root / "Few")
    path = _quotes_csv(few)
    path.write_text(path.read_text().replace(',"Ben",', ',"Carl",', 1))  # one line by someone unlisted
    with caplog.at_level("WARNING", logger="fabula"):
        novel = load_pdnc_novel(few)
    assert novel.unresolved == {"Carl": 1}
    assert "1 of 34 quotes name a speaker missing from character_info.csv ('Carl' ×1)" in caplog.text
    many = dialogue_novel(root / "Many")
    info = many / "character_info.csv"
    info.write_text("".join(line for line in info.read_text().splitlines(True) if ",Ben," not in line))
    code = run_cli("eval", "quotes", "--pdnc", root)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Many/quotation_info.csv: 12 of 34 quotes name a speaker missing from character_info.csv" in err
    assert "'Ben' ×12" in err and "1 of 2 items could not be scored (Many)" in err, err
