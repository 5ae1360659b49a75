"""Learn `reach-back`'s weights on some recap gold targets and score them on others (issue 27's honesty check).

    python scripts/recap_weights.py [--data data/recap/gold.jsonl] [--dense]

For the ranker family ``exp(-(d-1)/decay) + Σ w_f · feature_f`` (the features of
the `reach-back` ranker's ``components``, plus the `dense` cosine with ``--dense``) it picks decay and
weights from a grid by F1@5 on a training set (ties: the smaller total weight) and reports F1@5 on the
held-out set, for these splits of the gold file: tuning → frozen (the README's split), and leave one novel
out (each novel scored with what was learned on the others; pooled over all held-out targets). It also fits a logistic regression on the same
features (pointwise: related or not) under the same splits. Baselines: closest-5 and the shipped weights.
F1@5 is the harmonic mean of the mean Precision@5 and mean Recall@5 (`fabula.metrics.f1_at_5`); ties
rank the nearer candidate first, as every ranker does. How far apart two rankers must be to tell them
apart: a paired bootstrap over targets of the shipped ranker against closest-5 (seeded, 5,000 resamples).
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from fabula.metrics import f1_at_5, precision_at_5, recall_at_5
from fabula.recap import create_ranker
from fabula.tasks import get_task

Features = dict[str, np.ndarray]
Scorer = Callable[[Features], np.ndarray]
WEIGHTS = (0.0, 0.1, 0.2, 0.4)
DECAYS = (2.0, 4.0, 8.0)


def load(data: Path, dense: bool) -> list[dict[str, Any]]:
    """Every annotated target's features (candidates in book order), gold, novel and split."""
    task: Any = get_task("recap")(data=data)
    ranker: Any = create_ranker("reach-back")
    embed: Any = create_ranker("dense") if dense else None
    rows = []
    for item in task.items():
        context, target = task.target(item.payload)
        parts = ranker.components(context, target)
        parts["distance"] = np.asarray([target.distance(i) for i in range(len(target.candidates))], float)
        if embed is not None:
            parts["dense"] = embed.similarities(context, target)
        rows.append({"id": item.id, "gold": list(target.gold or ()), "parts": parts, **item.groups})
    return rows


def f1(rows: list[dict[str, Any]], score: Scorer) -> float:
    """F1@5 (in %) of a scoring function over targets."""
    rankings = []
    for row in rows:
        s = score(row["parts"])
        rankings.append(sorted(range(len(s)), key=lambda i: (-s[i], -i)))
    value = f1_at_5(rankings, [row["gold"] for row in rows])
    return 100 * (value or 0.0)


def bootstrap(rows: list[dict[str, Any]], a: Scorer, b: Scorer, n: int = 5000) -> tuple[float, float, float]:
    """F1@5 of ``a`` minus that of ``b`` on ``rows`` (in points) and its 95 % paired-bootstrap interval
    (targets resampled with replacement; F1@5 of the resample's mean precision and recall, as above;
    targets with no related candidate are left out, as they have no recall)."""
    rows = [row for row in rows if row["gold"]]

    def per_target(score: Scorer) -> np.ndarray:
        out = []
        for row in rows:
            s = score(row["parts"])
            ranking = sorted(range(len(s)), key=lambda i: (-s[i], -i))
            out.append((precision_at_5(ranking, row["gold"]), recall_at_5(ranking, row["gold"]) or 0.0))
        return np.asarray(out)

    pa, pb = per_target(a), per_target(b)

    def f1(pr: np.ndarray) -> np.ndarray:  # pr: (..., targets, 2) -> F1@5 in points
        p, r = pr[..., 0].mean(axis=-1), pr[..., 1].mean(axis=-1)
        return np.where(p + r > 0, 200 * p * r / np.maximum(p + r, 1e-12), 0.0)

    picks = np.random.default_rng(0).integers(0, len(rows), size=(n, len(rows)))
    diffs = f1(pa[picks]) - f1(pb[picks])
    low, high = np.percentile(diffs, [2.5, 97.5])
    return float(f1(pa) - f1(pb)), float(low), float(high)


def bootstrap_orders(
    rows: list[dict[str, Any]], a: Callable[[Any], list[int]], b: Callable[[Any], list[int]]
) -> tuple[float, float, float]:
    """`bootstrap` for rankers that give an order of a row's candidates (best first) instead of scores;
    each row is both the target's gold (``row["gold"]``) and what the rankers read."""

    def as_scores(rank: Callable[[Any], list[int]]) -> Scorer:
        def score(row: Any) -> np.ndarray:
            out = np.zeros(len(row["distance"]))
            out[rank(row)] = np.arange(len(out), 0, -1)
            return out

        return score

    return bootstrap([{"gold": r["gold"], "parts": r} for r in rows], as_scores(a), as_scores(b))


