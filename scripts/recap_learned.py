"""A learned no-LLM recap ranker over cheap features, measured held out (issue 27, part 2).

    python scripts/recap_learned.py --tuning-only     # design and choice: tuning targets only
    python scripts/recap_learned.py                   # then once: LOO over all 64, frozen, bootstrap

Every feature is read from what a reader at the target's end has read (`RecapTask.target`: the book cut
there), per candidate of a target:

- distance bands (d = 1, 2, 3, 4, 5, 6-10, 11-20, > 20) and log d: the lead-in's base rates;
- the target's named characters the candidate names: their share, and the share weighted by how rarely
  the text read so far names each (idf over sentences);
- who *speaks*: the share of the target's speakers (quote attribution, `fabula.annotation` "speakers")
  who speak in the candidate, and who speak or are named there;
- rare shared terms (idf over the sentences read so far, `reach-back`'s salience) and whether the
  candidate is the best such one beyond distance 5; BM25 (scaled to the target's best) and its top 5;
- whether the candidate holds the first naming of one of the target's characters, and whether it is the
  latest candidate naming a target character the nearest two candidates do not name (its last
  appearance);
- whether a chapter break lies between candidate and target, and `reach-back`'s "last meeting";
- the content features again, multiplied by "beyond distance 5" (so far candidates can weigh them
  differently from near ones).

Two learners (scikit-learn, standardised features, L2 strength C): a pointwise logistic regression
(P(related)), whose ranking keeps the nearest five unless a farther candidate's probability exceeds
theirs by ``margin`` (abstain when unsure), and a pairwise logistic ranker (RankNet-style: related minus
unrelated feature differences within a target). The learner, C and margin are chosen by leave one
tuning novel out on the 24 tuning targets only; then reported: tuning in-sample, leave one tuning novel
out, leave one novel out over all 64 (as `scripts/recap_weights.py`), and the frozen targets (trained on
the tuning targets, read once) with a paired bootstrap against closest-5. F1@5 as everywhere
(`fabula.metrics.f1_at_5`: the harmonic mean of mean precision and mean recall).
"""

from __future__ import annotations

import argparse
import itertools
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from fabula.metrics import f1_at_5

Row = dict[str, Any]
BANDS = ((1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 10), (11, 20), (21, 10_000))
NEAR = 5
CONTENT = ("cast", "cast_rare", "speak", "speak_or_named", "salient", "salient_top", "bm25", "bm25_top",
           "first_naming", "last_appearance", "chapter_break", "meeting")  # fmt: skip
LEARNERS = ("pointwise", "pairwise")
CS = (0.01, 0.1, 1.0)
MARGINS = (0.0, 0.05, 0.1, 0.2)


def speakers_in(book: Any, start: int, end: int) -> set[str]:
    """Characters attributed a quote lying in ``[start, end)``."""
    return {q.speaker_id for q in book.quotes if q.speaker_id and start <= q.spans[0].start < end}


