"""How often fabula's discovered characters get the gender PDNC gives them.

For every scored gold character (>= 10 quotes) marked male or female, the discovered character that
shares one of its names and has the most mentions is compared with it; prints the wrong ones, then
the counts right / wrong / unknown.

    python scripts/character_genders.py ../shared/data/pdnc
"""

from __future__ import annotations

import sys
from pathlib import Path

from fabula.annotation import annotate
from fabula.characters import name_key
from fabula.datasets import MIN_SPEAKER_QUOTES, find_pdnc_novels, load_pdnc_novel


def main(root: str) -> None:
    right = wrong = unknown = 0
    for folder in find_pdnc_novels(Path(root)):
        novel = load_pdnc_novel(folder)
        predicted = annotate(novel.book, {"characters"}, gold=None).characters  # as eval characters
        for gold in novel.characters:
            if novel.quote_counts.get(gold.id, 0) < MIN_SPEAKER_QUOTES or gold.gender not in (
                "male",
                "female",
            ):
                continue
            keys = {name_key(n) for n in gold.all_names()}
            matches = [p for p in predicted if {name_key(n) for n in p.all_names()} & keys]
            if not matches:
                continue
            best = max(matches, key=lambda p: p.mention_count)
            if best.gender == "unknown":
                unknown += 1
            elif best.gender == gold.gender:
                right += 1
            else:
                wrong += 1
                print(f"{novel.name}: {gold.name} is {gold.gender}, predicted {best.name} {best.gender}")
    print(f"right {right}, wrong {wrong}, unknown {unknown}")


if __name__ == "__main__":
    main(sys.argv[1])
