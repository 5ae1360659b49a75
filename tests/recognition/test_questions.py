"""The question format: a strict loader, and a generator that never places the right option twice."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from fabula.errors import InputError
from fabula.recognition import Pair, load_questions, make_questions, write_questions

GOOD = {
    "id": "q1",
    "book": "story.txt",
    "direction": "desc2name",
    "level": 1,
    "description": "A mill owner.",
    "options": ["Mr. Thornton", "Dr. Pemble"],
    "answer": 0,
}


def _write(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else orjson.dumps(r).decode() for r in rows) + "\n")
    return path


def test_loads_a_good_file_and_resolves_the_book(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD, {**GOOD, "id": "q2", "direction": "name2desc", "name": "Mr. Thornton"})
    first, second = load_questions(path)
    assert first.book == (tmp_path / "story.txt").resolve()
    assert first.query == "A mill owner." and first.options[first.answer] == "Mr. Thornton"
    assert second.direction == "name2desc" and second.query == "Mr. Thornton"


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ("{not json", "is not JSON"),
        ({**GOOD, "answer": 5}, "'answer' must be an index"),
        ({k: v for k, v in GOOD.items() if k != "options"}, "missing field 'options'"),
        ({**GOOD, "direction": "sideways"}, "direction must be"),
        ({**GOOD, "description": ""}, "needs a non-empty 'description'"),
        ({**GOOD, "options": ["Mr. Thornton", "Mr. Thornton"]}, "same option twice"),
        ({**GOOD, "level": 9}, "'level' must be"),
        ([1, 2], "is not a JSON object"),
    ],
)
def test_a_malformed_line_names_the_file_and_line(tmp_path: Path, bad: object, problem: str) -> None:
    path = _write(tmp_path, {**GOOD, "id": "ok"}, bad)
    with pytest.raises(InputError) as caught:
        load_questions(path)
    assert f"{path}: line 2" in str(caught.value) and problem in str(caught.value)


def test_generation_never_places_the_right_option_twice(tmp_path: Path) -> None:
    names = [f"Person {i}" for i in range(15)]
    pairs = [Pair("b", name, f"Description of {name}, number {i}.", 1) for i, name in enumerate(names[:11])]
    # the candidate list repeats described characters, in other spellings too
    candidates = {"b": [*names, "person 3", "PERSON 4 ", *names[:5]]}
    for seed in range(30):
        questions = make_questions(pairs, {"b": tmp_path / "b.txt"}, candidates, seed=seed)
        assert len(questions) == 22
        for q in questions:
            keys = [" ".join(o.casefold().split()) for o in q.options]
            assert len(q.options) == 10 and len(set(keys)) == 10
            right = keys[q.answer]
            assert keys.count(right) == 1
            pair = pairs[int(q.id.split("-")[1]) - 1]
            assert q.options[q.answer] == (pair.character if q.direction == "desc2name" else pair.description)


def test_generation_is_reproducible_and_round_trips_through_a_file(tmp_path: Path) -> None:
    pairs = [Pair("b", f"P{i}", f"Text {i}.", None) for i in range(10)]
    books = {"b": tmp_path / "b.txt"}
    one = make_questions(pairs, books, {}, seed=7)
    assert one == make_questions(pairs, books, {}, seed=7)
    assert one != make_questions(pairs, books, {}, seed=8)
    write_questions(tmp_path / "q.jsonl", one)
    assert load_questions(tmp_path / "q.jsonl") == [
        q.__class__(q.id, q.book.resolve(), q.direction, q.query, q.options, q.answer, q.level) for q in one
    ]


def test_too_few_characters_is_a_clear_error(tmp_path: Path) -> None:
    pairs = [Pair("b", f"P{i}", f"Text {i}.", None) for i in range(3)]
    with pytest.raises(InputError, match="only 2 distractors"):
        make_questions(pairs, {"b": tmp_path / "b.txt"}, {}, seed=0)


def test_a_book_reached_through_a_link_keeps_the_link_in_its_written_path(tmp_path: Path) -> None:
    """A worktree reaches the shared data through a link beside it (``../shared``); the written path goes
    through that link, so the file works from any checkout (it once went through the link's target and was
    one ``../`` too deep)."""
    (tmp_path / "real" / "books").mkdir(parents=True)
    (tmp_path / "real" / "books" / "b.txt").write_text("Text.", encoding="utf-8")
    (tmp_path / "checkouts" / "wt" / "data").mkdir(parents=True)
    (tmp_path / "checkouts" / "shared").symlink_to(tmp_path / "real")
    book = tmp_path / "checkouts" / "wt" / ".." / "shared" / "books" / "b.txt"
    pairs = [Pair("b", f"P{i}", f"Text {i}.", None) for i in range(10)]
    out = tmp_path / "checkouts" / "wt" / "data" / "q.jsonl"
    write_questions(out, make_questions(pairs, {"b": book}, {}, seed=0))
    first = orjson.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert first["book"] == "../../shared/books/b.txt"
    assert load_questions(out)[0].book == (tmp_path / "real" / "books" / "b.txt").resolve()
