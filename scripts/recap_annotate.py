"""Print recap targets with their candidates compactly, for reading and judging by hand.

python scripts/recap_annotate.py build NOVEL PREFIX   # writes data/recap/PREFIX.candidates.jsonl (no gold)
python scripts/recap_annotate.py show ID [FROM:TO]    # prints one target and its 60 candidates

``build`` uses the paper's construction as fabula has it now (`RecapSpec(seed=15)`: 6-sentence candidates,
gap counted from the central sentence, main characters named > 100 times). The PP and SF files were built
by an earlier construction (7-sentence candidates, gap from the target's start, top-5 characters) and are
kept as they are; ``build`` refuses to overwrite an existing file, so judged targets never move.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fabula.book import load_book
from fabula.recap._construct import RecapSpec, sample_targets
from fabula.recap._data import read_records, write_targets

DATA = Path(__file__).resolve().parents[1] / "data" / "recap"
PER_NOVEL = 16


def build(novel: str, prefix: str) -> None:
    """Sample ``PER_NOVEL`` targets of the PDNC novel folder ``novel``, ids ``PREFIX-<first sentence>``."""
    out = DATA / f"{prefix}.candidates.jsonl"
    if out.exists():
        sys.exit(f"{out}: exists; judged targets must not move (delete it by hand to rebuild)")
    rel = f"../../../shared/data/pdnc/{novel}/novel_text.txt"
    book = load_book(DATA / rel)
    batch = sample_targets(book, PER_NOVEL, RecapSpec(seed=15), prefix=f"{prefix}-")
    print(write_targets(out, batch, rel), "targets")


def show(item_id: str) -> None:
    for path in sorted(DATA.glob("*.candidates.jsonl")):
        for record in read_records(path):
            if record["id"] != item_id:
                continue
            text = (path.parent / record["book"]).read_text(encoding="utf-8")  # relative to the data

            def clip(span: list[int], text: str = text) -> str:
                return " ".join(text[span[0] : span[1]].split())

            n = len(record["candidates"])
            lo, hi = (int(x) for x in (sys.argv[3] if len(sys.argv) > 3 else "0:60").split(":"))
            for i, span in enumerate(record["candidates"]):
                if not lo <= i < hi:
                    continue
                print(f"[{i}|d{n - i}] {clip(span)}")
            print(f"=== TARGET {item_id}: {clip(record['target'])}")
            return
    sys.exit(f"no target {item_id}")


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3])
    else:
        show(sys.argv[2])
