"""``fabula corpus OUT --to parquet DIR``: row counts equal the per-book outputs, the columns and types are
the documented ones, and docs/corpus.md's DuckDB questions run as written."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from tests.conftest import ROOT, run_cli

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ALICE = ROOT / "examples" / "alice_in_wonderland.txt"
DOC = ROOT / "docs" / "corpus.md"


def _lines(path: Path) -> int:
    return sum(1 for line in path.read_bytes().splitlines() if line.strip())


def check_tables(analyzed: Path, tables: Path) -> dict[str, object]:
    """Every table's rows per book equal that book's own output files; returns the tables."""
    read = {
        name: pq.read_table(tables / f"{name}.parquet")
        for name in ("books", "characters", "quotes", "mentions")
    }
    folders = sorted(p.parent for p in analyzed.glob("*/manifest.json"))
    assert sorted(read["books"].column("book_id").to_pylist()) == [f.name for f in folders]
    for name in ("characters", "quotes", "mentions"):
        ids = read[name].column("book_id").to_pylist()
        for folder in folders:
            if name == "mentions":
                expected = len(orjson.loads((folder / "book.json").read_bytes())["mentions"]["starts"])
            else:
                expected = _lines(folder / f"{name}.jsonl")
            assert ids.count(folder.name) == expected, (name, folder.name)
    return read


@pytest.fixture(scope="module")
def two_books(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("corpus")
    text = ALICE.read_text(encoding="utf-8")
    (root / "alice_start.txt").write_text(text[: text.index("CHAPTER III")], encoding="utf-8")
    (root / "alice_tea.txt").write_text(text[: text.index("CHAPTER VIII")], encoding="utf-8")
    out = root / "out"
    assert run_cli("analyze", root / "alice_start.txt", root / "alice_tea.txt", "-o", out, "--jobs", "1") == 0
    tables = root / "tables"
    assert run_cli("corpus", out, "--to", "parquet", tables) == 0
    return out, tables


def test_row_counts_equal_the_per_book_outputs(two_books: tuple[Path, Path]) -> None:
    out, tables = two_books
    read = check_tables(out, tables)
    quotes = read["quotes"].to_pylist()
    assert len(quotes) > 100 and all(q["chapter"] >= 1 for q in quotes)
    alice = [q for q in quotes if q["speaker"] == "Alice"]
    assert alice and {q["speaker_gender"] for q in alice} == {"female"}
    book = orjson.loads((out / "alice_tea" / "book.json").read_bytes())
    first = next(q for q in quotes if q["book_id"] == "alice_tea")
    assert first["text"].split()[0] in book["text"][first["start"] : first["end"]]
    mention = read["mentions"].to_pylist()[0]
    assert mention["text"] and mention["character_id"]


def test_columns_and_types_are_the_documented_ones(two_books: tuple[Path, Path]) -> None:
    from fabula.corpus import COLUMNS, schema

    _, tables = two_books
    doc = DOC.read_text(encoding="utf-8")
    for name, columns in COLUMNS.items():
        table = pq.read_table(tables / f"{name}.parquet")
        assert table.schema.equals(schema(name)), name  # the written types are the declared ones
        assert table.schema.names == [column for column, _, _ in columns]
        section = doc.split(f"### `{name}.parquet`", 1)[1].split("###", 1)[0]
        documented = re.findall(r"^\| `(\w+)` \| ([\w<>]+) \|", section, flags=re.MULTILINE)
        assert documented == [(column, kind) for column, kind, _ in columns], name


def test_the_documented_duckdb_questions_run(two_books: tuple[Path, Path]) -> None:
    duckdb = pytest.importorskip("duckdb")
    _, tables = two_books
    queries = re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(queries) == 3
    results = [duckdb.sql(query.replace("'tables/", f"'{tables}/")).fetchall() for query in queries]
    shares, pairs, floor = results
    assert {row[0] for row in shares} == {"alice_start", "alice_tea"}
    assert all(0 <= (female or 0) + (male or 0) <= 100.01 for _, female, male in shares)
    assert pairs and all(lines >= 1 for *_, lines in pairs)
    assert [row[1] for row in floor] == ["Alice", "Alice"]  # she holds the floor in both excerpts


def test_not_an_analyze_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert run_cli("corpus", tmp_path / "empty", "--to", "parquet", tmp_path / "t") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fabula: error:") and "no analysed books" in err and "\n" not in err
    assert run_cli("corpus", tmp_path / "empty", "--to", "csv", tmp_path / "t") == 2


@pytest.mark.slow
def test_the_21_shared_novels_as_tables(pdnc_dir: Path, tmp_path: Path) -> None:
    """The acceptance check on the whole shared corpus: every table's rows per book equal the book's files."""
    duckdb = pytest.importorskip("duckdb")
    novels = sorted(pdnc_dir.glob("*/novel_text.txt"))
    assert len(novels) == 21
    out, tables = tmp_path / "out", tmp_path / "tables"
    assert run_cli("analyze", pdnc_dir, "-o", out, "--jobs", "2") == 0
    assert run_cli("corpus", out, "--to", "parquet", tables) == 0
    read = check_tables(out, tables)
    assert read["books"].num_rows == 21
    queries = re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    shares = duckdb.sql(queries[0].replace("'tables/", f"'{tables}/")).fetchall()
    assert len(shares) == 21
