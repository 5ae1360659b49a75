"""What discovery sets aside (entries never shown as people, `SET_ASIDE_EVIDENCE`), per split, with the
threshold chosen leave-one-novel-out.

    python scripts/set_aside_loo.py ../shared/data/pdnc [--values 0,1,2,3,4] [--weight 2] [--show]

For every PDNC novel and every value of `fabula.characters._discover._passes.SET_ASIDE_EVIDENCE` (0: nothing
is set aside) the cast is found as every command finds it (`fabula.annotation.annotate`), and the entries set
aside (``book.set_aside``) are counted: by the hand labels of ``data/characters/unlisted_names.tsv``
(``not`` / ``person`` / ``unclear`` / unlabelled) when no name of theirs is on the novel's PDNC list, and the
gold-listed characters no cast entry names any more (any size; those that speak in the gold quotes; those
with >= 10 quotes, which must never go). Leave one novel out: each novel gets the value with the most
labelled non-persons set aside minus ``weight`` x gold-listed speakers lost over the other novels (ties to
the smaller value). A speaker is a person: a gold-listed character who speaks is what the cast must keep.

``--show`` lists the tuning novels' entries set aside at the current value; the frozen novels are only ever
counted (nobody studies the frozen novels' errors).
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
from nonpersons_top20 import hand_label
from personhood_loo import hand_labels

COLUMNS = (
    "not",
    "person",
    "unclear",
    "unlabelled",
    "listed",
    "gold lost",
    "gold speakers lost",
    "gold >= 10 quotes lost",
)


def novel_counts(folder: Path, labels: dict[tuple[str, str], str], show: bool = False) -> Counter[str]:
    """One novel at the current `SET_ASIDE_EVIDENCE`: its entries set aside by label, and the gold-listed
    characters (any size / speakers / >= 10 quotes) that no entry of the cast names any more."""
    novel = load_pdnc_novel(folder)
    book = novel.book
    annotate(book, {"characters"})
    owners: dict[str, set[str]] = {}  # a gold name's key -> the gold characters bearing it
    for g in novel.characters:
        for n in g.all_names():
            if not is_pseudo_name(n):
                owners.setdefault(name_key(n), set()).add(g.id)

    def gold_of(names: tuple[str, ...]) -> set[str]:
        return {g for n in names for g in owners.get(name_key(n), ())}

    counts: Counter[str] = Counter()
    for entry in book.set_aside:
        names = tuple(n for n in entry.all_names() if not is_pseudo_name(n))
        listed = bool(gold_of(names))
        label = "listed" if listed else hand_label(folder.name, list(names), labels) or "unlabelled"
        counts[label] += 1
        if show and pdnc_split(folder.name) != "frozen":
            print(f"{folder.name}: {entry.name} ({entry.mention_count} name mentions): {label}")
    kept = {g for c in book.characters for g in gold_of(c.all_names())}
    before = kept | {g for c in book.set_aside for g in gold_of(c.all_names())}
    lost = before - kept
    quotes = Counter(q.speaker_id for q in novel.quotes if q.speaker_id)
    counts["gold lost"] = len(lost)
    counts["gold speakers lost"] = sum(quotes[g] > 0 for g in lost)
    counts["gold >= 10 quotes lost"] = sum(quotes[g] >= MIN_SPEAKER_QUOTES for g in lost)
    return counts


def _row(name: str, counts: Counter[str]) -> str:
    return f"| {name} | " + " | ".join(str(counts[c]) for c in COLUMNS) + " |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdnc", type=Path)
    parser.add_argument("--values", default="0,1,2,3,4", help="SET_ASIDE_EVIDENCE values to compare")
    parser.add_argument("--weight", type=float, default=2.0, help="cost of a gold-listed speaker lost")
    parser.add_argument("--show", action="store_true", help="list the tuning novels' entries set aside")
    args = parser.parse_args(argv)
    labels = hand_labels()
    values = [int(v) for v in args.values.split(",")]
    folders = find_pdnc_novels(args.pdnc)
    current = _passes.SET_ASIDE_EVIDENCE
    counts: dict[tuple[str, int], Counter[str]] = {}
    try:
        for value in values:
            _passes.SET_ASIDE_EVIDENCE = value
            for folder in folders:
                counts[folder.name, value] = novel_counts(folder, labels, args.show and value == current)
    finally:
        _passes.SET_ASIDE_EVIDENCE = current
    splits = {f.name: pdnc_split(f.name) or "other" for f in folders}
    header = "| SET_ASIDE_EVIDENCE, split | " + " | ".join(COLUMNS) + " |"
    print(header + "\n|---|" + "---:|" * len(COLUMNS))
    for value in values:
        for split in dict.fromkeys(splits.values()):
            total: Counter[str] = Counter()
            for name, s in splits.items():
                if s == split:
                    total.update(counts[name, value])
            print(_row(f"{value}, {split}", total))

    def gain(name: str, value: int) -> float:
        c = counts[name, value]
        return c["not"] - args.weight * c["gold speakers lost"]

    chosen: Counter[int] = Counter()
    loo: dict[str, Counter[str]] = {}
    for name, split in splits.items():
        best = max(values, key=lambda v: (sum(gain(o, v) for o in splits if o != name), -v))
        chosen[best] += 1
        loo.setdefault(split, Counter()).update(counts[name, best])
    print(f"leave-one-novel-out (values chosen: {dict(sorted(chosen.items()))}):")
    for split, total in loo.items():
        print(_row(f"LOO, {split}", total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
