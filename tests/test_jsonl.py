"""The one JSON-lines reader behind fabula's data files: line numbers, blank lines, and one-line errors
naming the file and the line, through the reader and through two data loaders that use it."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula._jsonl import read_jsonl
from fabula.errors import InputError
from tests.conftest import run_cli


def test_objects_come_with_their_line_numbers_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text('{"a": 1}\n\n   \n{"b": [2]}\n', encoding="utf-8")
    assert read_jsonl(path) == [(1, {"a": 1}), (4, {"b": [2]})]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'{"a": 1}\n{"a": \n', "data.jsonl: line 2 is not JSON"),
        (b'{"a": 1}\n\n[1, 2]\n', "data.jsonl: line 3 is not a JSON object"),
        (b'"text"\n', "data.jsonl: line 1 is not a JSON object"),
        (b'{"a": "\xff"}\n', "data.jsonl: cannot read the data file ("),
    ],
)
def test_a_bad_line_is_one_error_naming_file_and_line(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputError) as raised:
        read_jsonl(path)
    assert problem in str(raised.value) and "\n" not in str(raised.value)


def test_a_missing_file_names_what_it_should_hold(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"missing\.jsonl: cannot read recap data \(No such file"):
        read_jsonl(tmp_path / "missing.jsonl", "recap data")


def test_loaders_report_the_line_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "refs.jsonl"
    data.write_text('{"id": "r1", "book": "b.txt", "character": "Ann", "reference": "A girl."}\n{oops\n')
    assert run_cli("eval", "describe", "--data", data, "--method", "lead") == 2
    err = capsys.readouterr().err
    assert "refs.jsonl: line 2 is not JSON" in err and "Traceback" not in err
    train = tmp_path / "train.jsonl"
    train.write_text('["not", "an", "object"]\n')
    from fabula.train._describe import _read

    with pytest.raises(InputError, match=r"train\.jsonl: line 1 is not a JSON object"):
        _read(train)
