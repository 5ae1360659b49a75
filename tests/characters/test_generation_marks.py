"""Discovery's generation marks (`_elders`, `_younger_marks`) are found fast in two ways, both of which must
find exactly what the plain patterns (``\\b`` first, which made `re` try every offset of a novel) found:
the patterns open with their first letter and check the word boundary afterwards, and `_marks` tries them
only at each "Mr" and the opener right before one. Checked on the shared novels, on random texts made of
the marks' words, and on edge cases (a boundary at the text's start, after a hyphen or a digit, overlapping
marks, line breaks inside a mark)."""

from __future__ import annotations

import random
import re
from collections import Counter

from fabula.book import book_from_text
from fabula.characters._discover._evidence import (
    _COUPLE,
    _ELDER_MARK,
    _ELDER_OPENERS,
    _MR,
    _YOUNGER_MARK,
    _YOUNGER_OPENERS,
    _elders,
    _marks,
    _younger_marks,
)
from tests.conftest import PDNC_DIR, pdnc_novel_dir

_PLAIN_COUPLE = re.compile(r"\bMr\.?\s+and\s+Mrs\.?\s+([A-Z][\w-]*)(?![\w-]|\s+[A-Z])")
_PLAIN_ELDER = re.compile(
    r"\b(?:[Oo]ld|[Tt]he\s+elder)\s+Mr\.?\s+([A-Z][\w-]*)(?![\w-]|\s+[A-Z])"
    r"|\bMr\.?\s+([A-Z][\w-]*),?\s+(?:[Ss]enior|[Ss]en\.|[Ss]r\.)"
)
_PLAIN_YOUNGER = re.compile(
    r"\b(?:[Yy]oung|[Tt]he\s+younger)\s+(Mr\.?)\s+[A-Z][\w-]*(?![\w-]|\s+[A-Z])"
    r"|\b(Mr\.?)\s+[A-Z][\w-]*,?\s+(?:[Jj]unior|[Jj]un\.|[Jj]r\.?)(?!\w)"
)


def _marks_of(text: str) -> tuple[Counter[str], dict[int, tuple[int, int]]]:
    """The elders' surnames and the younger marks (start of the "Mr." -> span) of ``text``, as `_elders`
    and `_younger_marks` read a book's body: the shipped patterns through `_marks`."""
    mrs = [m.start() for m in _MR.finditer(text)]
    elders = Counter(m.group(1) for m in _COUPLE.finditer(text))
    elders.update(m.group(1) or m.group(2) for m in _marks(_ELDER_MARK, text, mrs, _ELDER_OPENERS))
    younger = {
        (m.start(1) if m.lastindex else m.start()): m.span()
        for m in _marks(_YOUNGER_MARK, text, mrs, _YOUNGER_OPENERS)
    }
    return elders, younger


def _plain(text: str) -> tuple[Counter[str], dict[int, tuple[int, int]]]:
    elders = Counter(m.group(1) for m in _PLAIN_COUPLE.finditer(text))
    elders.update(m.group(1) or m.group(2) for m in _PLAIN_ELDER.finditer(text))
    younger = {m.start(m.lastindex or 1): m.span() for m in _PLAIN_YOUNGER.finditer(text)}
    return elders, younger


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


def _check(text: str) -> tuple[Counter[str], dict[int, tuple[int, int]]]:
    for new, plain in ((_COUPLE, _PLAIN_COUPLE), (_ELDER_MARK, _PLAIN_ELDER)):
        assert _spans(new, text) == _spans(plain, text), text
    mrs = [m.start() for m in _MR.finditer(text)]
    for pattern, openers in ((_ELDER_MARK, _ELDER_OPENERS), (_YOUNGER_MARK, _YOUNGER_OPENERS)):
        tried = [(m.span(), m.groups()) for m in _marks(pattern, text, mrs, openers)]
        assert tried == _spans(pattern, text), text  # fewer places tried, the same matches
    found = _marks_of(text)
    assert found == _plain(text), text
    return found


def test_edge_cases() -> None:
    text = (
        "Mr. and Mrs. Vance came. xMr. and Mrs. Nobody. old Mr. Tobias Vance, senior, and Old Mr. Hale; "
        "the elder Mr.\nGray and The  elder Mr Gray. Mr. Hale, Sr. said 3Mr. Ames, senior. Bold Mr. Cole. "
        "young Mr. Vance, Jr. and the younger Mr. Hale-Smith; Young Mr. Dale, junior; Mr. Dale, Jun. "
        "-Mr. Kent, Jr.x Mr. Kent, jr. well. Mr. and Mrs.\n\nVance. Theyoung Mr. Ames. The younger Mr. Ames"
    )
    elders, younger = _check(text)
    # no boundary before "Mr." in "xMr." or "3Mr.", nor before "old" in "Bold"; a line break is white space
    assert elders == Counter({"Vance": 2, "Hale": 2, "Gray": 2})
    assert len(younger) == 7
    for text_start in ("Mr. and Mrs. Vance", "old Mr. Vance", "young Mr. Vance", "Mr. Vance, Jr."):
        assert _check(text_start) != (Counter(), {})  # a mark at the very start of the text is found
    book = book_from_text("CHAPTER I\n\nThe elder Mr. Gray met young Mr. Vance and Mr. Hale, Jr. there.\n")
    body_start = book.body.start
    body = book.text[body_start : book.body.end]
    elders, younger = _marks_of(body)
    assert _elders(book) == elders == Counter({"Gray": 1})
    assert _younger_marks(book) == {
        at + body_start: (a + body_start, b + body_start) for at, (a, b) in younger.items()
    }
    assert len(younger) == 2


def test_random_texts_from_the_marks_words() -> None:
    words = [
        "Mr.", "Mr", "Mrs.", "and", "old", "Old", "the", "The", "elder", "younger", "young", "Young",
        "Vance", "Hale-Smith", "senior", "Sr.", "Sen.", "Jr.", "Jr", "junior", "Jun.", "x", "3", "-",
        ",", ".", "\n", "\n\n", " ", "  ", "Bold", "oldMr.", "é", "\u00a0", "\t",
    ]  # fmt: skip
    rng = random.Random(29)
    for _ in range(3000):
        text = "".join(
            rng.choice(words) + rng.choice(["", " ", ",", "\n"]) for _ in range(rng.randint(1, 30))
        )
        _check(text)


def test_the_shared_novels() -> None:
    pdnc_novel_dir("Emma")  # skips when the shared data is absent
    marks = 0
    for path in sorted(PDNC_DIR.glob("*/novel_text.txt")):
        elders, younger = _check(path.read_text(encoding="utf-8"))
        marks += sum(elders.values()) + len(younger)
    assert marks > 30  # the novels do hold such marks
