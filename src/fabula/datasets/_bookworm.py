"""The BookWorm release's book lists (Papoudakis et al., 2024; ``data/books.tsv`` and
``data/splits/{description,analysis}/{train,val,test}.tsv`` of the authors' repository): which Gutenberg
books belong to which task and split. The descriptions and analyses themselves are not in the release
(they come from literature websites): a user pairs these lists with their own local copy.

``books.tsv``: ``Id  Title  Author`` (tab-separated, a header line); a split file: ``BookId  Title
Author``. Ids are Project Gutenberg ebook numbers.

`bookworm_references` reads a BookWorm ``data`` folder laid out as the release's scripts leave it: the
lists above, the books as ``corpus/books/ID/book_cleaned.txt`` (``books.py``), and the user's own copy of
the scraped texts split by ``prepare_data.py --action split`` into ``corpus/TASK/SPLIT.jsonl`` (one record a
line: ``id`` the Gutenberg id, ``character``, and the text under the task's name, ``description`` or
``analysis``).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from fabula._jsonl import read_jsonl
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


@dataclass(frozen=True, slots=True)
class BookwormReference:
    """One reference text of a BookWorm split: its book (from the lists), the book's text file, the
    character and the description or analysis."""

    book: BookwormBook
    book_path: Path
    character: str
    kind: str
    reference: str


def bookworm_references(root: Path, task: str, split: str) -> list[BookwormReference]:
    """Every reference of ``task``'s ``split`` under a BookWorm ``data`` folder, in file order: records
    from ``root/corpus/TASK/SPLIT.jsonl`` whose book is in the split file, each with its
    ``corpus/books/ID/book_cleaned.txt``. A record of a book outside the split, a missing book file or a
    malformed line is one `InputError` naming the file (no partial list)."""
    books = {b.gutenberg_id: b for b in bookworm_split(root, task, split)}
    path = root / "corpus" / task / f"{split}.jsonl"
    what = f"the {task} texts (the user's copy, split by the release's prepare_data.py)"
    references: list[BookwormReference] = []
    for number, record in read_jsonl(path, what):
        for key in ("character", task):
            if not isinstance(record.get(key), str) or not record[key].strip():
                raise InputError(f"line {number} needs a string {key!r}", path)
        raw_id = record.get("id")
        if isinstance(raw_id, bool) or not str(raw_id).strip().isdigit():
            raise InputError(f"line {number} needs the book's Gutenberg id as 'id'", path)
        book = books.get(int(str(raw_id).strip()))
        if book is None:
            raise InputError(f"line {number}: book {raw_id} is not in splits/{task}/{split}.tsv", path)
        book_path = root / "corpus" / "books" / str(book.gutenberg_id) / "book_cleaned.txt"
        if not book_path.is_file():
            raise InputError(
                f"line {number}: no book text for {book.title!r} (the release's books.py writes it)",
                book_path,
            )
        references.append(BookwormReference(book, book_path, record["character"].strip(), task, record[task]))
    return references
