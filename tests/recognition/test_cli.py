"""``fabula recognize`` (one description, ranked characters) and ``fabula recognize make``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from fabula.recognition import load_questions
from tests.conftest import run_cli
from tests.recognition.conftest import STORY


def test_recognize_ranks_characters_with_passages(story_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    code = run_cli(
        "recognize",
        story_path,
        "A woman who bakes bread and cakes in her shop.",
        "--json",
        out,
        "--method",
        "bm25",
    )
    assert code == 0
    ranked = orjson.loads(out.read_bytes())["ranked"]
    assert "Ashby" in ranked[0]["character"] and any("bread" in p for p in ranked[0]["passages"])


def test_make_writes_questions_of_both_directions(tmp_path: Path) -> None:
    folder = tmp_path / "TheTown"
    folder.mkdir()
    (folder / "novel_text.txt").write_text(STORY, encoding="utf-8")
    pairs = tmp_path / "pairs.jsonl"
    people = ["Mr. Thornton", "Margaret Hale"]
    pairs.write_text(
        "".join(
            orjson.dumps({"book": "TheTown", "character": p, "description": f"About {i}."}).decode() + "\n"
            for i, p in enumerate(people)
        )
    )
    out = tmp_path / "q.jsonl"
    assert (
        run_cli("recognize", "make", "--pairs", pairs, folder / "novel_text.txt", "-o", out, "--options", "2")
        == 0
    )
    questions = load_questions(out)
    assert {q.direction for q in questions} == {"desc2name", "name2desc"} and len(questions) == 4
    assert all(q.book == (folder / "novel_text.txt").resolve() for q in questions)


def test_malformed_question_file_is_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fabula.recognition import load_questions as load

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1"}\n')
    with pytest.raises(Exception, match=r"bad.jsonl: line 1: missing field 'book'"):
        load(bad)
