"""Output folder names for corpus runs."""

from __future__ import annotations

from pathlib import Path

from fabula.pipeline._corpus import plan_jobs


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
