"""Train the person model of character discovery (`fabula/characters/_discover/_person.py`) on PDNC's
gold character lists, with leave-one-novel-out numbers.

    python scripts/train_person_model.py ../shared/data/pdnc [--l2 1.0] [--threshold 0.3 ...]
        [--write]

Rows: every name form (its words) the rules accept in a novel, with `PERSON_FEATURES`; label: the
form is a name of some gold character (any category; a name's words without its honorific, and the
first and last words of a full name, count). Prints, per threshold, the casts' scores (recall, merge,
split, the top-20 entries carrying no gold name) with the pass off, with each novel's model trained on
the other 20 (leave-one-novel-out, means over tune 14 / frozen 7 / all 21), and the frozen 7 with a
model trained on the tune 14 only. ``--write`` stores the model trained on all 21 with the first
threshold in ``src/fabula/characters/person.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from fabula.characters import find_characters, name_key
from fabula.characters._discover import run_passes
from fabula.characters._discover._person import PERSON_FEATURES, PersonModel, person_rows, using_person_model
from fabula.characters._lexicon import HONORIFICS
from fabula.datasets import PdncNovel, find_pdnc_novels, load_pdnc_novel, pdnc_split
from fabula.metrics import mean_of
from fabula.tasks.pdnc_characters import score_novel_characters

Data = tuple[np.ndarray, np.ndarray]


def gold_keys(novel: PdncNovel) -> set[str]:
    """Name keys of every gold name's words without an honorific, and of a full name's first and last word."""
    keys: set[str] = set()
    for character in novel.characters:
        for name in character.all_names():
            words = name.replace(".", " ").split()
            while words and words[0].lower() in HONORIFICS.keys() | {"the"}:
                words = words[1:]
            if not words:
                continue
            keys.add(name_key(" ".join(words)))
            if len(words) > 1:
                keys.update({name_key(words[0]), name_key(words[-1])})
    return keys


def novel_rows(novel: PdncNovel) -> Data:
    """Feature rows and labels of the forms the rules accept in ``novel``."""
    d = run_passes(novel.book, until="person_model")
    capitalised = d.mid_caps if d.mid_caps is not None else Counter()
    forms, rows = person_rows(d.occurrences, d.lowercase, d.lowercase_titles, d.places, capitalised)
    keys = gold_keys(novel)
    labels = np.array([name_key(" ".join(words)) in keys for words in forms], dtype=float)
    return rows, labels


def fit(data: list[Data], l2: float) -> np.ndarray:
    """L2-regularised logistic regression (the bias unpenalised)."""
    x = np.vstack([r for r, _ in data])
    y = np.concatenate([labels for _, labels in data])
    penalty = np.ones(x.shape[1])
    penalty[0] = 0.0

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        p = 1.0 / (1.0 + np.exp(-z))
        nll = np.sum(np.logaddexp(0.0, z) - y * z)
        grad = x.T @ (p - y) + l2 * penalty * w
        return float(nll + 0.5 * l2 * np.sum(penalty * w * w)), grad

    return minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B").x


def cast_scores(novel: PdncNovel, model: PersonModel | None) -> dict[str, float]:
    """Recall, merge, split (%) and unlisted top-20 entries of ``novel``'s cast (``None``: pass off)."""
    if model is None:
        predicted = find_characters(novel.book, skip=["person_model"])
    else:
        with using_person_model(model):
            predicted = find_characters(novel.book)
    scores, details = score_novel_characters(novel, predicted)
    out = {m: 100 * float(scores[m] or 0.0) for m in ("recall", "merge_rate", "split_rate")}
    out["unlisted_top20"] = details["unlisted_top20"]
    out["unlisted"] = details["unlisted"]
    return out


def row(label: str, per_novel: dict[str, dict[str, float]]) -> str:
    cells = []
    for split in ("tune", "frozen", "all"):
        names = [n for n in per_novel if split == "all" or pdnc_split(n) == split]
        if not names:
            cells.append("–")
            continue
        mean = {
            m: mean_of([per_novel[n][m] for n in names]) or 0.0
            for m in ("recall", "merge_rate", "split_rate")
        }
        unlisted = sum(int(per_novel[n]["unlisted_top20"]) for n in names)
        cells.append(
            f"{mean['recall']:.1f} / {mean['merge_rate']:.1f} / {mean['split_rate']:.1f} / {unlisted}"
        )
    return f"| {label} | " + " | ".join(cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdnc", type=Path)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--threshold", type=float, nargs="+", default=[0.3])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--no-baseline", action="store_true", help="skip the row with the pass off")
    parser.add_argument("--show", action="store_true", help="print each novel's unlisted entries")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    novels = [load_pdnc_novel(f) for f in find_pdnc_novels(args.pdnc)]
    data = {n.name: novel_rows(n) for n in novels}
    print("| person model | tune 14: recall / merge / split / unlisted top-20 | frozen 7 | all 21 |")
    print("|---|---|---|---|")
    if not args.no_baseline:
        print(row("pass off (before)", {n.name: cast_scores(n, None) for n in novels}))
    loo_weights = {n.name: fit([data[m] for m in data if m != n.name], args.l2) for n in novels}
    tune_weights = fit([data[m] for m in data if pdnc_split(m) == "tune"], args.l2)
    for threshold in args.threshold:
        loo = {n.name: cast_scores(n, PersonModel(loo_weights[n.name], threshold)) for n in novels}
        print(row(f"leave-one-novel-out, threshold {threshold}", loo))
        frozen = {
            n.name: cast_scores(n, PersonModel(tune_weights, threshold))
            for n in novels
            if pdnc_split(n.name) == "frozen"
        }
        print(row(f"frozen 7 by the tune 14's model, threshold {threshold}", frozen))
        if args.show:
            for name, scores in loo.items():
                print(f"    {name}: {scores['unlisted']}")
        # held-out classification: rejected persons and kept non-persons among forms used twice or more
        kept_bad = dropped_good = 0
        for n in novels:
            rows, labels = data[n.name]
            p = PersonModel(loo_weights[n.name], threshold).probabilities(rows)
            twice = rows[:, 1] >= np.log1p(2)
            kept_bad += int(np.sum(twice & (labels == 0) & (p >= threshold)))
            dropped_good += int(np.sum(twice & (labels == 1) & (p < threshold)))
        negatives = sum(int(np.sum((r[:, 1] >= np.log1p(2)) & (lab == 0))) for r, lab in data.values())
        positives = sum(int(np.sum((r[:, 1] >= np.log1p(2)) & (lab == 1))) for r, lab in data.values())
        print(
            f"    held out, forms used >= 2 times: non-gold kept {kept_bad} of {negatives}, "
            f"gold names dropped {dropped_good} of {positives}"
        )
    weights = fit(list(data.values()), args.l2)
    print("weights:", {f: round(float(w), 2) for f, w in zip(PERSON_FEATURES, weights, strict=True)})
    if args.write:
        target = Path(__file__).resolve().parents[1] / "src/fabula/characters/person.json"
        target.write_text(json.dumps(PersonModel(weights, args.threshold[0]).to_json(), indent=1) + "\n")
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
