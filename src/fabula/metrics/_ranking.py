"""Ranking metrics for recap snippets (RECIDENT): Recall@5, Precision@5, free-selection precision,
recall and F1, and a breakdown by candidate distance.

Per target: ``ranked`` are candidate indices best first, ``gold`` the related candidates, ``selected``
a free selection. Per-target values are averaged over targets and F1 is the harmonic mean of the
averaged precision and recall, as the paper reports them. A target without related candidates has no
recall (None, left out of the mean); an empty free selection has precision 0 (1 if gold is empty too).
"""

from __future__ import annotations

from collections.abc import Sequence

from fabula.metrics._classification import mean_of
from fabula.metrics._registry import metric


@metric("recall_at_k")
def recall_at_k(ranked: Sequence[int], gold: Sequence[int], k: int = 5) -> float | None:
    """Share of the related candidates found in the top ``k`` (None when nothing is related)."""
    if not gold:
        return None
    return len(set(ranked[:k]) & set(gold)) / len(set(gold))


@metric("precision_at_k")
def precision_at_k(ranked: Sequence[int], gold: Sequence[int], k: int = 5) -> float:
    """Share of the top ``k`` that is related (divided by ``k``, as the paper does)."""
    return len(set(ranked[:k]) & set(gold)) / k


@metric("recall_at_5")
def recall_at_5(ranked: Sequence[int], gold: Sequence[int]) -> float | None:
    return recall_at_k(ranked, gold, 5)


@metric("precision_at_5")
def precision_at_5(ranked: Sequence[int], gold: Sequence[int]) -> float:
    return precision_at_k(ranked, gold, 5)


@metric("free_recall")
def free_recall(selected: Sequence[int], gold: Sequence[int]) -> float | None:
    """Share of the related candidates the free selection found (None when nothing is related)."""
    if not gold:
        return None
    return len(set(selected) & set(gold)) / len(set(gold))


@metric("free_precision")
def free_precision(selected: Sequence[int], gold: Sequence[int]) -> float:
    """Share of the free selection that is related (0 for an empty selection, 1 if gold is empty too)."""
    if not selected:
        return 0.0 if gold else 1.0
    return len(set(selected) & set(gold)) / len(set(selected))


def harmonic_mean(precision: float | None, recall: float | None) -> float | None:
    """F1 from (averaged) precision and recall; None if either is missing."""
    if precision is None or recall is None:
        return None
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


@metric("f1_at_5")
def f1_at_5(rankings: Sequence[Sequence[int]], golds: Sequence[Sequence[int]]) -> float | None:
    """F1@5 over targets: harmonic mean of the mean Precision@5 and the mean Recall@5."""
    precision = mean_of([precision_at_5(r, g) for r, g in zip(rankings, golds, strict=True)])
    recall = mean_of([recall_at_5(r, g) for r, g in zip(rankings, golds, strict=True)])
    return harmonic_mean(precision, recall)


@metric("free_f1")
def free_f1(selections: Sequence[Sequence[int]], golds: Sequence[Sequence[int]]) -> float | None:
    """Free-selection F1 over targets: harmonic mean of mean precision and mean recall."""
    precision = mean_of([free_precision(s, g) for s, g in zip(selections, golds, strict=True)])
    recall = mean_of([free_recall(s, g) for s, g in zip(selections, golds, strict=True)])
    return harmonic_mean(precision, recall)


DISTANCE_BUCKETS: tuple[tuple[int, int], ...] = ((1, 20), (21, 40), (41, 60))


@metric("recall_by_distance")
def recall_by_distance(
    ranked: Sequence[int],
    gold: Sequence[int],
    distances: Sequence[int],
    k: int = 5,
    buckets: Sequence[tuple[int, int]] = DISTANCE_BUCKETS,
) -> dict[str, float | None]:
    """Recall@k of the related candidates in each distance bucket (``distances[i]``: 1 = nearest), as
    ``{"1-20": ..., "21-40": ..., "41-60": ...}``; None for a bucket with no related candidate."""
    top = set(ranked[:k])
    out: dict[str, float | None] = {}
    for low, high in buckets:
        in_bucket = [g for g in set(gold) if low <= distances[g] <= high]
        out[f"{low}-{high}"] = len(top & set(in_bucket)) / len(in_bucket) if in_bucket else None
    return out


NEAREST_WINDOWS: tuple[int, ...] = (20, 40, 60)


@metric("at_5_within_nearest")
def at_5_within_nearest(
    ranked: Sequence[int], gold: Sequence[int], distances: Sequence[int], nearest: int
) -> tuple[float | None, float | None]:
    """RECIDENT's distance analysis (§6.2, Figures 3 and 11): Recall@5 and Precision@5 when only the
    ``nearest`` candidates count (``distances[i]``: 1 = nearest): the ranking and the gold are both cut
    to them. (None, None) when no related candidate lies within them."""
    inside = [i for i in ranked if distances[i] <= nearest]
    near_gold = [g for g in gold if distances[g] <= nearest]
    if not near_gold:
        return None, None
    return recall_at_5(inside, near_gold), precision_at_5(inside, near_gold)
