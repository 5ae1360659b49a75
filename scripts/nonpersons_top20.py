"""Non-persons among the 20 highest-ranked entries of each discovered cast, per split (issue 28's "at
most 3 non-characters in 160 top-20 entries", counted on the shared novels).

    python scripts/nonpersons_top20.py ../shared/data/pdnc [--show] [--sweep 0,1,2,3]

For every PDNC novel the cast is found as every command finds it (`fabula.annotation.annotate`, quotes
detected first), and each of its first 20 entries by rank (the narrator left out) that carries no name
of the novel's PDNC list is looked up in the hand labels (``data/characters/unlisted_names.tsv``:
person / not / unclear, by one of the entry's names with or without its honorific). Prints, per split
(tune / frozen): the unlisted entries, those labelled ``not`` (the non-persons), ``unclear``, and those
the labels do not cover (entries the labels were not written for: read them before counting them).

``--sweep 0,1,2,3`` runs it at each value of `PERSON_EVIDENCE_MIN` (0: no entry ranks last), with
leave-one-novel-out (each novel given the value best on the other novels: fewest non-persons plus scored
gold characters, >= 10 quotes, that leave the top 20).

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
from fabula.characters._discover import _passes
from fabula.datasets import MIN_SPEAKER_QUOTES, find_pdnc_novels, load_pdnc_novel, pdnc_split

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


def head_counts(
    folder: Path, labels: dict[tuple[str, str], str], show: bool = False
) -> tuple[Counter[str], set[str]]:
    """One novel's cast head: the counts of its unlisted entries by label (and ``unlisted``), and the
    ids of the scored gold characters (>= 10 quotes) one of its 20 entries names. With ``show``, a
    non-frozen novel's unlisted entries are printed."""
    novel = load_pdnc_novel(folder)
    annotate(novel.book, {"characters"})
    listed = {name_key(n) for c in novel.characters for n in c.all_names() if not is_pseudo_name(n)}
    head = sorted(novel.book.characters, key=lambda c: c.rank)[:TOP]
    counts: Counter[str] = Counter()
    for entry in head:
        names = [n for n in entry.all_names() if not is_pseudo_name(n)]
        if entry.narrator or {name_key(n) for n in names} & listed:
            continue
        label = hand_label(folder.name, names, labels) or "unlabelled"
        counts["unlisted"] += 1
        counts[label] += 1
        if show and pdnc_split(folder.name) != "frozen":
            print(f"{folder.name}: {entry.name} (rank {entry.rank}, {entry.mention_count} mentions): {label}")
    shown = {name_key(n) for entry in head for n in entry.all_names()}
    scored = novel.scored_speakers(MIN_SPEAKER_QUOTES)
    covered = {
        g.id for g in novel.characters if g.id in scored and {name_key(n) for n in g.all_names()} & shown
    }
    return counts, covered


def _table(totals: dict[str, Counter[str]], novels: Counter[str]) -> None:
    print("| split | top-20 entries | unlisted | not (non-persons) | unclear | unlabelled |")
    print("|---|---:|---:|---:|---:|---:|")
    for split, counts in totals.items():
        print(
            f"| {split} | {TOP * novels[split]} | {counts['unlisted']} | {counts['not']} | {counts['unclear']} "
            f"| {counts['unlabelled']} |"
        )


def sweep(pdnc: Path, values: list[int], labels: dict[tuple[str, str], str]) -> None:
    """`PERSON_EVIDENCE_MIN` at each of ``values``: the table per value, then leave-one-novel-out (each
    novel with the value best on the other novels: fewest non-persons plus scored gold characters that
    leave the top 20 against the first value; ties to the value closest to the current one)."""
    current = _passes.PERSON_EVIDENCE_MIN
    cost: dict[tuple[str, int], int] = {}
    counts: dict[tuple[str, int], Counter[str]] = {}
    folders = find_pdnc_novels(pdnc)
    try:
        for folder in folders:
            first: set[str] | None = None
            for value in values:
                _passes.PERSON_EVIDENCE_MIN = value
                c, covered = head_counts(folder, labels)
                first = covered if first is None else first
                counts[folder.name, value] = c
                cost[folder.name, value] = c["not"] + len(first - covered)
    finally:
        _passes.PERSON_EVIDENCE_MIN = current
    splits = {f.name: pdnc_split(f.name) or "other" for f in folders}
    novels = Counter(splits.values())
    for value in values:
        print(
            f"PERSON_EVIDENCE_MIN = {value}; scored gold characters leaving the top 20 (against {values[0]}):"
        )
        totals: dict[str, Counter[str]] = {}
        for name, split in splits.items():
            totals.setdefault(split, Counter()).update(counts[name, value])
            totals[split]["lost"] += cost[name, value] - counts[name, value]["not"]
        _table(totals, novels)
        print(", ".join(f"{split} {t['lost']}" for split, t in totals.items()))
    loo: dict[str, Counter[str]] = {}
    chosen: Counter[int] = Counter()
    for name, split in splits.items():
        best = min(
            values,
            key=lambda v: (sum(cost[o, v] for o in splits if o != name), abs(v - current)),
        )
        chosen[best] += 1
        loo.setdefault(split, Counter()).update(counts[name, best])
    print(f"leave-one-novel-out (values chosen: {dict(sorted(chosen.items()))}):")
    _table(loo, novels)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdnc", type=Path)
    parser.add_argument("--show", action="store_true", help="list the tuning novels' unlisted entries")
    parser.add_argument(
        "--sweep", metavar="K,K,...", help="PERSON_EVIDENCE_MIN values to compare, with leave-one-novel-out"
    )
    args = parser.parse_args(argv)
    labels = hand_labels()
    if args.sweep:
        sweep(args.pdnc, [int(v) for v in args.sweep.split(",")], labels)
        return 0
    totals: dict[str, Counter[str]] = {}
    novels: Counter[str] = Counter()
    for folder in find_pdnc_novels(args.pdnc):
        split = pdnc_split(folder.name) or "other"  # "other": a folder that is not one of PDNC's 21
        novels[split] += 1
        totals.setdefault(split, Counter()).update(head_counts(folder, labels, args.show)[0])
    _table(totals, novels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
