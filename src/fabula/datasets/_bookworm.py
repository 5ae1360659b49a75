"""The BookWorm release's book lists (Papoudakis et al., 2024; ``data/books.tsv`` and
``data/splits/{description,analysis}/{train,val,test}.tsv`` of the authors' repository): which Gutenberg
books belong to which task and split. The descriptions and analyses themselves are not in the release
(they come from literature websites): a user pairs these lists with their own local copy.

``books.tsv``: ``Id  Title  Author`` (tab-separated, a header line); a split file: ``BookId  Title
Author``. Ids are Project Gutenberg ebook numbers.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from fabula.errors import InputError

BOOKWORM_TASKS = ("description", "analysis")
BOOKWORM_SPLITS = ("train", "val", "test")


@dataclass(frozen=True, slots=True)
class BookwormBook:
    """One book of a BookWorm list: its Gutenberg id, title and author."""

    gutenberg_id: int
    title: str
    author: str


def read_bookworm_list(path: Path) -> list[BookwormBook]:
    """A ``books.tsv`` or split file, in file order; a bad file is one `InputError` naming it and the line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read BookWorm list: {exc.strerror}", path) from exc
    rows = list(csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows or [c.strip() for c in rows[0][:1]] not in (["Id"], ["BookId"]) or len(rows[0]) != 3:
        raise InputError(
            "not a BookWorm list: the header must be 'Id|BookId, Title, Author' (tab-separated)", path
        )
    books: list[BookwormBook] = []
    for number, row in enumerate(rows[1:], start=2):
        if not row or not "".join(row).strip():
            continue
        if len(row) != 3 or not row[0].strip().isdigit():
            raise InputError(f"line {number}: expected a numeric id, a title and an author", path)
        books.append(BookwormBook(int(row[0]), row[1].strip(), row[2].strip()))
    return books


def bookworm_split(root: Path, task: str, split: str) -> list[BookwormBook]:
    """The books of ``task``'s ``split`` under a BookWorm ``data`` folder (``root/splits/TASK/SPLIT.tsv``),
    each checked against ``root/books.tsv`` when that file is there."""
    if task not in BOOKWORM_TASKS:
        raise InputError(f"unknown BookWorm task {task!r} (choose from {', '.join(BOOKWORM_TASKS)})", root)
    if split not in BOOKWORM_SPLITS:
        raise InputError(f"unknown BookWorm split {split!r} (choose from {', '.join(BOOKWORM_SPLITS)})", root)
    books = read_bookworm_list(root / "splits" / task / f"{split}.tsv")
    catalogue = root / "books.tsv"
    if catalogue.is_file():
        known = {b.gutenberg_id for b in read_bookworm_list(catalogue)}
        missing = [b.gutenberg_id for b in books if b.gutenberg_id not in known]
        if missing:
            raise InputError(f"{task}/{split}: ids not in books.tsv: {missing[:5]}", catalogue)
    return books
