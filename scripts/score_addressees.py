"""Score quote addressees against PDNC's gold addressees (gold characters, the default attribution).

For every gold quote matched to a detected quote: exact set match of addressees (an empty gold set
counts: self-talk and thoughts have none) and micro precision / recall / F1 over (quote, addressee)
pairs; gold addressees that are pseudo-speakers (``_group``) or not on the character list are left out.
By default only the 14 tuning novels are scored (the validation split's frozen 7 with ``--validation``,
means only).

    python scripts/score_addressees.py ../shared/data/pdnc [--validation]
"""

from __future__ import annotations

import argparse

from fabula.characters import find_characters
from fabula.datasets import PDNC_FROZEN, find_pdnc_novels, load_pdnc_novel
from fabula.metrics import match_quotes
from fabula.quotes import attribute_quotes, detect_quotes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdnc")
    parser.add_argument("--validation", action="store_true", help="score the 7 frozen novels (means only)")
    parser.add_argument("--novel", action="append", help="only these tuning novels")
    args = parser.parse_args()
    totals = {"exact": 0, "quotes": 0, "tp": 0, "predicted": 0, "gold": 0}
    for folder in find_pdnc_novels(args.pdnc):
        frozen = folder.name in PDNC_FROZEN
        if frozen != args.validation or (args.novel and folder.name not in args.novel):
            continue
        novel = load_pdnc_novel(folder)
        by_name = {n: c.id for c in novel.characters for n in c.all_names()}
        book = novel.book
        detect_quotes(book)
        find_characters(book, gold=novel.characters)
        predicted = attribute_quotes(book).quotes
        counts = {"exact": 0, "quotes": 0, "tp": 0, "predicted": 0, "gold": 0}
        for g, p in match_quotes(novel.quotes, predicted).items():
            if p is None:
                continue
            gold = {by_name[a] for a in novel.quotes[g].addressees if a in by_name}
            guess = set(predicted[p].addressee_ids)
            counts["quotes"] += 1
            counts["exact"] += gold == guess
            counts["tp"] += len(gold & guess)
            counts["predicted"] += len(guess)
            counts["gold"] += len(gold)
        for key, value in counts.items():
            totals[key] += value
        if not frozen:
            print(f"  {novel.name:32s} {_line(counts)}")
    print(f"  {'all':32s} {_line(totals)}")


def _line(c: dict[str, int]) -> str:
    precision = c["tp"] / max(1, c["predicted"])
    recall = c["tp"] / max(1, c["gold"])
    f1 = 2 * precision * recall / max(1e-9, precision + recall)
    return (
        f"exact={100 * c['exact'] / max(1, c['quotes']):.1f} P={100 * precision:.1f}"
        f" R={100 * recall:.1f} F1={100 * f1:.1f} (n={c['quotes']})"
    )


if __name__ == "__main__":
    main()
