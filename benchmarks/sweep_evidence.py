"""Recognition `evidence`: its parameters chosen on the tuning questions and by leaving one novel out.

A grid over the Dirichlet smoothing ``mu``, the per-paragraph mention cap and the gender weight (the other
weights at their defaults, which `benchmarks/learn_evidence.py` learns); each
configuration answers the tuning questions (``questions.jsonl``) and the frozen ones; then the best on all
tuning novels is scored on the frozen part, and for each tuning novel the best on the other tuning novels is
scored on it (pooled: the leave-one-novel-out accuracy). Ties go to the current defaults. Books are indexed
once (a few minutes on a loaded 2-core machine; each configuration then ~10-25 s).

    python benchmarks/sweep_evidence.py
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from pathlib import Path

from fabula.recognition import BookShelf, get_method, load_questions
from fabula.recognition._methods import EvidenceRecognizer

ROOT = Path(__file__).resolve().parents[1]
_DEFAULTS = EvidenceRecognizer()
DEFAULT = (_DEFAULTS.mu, _DEFAULTS.cap, _DEFAULTS.gender_weight)  # mu, cap, gender_weight: the defaults
GRID = list(itertools.product([4000.0, 8000.0, 16000.0], [1.0, 2.0, 4.0], [0.5, DEFAULT[2], 1.5]))
Params = tuple[float, float, float]
Results = dict[Params, dict[str, tuple[str, bool]]]  # params -> question id -> (novel, right)


def accuracy(results: Results, params: Params, ids: Sequence[str]) -> float:
    return sum(results[params][i][1] for i in ids) / len(ids)


def best(results: Results, ids: Sequence[str]) -> Params:
    """The configuration with the most right answers on ``ids`` (the defaults among equals)."""
    top = max(accuracy(results, p, ids) for p in results)
    tied = [p for p in results if accuracy(results, p, ids) == top]
    return DEFAULT if DEFAULT in tied else tied[0]


def main() -> None:
    tune = load_questions(ROOT / "data" / "recognize" / "questions.jsonl")
    frozen = load_questions(ROOT / "data" / "recognize" / "questions.frozen.jsonl")
    shelf = BookShelf()
    start = time.perf_counter()
    for book in sorted({q.book for q in tune + frozen}):
        shelf.index(book).postings  # noqa: B018  (build the shared postings now)
    print(f"indexed in {time.perf_counter() - start:.0f} s")
    results: Results = {}
    for mu, cap, gender_weight in GRID:
        method = get_method("evidence", mu=mu, cap=cap, gender_weight=gender_weight)
        results[(mu, cap, gender_weight)] = {
            q.id: (Path(q.book).parent.name, method.predict(q, shelf.index(q.book)).choice == q.answer)
            for q in tune + frozen
        }
    tune_ids, frozen_ids = [q.id for q in tune], [q.id for q in frozen]
    chosen = best(results, tune_ids)
    print("mu, cap, gender_weight: tuning / frozen, %")
    print(
        f"defaults {DEFAULT}: {100 * accuracy(results, DEFAULT, tune_ids):.1f} / "
        f"{100 * accuracy(results, DEFAULT, frozen_ids):.1f}"
    )
    print(
        f"best on tuning {chosen}: {100 * accuracy(results, chosen, tune_ids):.1f} / "
        f"{100 * accuracy(results, chosen, frozen_ids):.1f}"
    )
    right = right_default = 0.0
    for novel in sorted({results[DEFAULT][i][0] for i in tune_ids}):
        held = [i for i in tune_ids if results[DEFAULT][i][0] == novel]
        params = best(results, [i for i in tune_ids if i not in held])
        right += accuracy(results, params, held) * len(held)
        right_default += accuracy(results, DEFAULT, held) * len(held)
        print(
            f"  {novel}: chosen on the others {params}, {100 * accuracy(results, params, held):.1f} "
            f"(defaults {100 * accuracy(results, DEFAULT, held):.1f})"
        )
    print(
        f"leave one novel out, pooled: {100 * right / len(tune_ids):.1f} "
        f"(defaults {100 * right_default / len(tune_ids):.1f})"
    )
    frozen_scores = [100 * accuracy(results, p, frozen_ids) for p in results]
    print(
        f"frozen over the whole grid (not used to choose): {min(frozen_scores):.1f}-{max(frozen_scores):.1f}"
    )


if __name__ == "__main__":
    main()
