"""The project's own evaluation set (data/recognize): well formed, and every fact checked against the book."""

from __future__ import annotations

import re
from collections import Counter

import orjson
import pytest

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


@pytest.mark.parametrize("pairs_file", ["pairs.frozen.jsonl", "pairs.frozen2.jsonl"])
def test_the_frozen_parts_are_about_frozen_novels_only_and_every_fact_is_in_the_book(pairs_file: str) -> None:
    """data/recognize/pairs.frozen*.jsonl: written like the tuning pairs, about frozen-split novels only, each
    check found in its book; the matching questions file holds both directions of every pair."""
    pairs = load_pairs(DATA / pairs_file)
    assert len(pairs) >= 20 and {p.book for p in pairs} <= FROZEN
    assert all(p.level in (1, 2, 3, 4) for p in pairs)
    questions = load_questions(DATA / pairs_file.replace("pairs", "questions"))
    assert Counter(q.direction for q in questions) == {"desc2name": len(pairs), "name2desc": len(pairs)}
    for line in (DATA / pairs_file).read_text(encoding="utf-8").splitlines():
        row = orjson.loads(line)
        text = (pdnc_novel_dir(row["book"]) / "novel_text.txt").read_text(encoding="utf-8", errors="replace")
        assert re.search(row["check"], " ".join(text.split())), (row["character"], row["check"])


def test_the_frozen_parts_do_not_overlap_and_every_book_has_ten_described_characters() -> None:
    """Each frozen file covers its own novels (so their numbers add up), and Name2Desc needs ten
    descriptions of one book."""
    books = [{p.book for p in load_pairs(DATA / f)} for f in ("pairs.frozen.jsonl", "pairs.frozen2.jsonl")]
    assert not books[0] & books[1]
    for name in ("pairs.jsonl", "pairs.frozen.jsonl", "pairs.frozen2.jsonl"):
        counts = Counter(p.book for p in load_pairs(DATA / name))
        assert min(counts.values()) >= 10, (name, counts)


@pytest.mark.parametrize(
    "questions_file", ["questions.jsonl", "questions.frozen.jsonl", "questions.frozen2.jsonl"]
)
def test_no_desc2name_description_names_its_answer(questions_file: str) -> None:
    """The answer's own name words (titles aside) are not in the description."""
    titles = {"Mr.", "Mrs.", "Miss", "Dr.", "Lady", "Lord", "Sir", "Madame", "Mademoiselle", "Monsieur", "M."}
    for q in load_questions(DATA / questions_file):
        if q.direction == "desc2name":
            words = [w for w in q.options[q.answer].split() if w[0].isupper() and w not in titles]
            assert not any(w in q.query.split() for w in words), q.id


def test_levels_follow_the_paper_s_definitions() -> None:
    """GANDALF's levels: a level-1 description refers to no other character, so none names one of the
    book's other described characters; level 2 names one."""
    for name in ("pairs.jsonl", "pairs.frozen.jsonl", "pairs.frozen2.jsonl"):
        pairs = load_pairs(DATA / name)
        assert all(p.level in (1, 2, 3, 4) for p in pairs), name
        for pair in pairs:
            others = {
                p.character.split()[-1]
                for p in pairs
                if p.book == pair.book and p.character != pair.character
            }
            if pair.level == 1:
                assert not any(re.search(rf"\b{re.escape(o)}\b", pair.description) for o in others), (
                    pair.character
                )
