"""Recap ranking metrics against values computed by hand."""

from __future__ import annotations

import pytest

from fabula.metrics import (
    f1_at_5,
    free_f1,
    free_precision,
    free_recall,
    get_metric,
    harmonic_mean,
    precision_at_5,
    recall_at_5,
    recall_by_distance,
)


def test_at_5_by_hand():
    ranked = [9, 8, 7, 6, 5, 4, 3]
    gold = [8, 5, 1]
    assert recall_at_5(ranked, gold) == pytest.approx(2 / 3)  # 8 and 5 found, 1 missed
    assert precision_at_5(ranked, gold) == pytest.approx(2 / 5)
    assert recall_at_5(ranked, []) is None
    assert precision_at_5(ranked, []) == 0.0


def test_f1_averages_first_then_combines():
    rankings = [[9, 8, 7, 6, 5], [1, 2, 3, 4, 5]]
    golds = [[9], [6, 7]]
    # target 1: P 1/5, R 1; target 2: P 0, R 0 -> mean P 0.1, mean R 0.5 -> F1 = 2*.1*.5/.6
    assert f1_at_5(rankings, golds) == pytest.approx(2 * 0.1 * 0.5 / 0.6)
    assert harmonic_mean(0.0, 0.0) == 0.0
    assert harmonic_mean(None, 0.5) is None


def test_free_selection_by_hand():
    assert free_precision([3, 4], [4, 7, 9]) == pytest.approx(0.5)
    assert free_recall([3, 4], [4, 7, 9]) == pytest.approx(1 / 3)
    assert free_precision([], [4]) == 0.0
    assert free_precision([], []) == 1.0
    assert free_recall([1], []) is None
    # target 1: P 1/2, R 1/3; target 2 (no gold): P 0, R None -> mean P 1/4, mean R 1/3
    assert free_f1([[3, 4], [1]], [[4, 7, 9], []]) == pytest.approx(2 * 0.25 / 3 / (0.25 + 1 / 3))


def test_recall_by_distance_by_hand():
    distances = list(range(60, 0, -1))  # candidate i (book order) is at distance 60 - i
    gold = [59, 45, 30, 5]  # distances 1, 15, 30, 55
    ranked = [59, 30, 0, 1, 2]
    assert recall_by_distance(ranked, gold, distances) == {"1-20": 0.5, "21-40": 1.0, "41-60": 0.0}
    assert recall_by_distance(ranked, [59], distances) == {"1-20": 1.0, "21-40": None, "41-60": None}


def test_ranking_metrics_are_registered():
    assert get_metric("recall_at_5") is recall_at_5
    assert get_metric("f1_at_5")([[1, 2]], [[2]]) == pytest.approx(2 * 0.2 * 1 / 1.2)
