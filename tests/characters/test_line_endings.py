"""A book's cast does not depend on how its lines end or how its spaces are typeset: a Windows (CRLF)
or old Mac (CR) copy of a novel, or one with no-break spaces after its titles (as ebooks have them),
gets the cast of its plain original (discovery reads `fabula.book.plain_view`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fabula.book import line_feed_view, load_book, plain_view
from fabula.characters import find_characters
from tests.conftest import pdnc_novel_dir


def _cast(path: Path) -> list[tuple[str, list[str], str]]:
    book = load_book(path)
    return [(c.name, sorted(c.aliases), c.gender) for c in find_characters(book)]


def test_the_view_keeps_every_offset() -> None:
    text = "Mr. Vance\r\nQuill said.\r\n\r\nOld\rMac."
    view = line_feed_view(text)
    assert len(view) == len(text)
    assert view == "Mr. Vance \nQuill said. \n \nOld\nMac."
    assert line_feed_view("no breaks\nbut LF") == "no breaks\nbut LF"


@pytest.mark.parametrize("ending", ["\r\n", "\r"])
def test_a_crlf_or_cr_copy_of_a_novel_has_the_same_cast(tmp_path: Path, ending: str) -> None:
    text = (pdnc_novel_dir("AlicesAdventuresInWonderland") / "novel_text.txt").read_text(encoding="utf-8")
    original, copy = tmp_path / "lf.txt", tmp_path / "copy.txt"
    original.write_text(text, encoding="utf-8", newline="")
    copy.write_text(text.replace("\n", ending), encoding="utf-8", newline="")
    # before the view, a CRLF copy gained the aliases "the Mock" and "the White" (a name's words never
    # ran over "\r\n"), and a CR copy lost "Bill" and the Queen to junk entries
    assert _cast(copy) == _cast(original)


def test_the_plain_view_keeps_every_offset() -> None:
    text = "Mr.\u00a0Vance\r\nsaid\u2009so,\u202fand left.\u3000"
    view = plain_view(text)
    assert len(view) == len(text)
    assert view == "Mr. Vance \nsaid so, and left.\u3000"  # the ideographic space indents Chinese text: kept
    assert plain_view("plain text\n") == "plain text\n"


def test_a_copy_with_no_break_spaces_after_titles_has_the_same_cast(tmp_path: Path) -> None:
    text = (pdnc_novel_dir("PrideAndPrejudice") / "novel_text.txt").read_text(encoding="utf-8")
    original, copy = tmp_path / "plain.txt", tmp_path / "ebook.txt"
    original.write_text(text, encoding="utf-8")
    typeset = re.sub(r"\b(Mr|Mrs|Miss|Lady|Sir|Colonel)(\.?) (?=[A-Z])", "\\1\\2\u00a0", text)
    assert typeset.count("\u00a0") > 1000
    copy.write_text(typeset, encoding="utf-8")
    # before the view, every "Mr.\u00a0X" lost its title: the family's Mr., Mrs. and Miss were one entry
    assert _cast(copy) == _cast(original)
