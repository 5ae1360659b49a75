"""Character recall / merge / split / alias recall on a hand-made cast, worked out by hand."""

from __future__ import annotations

from collections import Counter

from fabula.book import Character
from fabula.metrics import get_metric, score_characters, score_genders

TEXT = "Elizabeth Bennet met Jane. Lizzy laughed. Mr. Darcy bowed; Darcy left."
GOLD = [
    Character(id="A", name="Elizabeth Bennet", aliases={"Lizzy": 1}, source="gold"),
    Character(id="B", name="Jane Bennet", aliases={"Jane": 1}, source="gold"),
    Character(id="C", name="Mr. Darcy", aliases={"Darcy": 1, "Fitzwilliam Darcy": 1}, source="gold"),
    Character(id="N", name="_narr", source="gold"),
]
# P1 joins Elizabeth and Jane (a merge); Jane is also P2 (a split); Darcy is P3 without "Mr. Darcy".
PREDICTED = [
    Character(id="P1", name="Elizabeth Bennet", aliases={"Elizabeth Bennet": 4, "Lizzy": 3, "Jane": 2}),
    Character(id="P2", name="Jane Bennet", aliases={"Jane Bennet": 5}),
    Character(id="P3", name="Darcy", aliases={"Darcy": 6}),
]


def test_rates_by_hand() -> None:
    scores = score_characters(TEXT, GOLD, PREDICTED, {"A", "B", "C"})
    # recall: A (P1), B (P1 and P2), C (P3) all found -> 3/3
    # merge: A's match P1 also covers B -> 1 of 3; B's best match is P2 (5 mentions under its names vs 2)
    # split: B is covered by P1 ("Jane") and P2 ("Jane Bennet") -> 1 of 3
    # alias recall over names in the text: Elizabeth Bennet, Lizzy (P1 has both), Jane (B's match P2
    # lacks it), Mr. Darcy (P3 lacks it), Darcy (P3 has it) -> 3 of 5
    assert (scores.recall, scores.merge_rate, scores.split_rate) == (1.0, 1 / 3, 1 / 3)
    assert scores.alias_recall == 3 / 5
    assert (scores.recalled, scores.merges, scores.splits, scores.missed) == (3, 1, 1, [])
    assert scores.merge_rate_substantial is None  # needs the mention counts


def test_substantial_rates_and_misses() -> None:
    counts = {
        "P1": Counter({"elizabeth bennet": 4, "lizzy": 3, "jane": 2}),
        "P2": Counter({"jane bennet": 5}),
    }
    scores = score_characters(TEXT, GOLD, PREDICTED[:2], {"A", "B", "C"}, name_counts=counts)
    # Darcy is missed; P1's two "Jane" mentions are under the substantial minimum of 3, so the merge of
    # A with B and the split of B are not substantial
    assert scores.missed == ["Mr. Darcy"] and scores.recall == 2 / 3
    assert (scores.merge_rate, scores.merge_rate_substantial) == (1 / 3, 0.0)
    assert (scores.split_rate, scores.split_rate_substantial) == (1 / 3, 0.0)
    assert scores.as_dict()["gold_characters"] == 3


def test_gender_scores_by_hand() -> None:
    scores = score_genders(
        [
            ("female", "female", 30),  # right
            ("male", "female", 10),  # wrong
            ("male", "unknown", 40),  # unknown
            ("female", "neutral", 20),  # no he/she: counted as unknown
            ("neutral", "male", 99),  # gold X: not scored
            ("unknown", "female", 99),  # gold U: not scored
        ]
    )
    # 4 scored characters: 1 right, 1 wrong, 2 unknown; by quotes (100 in all): 30 right, 10 wrong, 60 unknown
    assert (scores.gender_accuracy, scores.gender_unknown, scores.gender_wrong) == (0.25, 0.5, 0.25)
    assert (scores.gender_accuracy_quotes, scores.gender_unknown_quotes, scores.gender_wrong_quotes) == (
        0.3,
        0.6,
        0.1,
    )
    assert scores.gendered == 4
    assert get_metric("gender_scores") is score_genders
    empty = score_genders([("neutral", "male", 5)])
    assert (empty.gender_accuracy, empty.gender_accuracy_quotes, empty.gendered) == (None, None, 0)


def test_matches_carry_genders() -> None:
    gold = [
        Character(id="A", name="Elizabeth Bennet", aliases={"Lizzy": 1}, gender="female", source="gold"),
        *GOLD[1:],
    ]
    predicted = [
        Character(id="P1", name="Elizabeth Bennet", aliases={"Lizzy": 3}, gender="male"),
        *PREDICTED[1:],
    ]
    matches = {m["gold_id"]: m for m in score_characters(TEXT, gold, predicted, {"A", "B", "C"}).matches}
    assert (matches["A"]["gold_gender"], matches["A"]["predicted_gender"]) == ("female", "male")
    assert (matches["C"]["gold_gender"], matches["C"]["predicted_gender"]) == ("unknown", "unknown")
