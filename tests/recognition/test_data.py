"""The project's own evaluation set (data/recognize): well formed, and every fact checked against the book."""

from __future__ import annotations

import re
from collections import Counter

import orjson

from fabula.recognition import load_pairs, load_questions
from tests.conftest import ROOT, pdnc_novel_dir

DATA = ROOT / "data" / "recognize"
FROZEN = {
    "AnneOfGreenGables",
    "HowardsEnd",
    "Persuasion",
    "TheAgeOfInnocence",
    "TheInvisibleMan",
    "ThePictureOfDorianGray",
    "TheSunAlsoRises",
}


def test_sixty_descriptions_of_tuning_novels_in_both_directions() -> None:
    pairs = load_pairs(DATA / "pairs.jsonl")
    assert len(pairs) >= 60 and not {p.book for p in pairs} & FROZEN
    questions = [q for q in load_questions(DATA / "questions.jsonl")]
    assert Counter(q.direction for q in questions) == {"desc2name": len(pairs), "name2desc": len(pairs)}
    for q in questions:  # no description names the character it describes
        if q.direction == "desc2name":
            right = q.options[q.answer]
            assert not any(
                w in q.query.split()
                for w in right.split()
                if w[0].isupper() and w not in ("Mr.", "Mrs.", "Miss", "Dr.")
            ), q.id


def test_every_description_has_its_check_in_the_book() -> None:
    for line in (DATA / "pairs.jsonl").read_text(encoding="utf-8").splitlines():
        row = orjson.loads(line)
        text = (pdnc_novel_dir(row["book"]) / "novel_text.txt").read_text(encoding="utf-8", errors="replace")
        assert re.search(row["check"], " ".join(text.split())), (row["character"], row["check"])
