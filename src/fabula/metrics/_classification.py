"""Generic scores: accuracy, and precision / recall / F1 from match counts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from fabula.metrics._registry import aggregation, metric


@metric("accuracy")
def accuracy(correct: Sequence[bool]) -> float:
    """Share of items that are right (ValueError for no items: there is nothing to score)."""
    if not correct:
        raise ValueError("accuracy of no items")
    return sum(1 for c in correct if c) / len(correct)


def ratio(part: float, whole: float) -> float | None:
    """``part / whole``, or None when ``whole`` is 0 (nothing to score, not a score of 0)."""
    return part / whole if whole else None


@aggregation("mean")
def mean_of(values: Sequence[float | int | None]) -> float | None:
    """Mean of the values that are not None or NaN (None when there are none)."""
    present = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return sum(present) / len(present) if present else None


@dataclass(frozen=True, slots=True)
class PRF:
    """Precision, recall and F1 (None where the denominator is empty)."""

    precision: float | None
    recall: float | None
    f1: float | None


@metric("precision_recall_f1")
def precision_recall_f1(matched: int, predicted: int, gold: int) -> PRF:
    """P = matched / predicted, R = matched / gold, F1 their harmonic mean.

    F1 is 0 when something was predicted but nothing matched, and None when nothing was predicted.
    """
    precision = ratio(matched, predicted)
    recall = ratio(matched, gold)
    if precision and recall:
        f1: float | None = 2 * precision * recall / (precision + recall)
    else:
        f1 = 0.0 if predicted else None
    return PRF(precision, recall, f1)


@metric("precision")
def precision(matched: int, predicted: int) -> float | None:
    """Share of predictions that match (None when nothing was predicted)."""
    return ratio(matched, predicted)


@metric("recall")
def recall(matched: int, gold: int) -> float | None:
    """Share of gold items found (None when there are none)."""
    return ratio(matched, gold)


@metric("f1")
def f1(matched: int, predicted: int, gold: int) -> float | None:
    """The harmonic mean of precision and recall (see `precision_recall_f1`)."""
    return precision_recall_f1(matched, predicted, gold).f1