def load(data: Path) -> list[Row]:
    """Every annotated target's feature matrix (candidates in book order), gold, novel and split."""
    from fabula.annotation import annotate
    from fabula.recap import create_ranker
    from fabula.tasks import get_task

    task: Any = get_task("recap")(data=data)
    reach: Any = create_ranker("reach-back")
    bm25: Any = create_ranker("bm25")
    rows = []
    for item in task.items():
        context, target = task.target(item.payload)
        book = context.book
        annotate(book, {"speakers"})
        n = len(target.candidates)
        distance = np.asarray([target.distance(i) for i in range(n)], dtype=np.float64)
        parts = reach.components(context, target)
        cumulative, _ = context._characters
        t = target.target
        named = np.flatnonzero(cumulative[t.stop] - cumulative[t.first] > 0)
        present = np.zeros((n, named.size), dtype=bool)
        for i, c in enumerate(target.candidates):
            present[i] = cumulative[c.stop, named] - cumulative[c.first, named] > 0
        weight = np.log(max(1, t.first) / (1.0 + cumulative[t.first, named])) if named.size else np.zeros(0)
        cast = present.mean(axis=1) if named.size else np.zeros(n)
        cast_rare = present @ weight / max(weight.sum(), 1e-9) if named.size else np.zeros(n)
        # first naming in the text read so far, and the last appearance the lead-in does not cover
        first_naming = np.zeros(n)
        last_appearance = np.zeros(n)
        for column in range(named.size):
            where = np.flatnonzero(present[:, column])
            first_sentence = int(np.searchsorted(cumulative[:, named[column]], 1))  # row after the first
            for i in where:
                c = target.candidates[i]
                if c.first < first_sentence <= c.stop:
                    first_naming[i] = 1.0
            if where.size and not present[n - 2 :, column].any():
                last_appearance[where.max()] = 1.0
        wanted_speakers = speakers_in(book, t.start, t.end)
        speak = np.zeros(n)
        speak_or_named = np.zeros(n)
        if wanted_speakers:
            id_of = {cid: col for cid, col in context._characters[1].items()}
            for i, c in enumerate(target.candidates):
                said = speakers_in(book, c.start, c.end) & wanted_speakers
                speak[i] = len(said) / len(wanted_speakers)
                in_it = {
                    s
                    for s in wanted_speakers
                    if s in id_of and cumulative[c.stop, id_of[s]] - cumulative[c.first, id_of[s]] > 0
                }
                speak_or_named[i] = len(said | in_it) / len(wanted_speakers)
        lexical = bm25.similarities(context, target)
        top = np.zeros(n)
        order = sorted(range(n), key=lambda i: (-lexical[i], -i))[:5]
        top[[i for i in order if lexical[i] > 0]] = 1.0
        chapter = context.chapter_of(t)
        features = {
            "cast": cast,
            "cast_rare": cast_rare,
            "speak": speak,
            "speak_or_named": speak_or_named,
            "salient": parts["salient"],
            "salient_top": parts["salient_top"],
            "bm25": lexical / lexical.max() if lexical.max() > 0 else lexical,
            "bm25_top": top,
            "first_naming": first_naming,
            "last_appearance": last_appearance,
            "chapter_break": np.asarray([float(context.chapter_of(c) != chapter) for c in target.candidates]),
            "meeting": parts["meeting"],
        }
        rows.append(
            {"id": item.id, "gold": list(target.gold or ()), "distance": distance, "features": features}
            | item.groups
        )
    return rows


def matrix(row: Row) -> np.ndarray:
    """The row's candidates x features matrix: distance bands, log d, content, content x far."""
    d = row["distance"]
    far = (d > NEAR).astype(np.float64)
    columns = [((d >= lo) & (d <= hi)).astype(np.float64) for lo, hi in BANDS]
    columns.append(np.log(d))
    content = [row["features"][name] for name in CONTENT]
    return np.stack([*columns, *content, *(far * c for c in content)], axis=1)


def labels(row: Row) -> np.ndarray:
    return np.isin(np.arange(len(row["distance"])), row["gold"])


Ranker = Callable[[Row], list[int]]


