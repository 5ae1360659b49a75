"""The gender errors behind `fabula eval characters`'s gender measure (`fabula.metrics.score_genders`).

For every gold character with at least ``--min-quotes`` quotes (default 10; 1 for every speaker)
marked male or female and matched to a discovered character as the evaluation matches them
(`fabula.tasks.pdnc_characters.score_novel_characters`), prints the tuning novels' wrong and unknown
genders, most quoted first; a frozen novel (`fabula.datasets.PDNC_FROZEN`) gives its counts only, since
its errors are not read to tune anything. Ends with right / wrong / unknown per split.

    python scripts/character_genders.py ../shared/data/pdnc [--min-quotes N]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from fabula.annotation import annotate
from fabula.datasets import MIN_SPEAKER_QUOTES, find_pdnc_novels, load_pdnc_novel, pdnc_split
from fabula.metrics import gender_outcome
from fabula.tasks.pdnc_characters import score_novel_characters


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdnc", type=Path)
    parser.add_argument("--min-quotes", type=int, default=MIN_SPEAKER_QUOTES)
    args = parser.parse_args()
    totals: dict[str, Counter[str]] = {}
    for folder in find_pdnc_novels(args.pdnc):
        novel = load_pdnc_novel(folder)
        predicted = annotate(novel.book, {"characters"}, gold=None).characters  # as eval characters
        _, details = score_novel_characters(novel, predicted, args.min_quotes)
        split = pdnc_split(novel.name) or "other"
        counts = totals.setdefault(split, Counter())
        for m in sorted(details["matches"], key=lambda m: -m["quotes"]):
            outcome = (
                None if m["matched"] is None else gender_outcome(m["gold_gender"], m["predicted_gender"])
            )
            if outcome is None:
                continue
            counts[outcome] += 1
            if outcome != "right" and split != "frozen":
                print(
                    f"{novel.name}: {outcome}: {m['gold_name']} ({m['gold_gender']}, {m['quotes']} quotes)"
                    f" -> {m['matched_name']} {m['predicted_gender']} ({m['matched_mentions']} mentions)"
                )
    for split, counts in totals.items():
        print(f"{split}: right {counts['right']}, wrong {counts['wrong']}, unknown {counts['unknown']}")


if __name__ == "__main__":
    main()
