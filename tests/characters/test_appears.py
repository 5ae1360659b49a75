"""`hide_unseen_names`'s whole-word search (`_appears`): the same answer as the plain pattern it replaced
(a look-behind first, which made `re` try every offset of a novel), on a real novel's names and on edge
cases."""

from __future__ import annotations

import ast
import csv
import re

from fabula.characters._component import _appears
from tests.conftest import pdnc_novel_dir


def _reference(text: str, name: str) -> bool:
    name = name.strip()
    if not name:
        return False
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(part) for part in name.split()) + r"(?!\w)"
    return re.search(pattern, text) is not None


def test_whole_words_with_any_white_space_between_them() -> None:
    text = "Mr.  Knight\nley came; xEmma and Emmax did not. Ann-Marie wrote\tto Miss\u00a0Bates."
    cases = {
        "Mr. Knight ley": True,
        "Knight": True,
        "Emma": False,  # only inside longer words
        "Mr.": True,
        "Ann-Marie": True,
        "Marie": True,  # after a hyphen: not a word character
        "Miss Bates.": True,
        "Miss Bates": True,
        "Bates. x": False,
        "ley": True,  # after a newline
        "": False,
        "   ": False,
        "M": False,
        "did not.": True,
    }
    for name, expected in cases.items():
        assert _appears(text, name) is expected, name
        assert _reference(text, name) is expected, name
    assert _appears("Emma came", "Emma") and not _appears("Emma", "Emma came")  # at the very start


def _novel_prefix_and_names() -> tuple[str, set[str]]:
    """A shared novel's first 200,000 characters and its gold list's names and aliases."""
    folder = pdnc_novel_dir("Emma")
    text = (folder / "novel_text.txt").read_text(encoding="utf-8")[:200_000]
    names: set[str] = set()
    with (folder / "character_info.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            names.add(row["Main Name"])
            names.update(ast.literal_eval(row["Aliases"]))
    return text, names


def test_same_answers_as_the_plain_pattern_on_a_novel_prefix() -> None:
    text, names = _novel_prefix_and_names()
    names |= {name.lower() for name in names} | {name + "s" for name in names}
    answers = {name: _appears(text, name) for name in names}
    assert answers == {name: _reference(text, name) for name in names}
    assert 0 < sum(answers.values()) < len(answers)  # both answers occur


def test_a_mention_where_the_name_stands_alone_answers_like_the_search() -> None:
    """`_whole_words_at` (a mention's place, checked in constant time) says true only where `_appears` does:
    at every place in a novel's prefix where one of its names is written, and at the edge cases above."""
    from fabula.characters._component import _whole_words_at

    text = "Mr.  Knight\nley came; xEmma and Emmax did not. Ann-Marie wrote\tto Miss\u00a0Bates. Emma"
    for name in ("Emma", "Mr.", "Knight", "Marie", "Ann-Marie", "Miss Bates", "", "did not.", "M"):
        for at in range(len(text)):
            if _whole_words_at(text, name, at):
                assert _appears(text, name), (name, at)
    assert _whole_words_at(text, "Emma", len(text) - 4) and not _whole_words_at(
        text, "Emma", text.index("xEmma") + 1
    )
    text, names = _novel_prefix_and_names()
    witnessed = 0
    for name in names:
        places = [m.start() for m in re.finditer(re.escape(name), text)] if name.strip() else []
        if any(_whole_words_at(text, name, at) for at in places):
            witnessed += 1
            assert _appears(text, name), name
    assert witnessed > 10
