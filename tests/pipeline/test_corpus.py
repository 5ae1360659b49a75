"""Output folder names for corpus runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula.corpus import expand_inputs, plan_jobs
from fabula.errors import InputError


def test_generic_file_names_take_the_folder_name(tmp_path: Path) -> None:
    jobs = plan_jobs(
        [
            tmp_path / "Emma" / "novel_text.txt",
            tmp_path / "Persuasion" / "novel_text.txt",
            tmp_path / "a" / "alice.txt",
            tmp_path / "b" / "alice.txt",
            tmp_path / "c" / "my book!.epub",
        ],
        tmp_path / "out",
    )
    assert [j.stem for j in jobs] == ["Emma", "Persuasion", "alice", "alice-2", "my_book"]
    assert jobs[0].folder == tmp_path / "out" / "Emma"


def test_a_folder_stands_for_the_books_in_it(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    for name in ("b/novel_text.txt", "a/novel_text.txt", "a/character_info.csv", "c.EPUB"):
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_text("x")
    single = tmp_path / "single.txt"
    assert expand_inputs([corpus, single]) == [
        corpus / "a" / "novel_text.txt",
        corpus / "b" / "novel_text.txt",
        corpus / "c.EPUB",
        single,  # a file is taken as named (a missing one fails later, on its own)
    ]
    (tmp_path / "nothing").mkdir()
    with pytest.raises(InputError, match=r"no \.txt or \.epub"):
        expand_inputs([tmp_path / "nothing"])


def test_a_book_named_twice_is_one_book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`fabula serve alice.txt ./alice.txt` served it twice (alice, alice-2), `analyze` analysed it twice."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("x")
    (corpus / "b.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    found = expand_inputs(["corpus/b.txt", corpus, "./corpus/b.txt", tmp_path / "corpus" / ".." / "corpus"])
    assert found == [Path("corpus/b.txt"), corpus / "a.txt"]
    assert [j.stem for j in plan_jobs(found, tmp_path / "out")] == ["b", "a"]
