"""Recognition `evidence`: its feature weights learned on the tuning novels, checked by leaving one novel out.

Every question of the tuning set (``questions.jsonl``) and of the two frozen parts (``questions.frozen.jsonl``,
``questions.frozen2.jsonl``) is turned into `EvidenceRecognizer.features` (one row per option: fit,
window, local, gender, prior). A conditional logit (softmax over a question's options, L2 penalty
``--l2``) is fitted on the tuning questions; the weights are printed as ratios to the ``fit`` weight (the
form `EvidenceRecognizer` takes them). Reported: accuracy on the tuning questions with the weights learned
on all of them; leave one novel out (for each tuning novel, weights learned on the other novels, scored on
it, pooled); each frozen part with the weights learned on all tuning novels (never used to learn or
choose); and the same for the method's current defaults and for the method before the window features
(fit + gender). Books are indexed once (a few minutes on a loaded 2-core machine).

    python benchmarks/learn_evidence.py [--l2 0.1]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from fabula.recognition import BookShelf, get_method, load_questions
from fabula.recognition._methods import EVIDENCE_FEATURES, EvidenceRecognizer

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "recognize"
SPLITS = {
    "tuning": "questions.jsonl",
    "frozen": "questions.frozen.jsonl",
    "frozen2": "questions.frozen2.jsonl",
}
Array = npt.NDArray[np.float64]


def learn(features: Array, answers: npt.NDArray[np.int64], l2: float, steps: int = 3000) -> Array:
    """Weights of a conditional logit (softmax over each question's options) by gradient descent:
    ``features`` is (questions, options, features), ``answers`` the right option of each question."""
    w = np.zeros(features.shape[2])
    w[0] = 1.0
    rows = np.arange(len(answers))
    for _ in range(steps):
        scores = features @ w
        scores -= scores.max(axis=1, keepdims=True)
        p = np.exp(scores)
        p /= p.sum(axis=1, keepdims=True)
        expected = np.einsum("qo,qof->qf", p, features)
        gradient = -(features[rows, answers] - expected).mean(axis=0) + 2 * l2 * w
        w -= 0.5 * gradient
    return w


def accuracy(features: Array, answers: npt.NDArray[np.int64], w: Array) -> float:
    return float(np.mean(np.argmax(features @ w, axis=1) == answers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--l2", type=float, default=0.1)
    args = parser.parse_args()
    method = get_method("evidence", window_weight=1.0, local_weight=1.0)
    assert isinstance(method, EvidenceRecognizer)
    shelf = BookShelf()
    start = time.perf_counter()
    data: dict[str, tuple[Array, npt.NDArray[np.int64], list[str]]] = {}
    for split, name in SPLITS.items():
        questions = load_questions(DATA / name)
        feats = np.stack([method.features(q, shelf.index(q.book)) for q in questions])
        answers = np.asarray([q.answer for q in questions], dtype=np.int64)
        data[split] = (feats, answers, [Path(q.book).parent.name for q in questions])
        print(f"{split}: {len(questions)} questions, features at {time.perf_counter() - start:.0f} s")
    feats, answers, novels = data["tuning"]
    w = learn(feats, answers, args.l2)
    loo = np.zeros(len(answers), dtype=bool)
    for novel in sorted(set(novels)):
        held = np.asarray([n == novel for n in novels])
        w_others = learn(feats[~held], answers[~held], args.l2)
        loo[held] = np.argmax(feats[held] @ w_others, axis=1) == answers[held]
        print(f"  {novel}: {100 * loo[held].mean():.1f} with weights learned on the others")
    print(
        "weights (ratio to fit):",
        ", ".join(f"{f} {v / w[0]:.3f}" for f, v in zip(EVIDENCE_FEATURES, w, strict=True)),
    )
    current = get_method("evidence")
    assert isinstance(current, EvidenceRecognizer)
    rows = {
        "learned here": w,
        "current defaults": current.weights,
        "before (fit + gender)": np.asarray([1.0, 0.0, 0.0, 1.0, 0.0]),
    }
    print(f"leave one novel out, pooled: {100 * loo.mean():.1f}")
    print("weights: " + " / ".join(f"{s} ({len(data[s][1])})" for s in SPLITS) + ", %")
    for label, weights in rows.items():
        print(f"  {label}: " + " / ".join(f"{100 * accuracy(*data[s][:2], weights):.1f}" for s in SPLITS))


if __name__ == "__main__":
    main()
