"""How often attribution is wrong on quotes that name their own attributed speaker, against the rest.

People seldom name themselves, so a quote with a name or title mention of its attributed speaker inside
it is suspect: `fabula.describe.characteristic_lines` does not show such a line (docs/benchmarks.md,
"a line that names its own speaker"). Each novel is attributed with gold characters and the shipped
ranker, each predicted quote matched to its gold quote as `fabula eval quotes` does (scored speakers
only), and the quotes are counted by split.

    python scripts/self_named_quotes.py ../shared/data/pdnc [--novel NAME ...]
"""

from __future__ import annotations

import argparse
from collections import Counter

from fabula.datasets import find_pdnc_novels, load_pdnc_novel, pdnc_split
from fabula.describe._lines import _name_starts, _names_its_speaker
from fabula.metrics import best_overlap
from fabula.tasks.pdnc_quotes import predict_quotes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdnc")
    parser.add_argument("--novel", action="append", help="only this novel (repeatable)")
    args = parser.parse_args()
    counts: dict[str, Counter[tuple[bool, bool]]] = {}
    for folder in find_pdnc_novels(args.pdnc):
        if args.novel and folder.name not in args.novel:
            continue
        novel = load_pdnc_novel(folder)
        predicted = predict_quotes(novel, characters="gold", method="ranker").quotes
        named = _name_starts(novel.book)  # the rule `characteristic_lines` applies
        scored = novel.scored_speakers()
        split = counts.setdefault(pdnc_split(folder.name) or "tune", Counter())
        for gold, quote in zip(novel.quotes, best_overlap(novel.quotes, predicted), strict=True):
            if quote is None or gold.speaker_id not in scored or not quote.speaker_id:
                continue
            own = _names_its_speaker(quote, named.get(quote.speaker_id, []))
            split[(own, quote.speaker_id == gold.speaker_id)] += 1
    print("| split | names its speaker: quotes / speaker wrong | the others: quotes / speaker wrong |")
    print("|---|---|---|")
    for name in ("tune", "frozen"):
        if name not in counts:
            continue
        cells = []
        for own in (True, False):
            right, wrong = counts[name][(own, True)], counts[name][(own, False)]
            total = right + wrong
            cells.append(f"{total:,} / {100 * wrong / total:.1f} %" if total else "0 / -")
        print(f"| {name} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
