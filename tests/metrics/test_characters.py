"""Character recall / merge / split / alias recall on a hand-made cast, worked out by hand."""

from __future__ import annotations

from collections import Counter

from fabula.book import Character
from fabula.metrics import score_characters

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
