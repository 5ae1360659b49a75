"""Discovery's generation-mark patterns (`_COUPLE`, `_ELDER_MARK`, `_YOUNGER_MARK`) open with their first
letter and check the word boundary afterwards, so `re` skips to those letters: they must find exactly what
the plain patterns they replaced (``\\b`` first, which made `re` try every offset of a novel) found, on the
shared novels and on edge cases (a boundary at the text's start, after a hyphen or a digit, overlapping
marks, line breaks inside a mark)."""

from __future__ import annotations

import random
import re
from collections import Counter

from fabula.characters._discover._evidence import _COUPLE, _ELDER_MARK, _YOUNGER_MARK
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


def _found(text: str) -> tuple[Counter[str], dict[int, tuple[int, int]]]:
    """What `_elders` and `_younger_marks` read of ``text`` with the shipped patterns."""
    elders = Counter(m.group(1) for m in _COUPLE.finditer(text))
    elders.update(m.group(1) or m.group(2) for m in _ELDER_MARK.finditer(text))
    younger = {(m.start(1) if m.lastindex else m.start()): m.span() for m in _YOUNGER_MARK.finditer(text)}
    return elders, younger


def _plain(text: str) -> tuple[Counter[str], dict[int, tuple[int, int]]]:
    elders = Counter(m.group(1) for m in _PLAIN_COUPLE.finditer(text))
    elders.update(m.group(1) or m.group(2) for m in _PLAIN_ELDER.finditer(text))
    younger = {m.start(m.lastindex or 1): m.span() for m in _PLAIN_YOUNGER.finditer(text)}
    return elders, younger


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


def test_edge_cases() -> None:
    text = (
        "Mr. and Mrs. Vance came. xMr. and Mrs. Nobody. old Mr. Tobias Vance, senior, and Old Mr. Hale; "
        "the elder Mr.\nGray and The  elder Mr Gray. Mr. Hale, Sr. said 3Mr. Ames, senior. Bold Mr. Cole. "
        "young Mr. Vance, Jr. and the younger Mr. Hale-Smith; Young Mr. Dale, junior; Mr. Dale, Jun. "
        "-Mr. Kent, Jr.x Mr. Kent, jr. well. Mr. and Mrs.\n\nVance. Theyoung Mr. Ames. The younger Mr. Ames"
    )
    assert _found(text) == _plain(text)
    for text_start in ("Mr. and Mrs. Vance", "old Mr. Vance", "young Mr. Vance", "Mr. Vance, Jr."):
        assert _found(text_start) == _plain(text_start)
        assert _found(text_start) != (Counter(), {})  # a mark at the very start of the text is found
    elders, younger = _found(text)
    # no boundary before "Mr." in "xMr." or "3Mr.", nor before "old" in "Bold"; a line break is white space
    assert elders == Counter({"Vance": 2, "Hale": 2, "Gray": 2})
    assert len(younger) == 7


def test_random_texts_from_the_marks_words() -> None:
    words = [
        "Mr.", "Mr", "Mrs.", "and", "old", "Old", "the", "The", "elder", "younger", "young", "Young",
        "Vance", "Hale-Smith", "senior", "Sr.", "Sen.", "Jr.", "Jr", "junior", "Jun.", "x", "3", "-",
        ",", ".", "\n", "\n\n", " ", "  ", "Bold", "oldMr.", "é",
    ]  # fmt: skip
    rng = random.Random(29)
    for _ in range(3000):
        text = "".join(
            rng.choice(words) + rng.choice(["", " ", ",", "\n"]) for _ in range(rng.randint(1, 30))
        )
        for new, plain in ((_COUPLE, _PLAIN_COUPLE), (_ELDER_MARK, _PLAIN_ELDER)):
            assert _spans(new, text) == _spans(plain, text), text
        assert _found(text) == _plain(text), text


def test_the_shared_novels() -> None:
    pdnc_novel_dir("Emma")  # skips when the shared data is absent
    marks = 0
    for path in sorted(PDNC_DIR.glob("*/novel_text.txt")):
        text = path.read_text(encoding="utf-8")
        found = _found(text)
        assert found == _plain(text), path.parent.name
        marks += sum(found[0].values()) + len(found[1])
    assert marks > 30  # the novels do hold such marks