def fit(rows: list[Row], learner: str, c: float, margin: float) -> Ranker:
    """A ranking function learned on ``rows`` (ties: the nearer candidate)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    x = np.concatenate([matrix(r) for r in rows])
    scaler = StandardScaler().fit(x)
    if learner == "pointwise":
        y = np.concatenate([labels(r) for r in rows])
        model = LogisticRegression(C=c, max_iter=5000).fit(scaler.transform(x), y)

        def score(row: Row) -> np.ndarray:
            p = model.predict_proba(scaler.transform(matrix(row)))[:, 1]
            return np.asarray(p + margin * (row["distance"] <= NEAR))

    else:
        diffs = []
        for r in rows:
            z, y = scaler.transform(matrix(r)), labels(r)
            pos, neg = z[y], z[~y]
            if len(pos) and len(neg):
                diffs.append((pos[:, None, :] - neg[None, :, :]).reshape(-1, z.shape[1]))
        d = np.concatenate(diffs)
        model = LogisticRegression(C=c, fit_intercept=False, max_iter=5000).fit(
            np.concatenate([d, -d]), np.r_[np.ones(len(d)), np.zeros(len(d))]
        )

        def score(row: Row) -> np.ndarray:
            return np.asarray(scaler.transform(matrix(row)) @ model.coef_[0])

    def rank(row: Row) -> list[int]:
        s = score(row)
        return sorted(range(len(s)), key=lambda i: (-s[i], -i))

    return rank


def closest(row: Row) -> list[int]:
    return np.argsort(row["distance"], kind="stable").tolist()


def f1(rows: list[Row], rank: Ranker) -> float:
    return 100 * (f1_at_5([rank(r) for r in rows], [r["gold"] for r in rows]) or 0.0)


def held_out(rows: list[Row], pool: list[Row], config: tuple[str, float, float]) -> tuple[float, str]:
    """Leave one novel out within ``rows`` (trained on ``pool``'s targets of the other novels); F1@5
    pooled over the held-out targets, and each novel's score against closest-5."""
    rankings, golds, parts = [], [], []
    for novel in sorted({r["novel"] for r in rows}):
        rank = fit([r for r in pool if r["novel"] != novel], *config)
        test = [r for r in rows if r["novel"] == novel]
        rankings += [rank(r) for r in test]
        golds += [r["gold"] for r in test]
        parts.append(f"{novel} {f1(test, rank):.1f} (closest {f1(test, closest):.1f})")
    return 100 * (f1_at_5(rankings, golds) or 0.0), "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("data/recap/gold.jsonl"))
    parser.add_argument("--tuning-only", action="store_true", help="never score a frozen target")
    parser.add_argument("--features", type=Path, help="a pickle of the features to reuse (made if absent)")
    args = parser.parse_args()
    if args.features is not None and args.features.is_file():
        rows = pickle.loads(args.features.read_bytes())
    else:
        rows = load(args.data)
        if args.features is not None:
            args.features.write_bytes(pickle.dumps(rows))
    tune = [r for r in rows if r.get("split") == "tuning"]
    frozen = [r for r in rows if r.get("split") == "frozen"]
    print(f"{len(rows)} targets: {len(tune)} tuning, {len(frozen)} frozen")
    print(f"closest-5: tuning {f1(tune, closest):.1f}")
    best: tuple[float, tuple[str, float, float]] | None = None
    for learner, c, margin in itertools.product(LEARNERS, CS, MARGINS):
        if learner == "pairwise" and margin:
            continue
        config = (learner, c, margin)
        value, detail = held_out(tune, tune, config)
        print(f"  leave one tuning novel out {config}: {value:.1f}  [{detail}]")
        if best is None or value > best[0] + 1e-9:
            best = (value, config)
    assert best is not None
    config = best[1]
    chosen = fit(tune, *config)
    print(f"chosen on the tuning targets: {config}")
    print(f"tuning (in-sample): {f1(tune, chosen):.1f}  closest-5 {f1(tune, closest):.1f}")
    print(f"leave one tuning novel out: {best[0]:.1f}  closest-5 {f1(tune, closest):.1f}")
    if args.tuning_only:
        return
    value, detail = held_out(rows, rows, config)
    print(
        f"leave one novel out (all {len(rows)}): {value:.1f}  closest-5 {f1(rows, closest):.1f}  [{detail}]"
    )
    print(f"frozen: {f1(frozen, chosen):.1f}  closest-5 {f1(frozen, closest):.1f}")
    from recap_weights import bootstrap_orders  # scripts/ is on the path when run as a script

    diff, low, high = bootstrap_orders(frozen, chosen, closest)
    print(f"frozen, minus closest-5: {diff:+.1f}, paired bootstrap 95 % [{low:+.1f}, {high:+.1f}]")


if __name__ == "__main__":
    main()
