"""``fabula corpus`` on damaged input and unwritable destinations: one-line errors naming the book and
the field, all four tables or none, and book folders without a manifest named, not skipped silently."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from tests.conftest import run_cli
from tests.corpus.test_parquet import two_books  # noqa: F401 - the analysed folders, made once
from tests.disk import full_disk, read_only

pytest.importorskip("pyarrow")

TABLES = ("books", "characters", "quotes", "mentions")


def _copy(two_books: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:  # noqa: F811
    out, tables = two_books
    shutil.copytree(out, tmp_path / "out")
    shutil.copytree(tables, tmp_path / "tables")
    return tmp_path / "out", tmp_path / "tables"


def _error(err: str) -> str:
    """The one error line (the progress lines before it aside); fails on a traceback."""
    assert "Traceback" not in err, err
    lines = [line for line in err.strip().splitlines() if line.startswith("fabula: error:")]
    assert len(lines) == 1, err
    return lines[0]


def _snapshot(tables: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(tables.iterdir())}


def test_a_wrongly_typed_field_is_one_line_and_writes_nothing(
    two_books: tuple[Path, Path],  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, tables = _copy(two_books, tmp_path)
    # a new book sorts first, so the old tables would be half replaced by a table-by-table writer
    shutil.copytree(out / "alice_start", out / "alice_again")
    characters = out / "alice_tea" / "characters.jsonl"
    lines = characters.read_bytes().splitlines()
    first = orjson.loads(lines[0])
    first["mention_count"] = "many"
    characters.write_bytes(b"\n".join([orjson.dumps(first), *lines[1:]]) + b"\n")
    before = _snapshot(tables)
    assert run_cli("corpus", out, "--to", "parquet", tables) == 2
    err = _error(capsys.readouterr().err)
    assert "alice_tea" in err and "mention_count" in err, err
    assert _snapshot(tables) == before  # the old tables, untouched


def test_a_folder_without_a_manifest_is_named(
    two_books: tuple[Path, Path],  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, tables = _copy(two_books, tmp_path)
    shutil.copytree(out / "alice_start", out / "alice_unfinished")
    (out / "alice_unfinished" / "manifest.json").unlink()
    assert run_cli("corpus", out, "--to", "parquet", tables) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "alice_unfinished" in err and "manifest.json" in err, err


def test_a_read_only_destination_is_one_line(
    two_books: tuple[Path, Path],  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, _ = two_books
    with read_only(tmp_path / "ro") as folder:
        code = run_cli("corpus", out, "--to", "parquet", folder / "tables")
        err = capsys.readouterr().err.strip()
    assert code == 2 and _error(err), err


def test_a_full_disk_leaves_all_tables_or_none(
    two_books: tuple[Path, Path],  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, tables = two_books
    sizes = sorted(p.stat().st_size for p in tables.iterdir())
    room = sum(sizes) - sizes[-1] // 2  # enough for some tables, not for all
    with full_disk(tmp_path / "disk", str(max(room, 4096))) as disk:
        code = run_cli("corpus", out, "--to", "parquet", disk)
        err = capsys.readouterr().err.strip()
        left = sorted(p.name for p in disk.iterdir())
    assert code == 2 and "No space left" in _error(err), err
    assert left == [], left
