"""``fabula read``: the summary, the Book JSON, and one-line errors (no traceback, no output file) for bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from fabula.book import book_from_dict, load_book
from fabula.cli import main
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "alice_in_wonderland.txt"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(args)
    out, err = capsys.readouterr()
    code = info.value.code
    return (code if isinstance(code, int) else 1), out, err


def test_summary_of_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["read", str(EXAMPLE), "--chapters"], capsys)
    assert code == 0
    assert "chapters" in out and "12" in out
    assert "CHAPTER XII. Alice's Evidence" in out
    assert "utf-8" in out


def test_json_to_file_round_trips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out" / "alice.json"
    code, out, _ = _run(["read", str(EXAMPLE), "--json", "-o", str(target)], capsys)
    assert code == 0 and out == ""
    book = book_from_dict(orjson.loads(target.read_bytes()))
    original = load_book(EXAMPLE)
    assert book.text == original.text and book.sentences == original.sentences
    assert [p.name for p in target.parent.iterdir()] == ["alice.json"]  # no temporary file left


def test_json_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["read", str(EXAMPLE), "--json"], capsys)
    assert code == 0
    assert orjson.loads(out)["fabula_book"] == 2


def _bad_inputs(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    binary = tmp_path / "image.txt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00" * 50)
    noise = tmp_path / "noise.txt"
    noise.write_bytes(bytes((i * 37) % 128 + 128 for i in range(4000)))
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    epub = tmp_path / "broken.epub"
    epub.write_bytes(b"PK\x03\x04 not really a zip")
    return {
        "missing": (tmp_path / "missing.txt", "no such file"),
        "directory": (tmp_path, "is a directory"),
        "empty": (empty, "file is empty"),
        "binary": (binary, "binary"),
        "undecodable": (noise, "encoding"),
        "huge": (huge, "--max-bytes"),
        "broken epub": (epub, "EPUB"),
    }


@pytest.mark.parametrize(
    "case", ["missing", "directory", "empty", "binary", "undecodable", "huge", "broken epub"]
)
def test_bad_input_is_one_line_and_writes_nothing(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, problem = _bad_inputs(tmp_path)[case]
    target = tmp_path / "out.json"
    code, out, err = _run(["read", str(path), "-o", str(target)], capsys)
    assert out == ""
    assert code != 0
    assert err.startswith(f"fabula: error: {path}: ")
    assert problem in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not target.exists()
    assert not list(tmp_path.glob(".out.json.*"))


def test_max_bytes_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["read", str(EXAMPLE), "--max-bytes", "1000"], capsys)
    assert code != 0 and "limit" in err


def test_console_script_error_has_no_traceback(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", "from fabula.cli import main; main()", "read", str(tmp_path / "nope.txt")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == f"fabula: error: {tmp_path / 'nope.txt'}: no such file"
    assert result.stdout == ""