def linear(decay: float, weights: dict[str, float]) -> Scorer:
    def score(parts: Features) -> np.ndarray:
        total = np.exp(-(parts["distance"] - 1.0) / decay)
        for name, weight in weights.items():
            total = total + weight * parts[name]
        return total

    return score


def grid_fit(rows: list[dict[str, Any]], names: list[str]) -> tuple[float, dict[str, float]]:
    """Decay and weights with the best F1@5 on ``rows`` (ties: the smaller total weight)."""
    best: tuple[float, float, float, dict[str, float]] | None = None
    for decay in DECAYS:
        for values in itertools.product(WEIGHTS, repeat=len(names)):
            weights = dict(zip(names, values, strict=True))
            key = (f1(rows, linear(decay, weights)), -sum(values))
            if best is None or key > best[:2]:
                best = (*key, decay, weights)
    assert best is not None
    return best[2], best[3]


def logistic_fit(rows: list[dict[str, Any]], names: list[str]) -> Scorer:
    from sklearn.linear_model import LogisticRegression

    def matrix(parts: Features) -> np.ndarray:
        return np.stack([np.exp(-(parts["distance"] - 1.0) / 4.0), *(parts[n] for n in names)], axis=1)

    x = np.concatenate([matrix(r["parts"]) for r in rows])
    y = np.concatenate([np.isin(np.arange(len(r["parts"]["distance"])), r["gold"]) for r in rows])
    model = LogisticRegression(max_iter=2000).fit(x, y)
    return lambda parts: model.decision_function(matrix(parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("data/recap/gold.jsonl"))
    parser.add_argument("--dense", action="store_true", help="add the dense (minilm) cosine feature: slow")
    args = parser.parse_args()
    rows = load(args.data, args.dense)
    names = ["characters", "meeting", "salient", "salient_top", *(["dense"] if args.dense else [])]
    shipped: Any = create_ranker("reach-back")
    fixed = {
        "closest-5": lambda p: -p["distance"],
        "reach-back (shipped)": linear(shipped.decay, shipped.weights),
    }
    tune = [r for r in rows if r.get("split") == "tuning"]
    frozen = [r for r in rows if r.get("split") == "frozen"]
    novels = sorted({r["novel"] for r in rows})
    print(f"{len(rows)} targets: {len(tune)} tuning, {len(frozen)} frozen; novels {', '.join(novels)}")
    for name, score in fixed.items():
        per_novel = " ".join(f"{n} {f1([r for r in rows if r['novel'] == n], score):.1f}" for n in novels)
        print(
            f"{name:22s} all {f1(rows, score):.1f}  tuning {f1(tune, score):.1f}  frozen {f1(frozen, score):.1f}  {per_novel}"
        )
    for part, group in (("frozen", frozen), ("all", rows)):
        if group:
            diff, low, high = bootstrap(group, fixed["reach-back (shipped)"], fixed["closest-5"])
            print(
                f"shipped - closest-5 on {part}: {diff:+.1f}, paired bootstrap 95 % [{low:+.1f}, {high:+.1f}]"
            )
    for label, fit in (("grid", "grid"), ("logistic", "logistic")):

        def learned(train: list[dict[str, Any]], fit: str = fit) -> tuple[Scorer, str]:
            if fit == "grid":
                decay, weights = grid_fit(train, names)
                return linear(decay, weights), f"decay {decay:g} {weights}"
            return logistic_fit(train, names), "logistic regression"

        score, how = learned(tune)
        print(
            f"{label}: chosen on tuning ({how}): tuning {f1(tune, score):.1f}  frozen {f1(frozen, score):.1f}"
        )
        held: list[tuple[dict[str, Any], Scorer]] = []
        for novel in novels:
            train = [r for r in rows if r["novel"] != novel]
            test = [r for r in rows if r["novel"] == novel]
            score, how = learned(train)
            held.extend((r, score) for r in test)
            print(f"{label}: leave out {novel} ({how}): {f1(test, score):.1f}")
        rankings = []
        for row, score in held:
            s = score(row["parts"])
            rankings.append(sorted(range(len(s)), key=lambda i: (-s[i], -i)))
        pooled = 100 * (f1_at_5(rankings, [r["gold"] for r, _ in held]) or 0.0)
        print(f"{label}: leave-one-novel-out pooled {pooled:.1f}")


if __name__ == "__main__":
    main()
