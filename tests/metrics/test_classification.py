"""Generic metrics against values worked out by hand."""

from __future__ import annotations

import pytest

from fabula.metrics import (
    PRF,
    accuracy,
    f1,
    get_metric,
    mean_of,
    metric_names,
    precision,
    precision_recall_f1,
    recall,
)


def test_accuracy() -> None:
    assert accuracy([True, False, True, True]) == 0.75
    assert accuracy([False]) == 0.0
    with pytest.raises(ValueError):
        accuracy([])


def test_precision_recall_f1_by_hand() -> None:
    # 6 of 8 predictions match, 6 of 12 gold found: P = 0.75, R = 0.5, F1 = 2*0.375/1.25 = 0.6
    assert precision_recall_f1(6, 8, 12) == PRF(0.75, 0.5, pytest.approx(0.6))
    assert precision(6, 8) == 0.75 and recall(6, 12) == 0.5 and f1(6, 8, 12) == pytest.approx(0.6)


def test_empty_sides() -> None:
    assert precision_recall_f1(0, 5, 4) == PRF(0.0, 0.0, 0.0)  # predicted, none right
    assert precision_recall_f1(0, 0, 4) == PRF(None, 0.0, None)  # nothing predicted: no precision
    assert precision_recall_f1(0, 0, 0) == PRF(None, None, None)


def test_mean_skips_missing_values() -> None:
    assert mean_of([0.5, None, 1.0, float("nan")]) == 0.75
    assert mean_of([None]) is None


def test_metrics_are_registered_by_name() -> None:
    assert {"accuracy", "precision_recall_f1", "quote_detection", "character_scores"} <= set(metric_names())
    assert get_metric("accuracy")([True, True, False, False]) == 0.5
