"""Non-persons among the 20 highest-ranked entries of each discovered cast, per split (issue 28's "at
most 3 non-characters in 160 top-20 entries", counted on the shared novels).

    python scripts/nonpersons_top20.py ../shared/data/pdnc [--show]

For every PDNC novel the cast is found as every command finds it (`fabula.annotation.annotate`, quotes
detected first), and each of its first 20 entries by rank (the narrator left out) that carries no name
of the novel's PDNC list is looked up in the hand labels (``data/characters/unlisted_names.tsv``:
person / not / unclear, by one of the entry's names with or without its honorific). Prints, per split
(tune / frozen): the unlisted entries, those labelled ``not`` (the non-persons), ``unclear``, and those
the labels do not cover (entries the labels were not written for: read them before counting them).

``--show`` lists the unlisted entries of the **tuning** novels (and of folders that are not PDNC's) with
their label; the frozen novels are only ever counted (the project's honest-numbers rule: nobody studies the frozen novels' errors).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from fabula.annotation import annotate
from fabula.characters import is_pseudo_name, name_key
from fabula.datasets import find_pdnc_novels, load_pdnc_novel, pdnc_split

sys.path.insert(0, str(Path(__file__).resolve().parent))
from personhood_loo import hand_labels

TOP = 20


def hand_label(novel: str, names: list[str], labels: dict[tuple[str, str], str]) -> str | None:
    """The label of the first of ``names`` (whole, or without its first word: an honorific) labelled."""
    for name in names:
        for form in (name, " ".join(name.split(" ")[1:])):
            if (novel, form) in labels:
                return labels[(novel, form)]
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdnc", type=Path)
    parser.add_argument("--show", action="store_true", help="list the tuning novels' unlisted entries")
    args = parser.parse_args(argv)
    labels = hand_labels()
    totals: dict[str, Counter[str]] = {}
    novels: Counter[str] = Counter()
    for folder in find_pdnc_novels(args.pdnc):
        split = pdnc_split(folder.name) or "other"  # "other": a folder that is not one of PDNC's 21
        novels[split] += 1
        totals.setdefault(split, Counter())
        novel = load_pdnc_novel(folder)
        annotate(novel.book, {"characters"})
        listed = {name_key(n) for c in novel.characters for n in c.all_names() if not is_pseudo_name(n)}
        cast = sorted(novel.book.characters, key=lambda c: c.rank)
        for entry in cast[:TOP]:
            names = [n for n in entry.all_names() if not is_pseudo_name(n)]
            if entry.narrator or {name_key(n) for n in names} & listed:
                continue
            label = hand_label(folder.name, names, labels) or "unlabelled"
            totals[split]["unlisted"] += 1
            totals[split][label] += 1
            if args.show and split != "frozen":
                print(
                    f"{folder.name}: {entry.name} (rank {entry.rank}, {entry.mention_count} mentions): {label}"
                )
    print("| split | top-20 entries | unlisted | not (non-persons) | unclear | unlabelled |")
    print("|---|---:|---:|---:|---:|---:|")
    for split, counts in totals.items():
        print(
            f"| {split} | {TOP * novels[split]} | {counts['unlisted']} | {counts['not']} | {counts['unclear']} "
            f"| {counts['unlabelled']} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
