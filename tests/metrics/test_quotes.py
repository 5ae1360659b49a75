"""The PDNC quote metrics (detection matching, attribution by type) on hand-made spans."""

from __future__ import annotations

from dataclasses import dataclass

from fabula.book import Character, Span
from fabula.metrics import attribution_accuracy, best_overlap, match_quotes, quote_detection, same_character


@dataclass
class Q:
    spans: list[Span]

    @property
    def start(self) -> int:
        return self.spans[0].start

    @property
    def end(self) -> int:
        return self.spans[-1].end


def q(*pairs: tuple[int, int]) -> Q:
    return Q([Span(a, b) for a, b in pairs])


GOLD = [q((0, 10)), q((20, 30), (40, 50)), q((60, 70)), q((100, 110))]
PREDICTED = [q((2, 8)), q((9, 25)), q((45, 48)), q((65, 75)), q((80, 90))]


def test_one_to_one_matching_in_text_order() -> None:
    # gold 0 takes the first overlapping prediction (0), gold 1 the next unused one (1: 20-25 overlaps),
    # gold 2 takes 3; gold 3 has none; predictions 2 and 4 stay unmatched
    assert match_quotes(GOLD, PREDICTED) == {0: 0, 1: 1, 2: 3, 3: None}
    prf = quote_detection(GOLD, PREDICTED)
    # 3 matched of 5 predicted and 4 gold: P = 0.6, R = 0.75, F1 = 0.9/1.35 = 2/3
    assert (prf.precision, prf.recall) == (0.6, 0.75)
    assert abs((prf.f1 or 0) - 2 / 3) < 1e-12


def test_attribution_uses_the_largest_overlap() -> None:
    best = best_overlap(GOLD, PREDICTED)
    # gold 0 (0-10): prediction 0 shares 6 characters, prediction 1 shares 1 -> prediction 0
    # gold 1 (20-30 + 40-50): prediction 1 shares 5, prediction 2 shares 3 -> prediction 1
    assert best == [PREDICTED[0], PREDICTED[1], PREDICTED[3], None]


def test_attribution_accuracy_by_type() -> None:
    scores = attribution_accuracy(
        [True, False, True, True, False], ["explicit", "explicit", "anaphoric", "implicit", "other"]
    )
    assert scores.as_dict() == {"accuracy": 0.6, "explicit": 0.5, "anaphoric": 1.0, "implicit": 1.0}
    assert (scores.overall.right, scores.overall.total) == (3, 5)
    empty = attribution_accuracy([], [])
    assert empty.as_dict() == {"accuracy": None, "explicit": None, "anaphoric": None, "implicit": None}


def test_same_character_by_shared_name() -> None:
    gold = Character(id="g", name="Elizabeth Bennet", aliases={"Lizzy": 1, "Miss Bennet": 1})
    assert same_character(Character(id="p", name="lizzy "), gold)
    assert not same_character(Character(id="p", name="Jane Bennet"), gold)
