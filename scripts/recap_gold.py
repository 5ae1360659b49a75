"""Merge the candidate files and the first-pass judgements into data/recap/gold.jsonl (the task's format).

python scripts/recap_gold.py [DATA_DIR]   (default: data/recap)

Each target gets its ``split`` (data/recap/README.md): every target of a novel in PDNC's frozen half
(`fabula.datasets.PDNC_FROZEN`) is *frozen*; in the other novels the ``TUNING_PER_NOVEL`` targets earliest
in the book are *tuning* and the rest *frozen*.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fabula.datasets import PDNC_FROZEN

DATA = Path(__file__).resolve().parents[1] / "data" / "recap"
TUNING_PER_NOVEL = 8


def split_of(record: dict[str, object], rank: int) -> str:
    """``rank``: the target's place among its novel's judged targets in book order (0 = earliest)."""
    novel = Path(str(record["book"])).parent.name
    return "frozen" if novel in PDNC_FROZEN or rank >= TUNING_PER_NOVEL else "tuning"


def main(data: Path = DATA) -> None:
    judged = {}
    for line in (data / "judgements.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        judged[row["id"]] = row["related"]
    out = []
    for path in sorted(data.glob("*.candidates.jsonl")):
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        records = sorted((r for r in records if r["id"] in judged), key=lambda r: r["target"][0])
        for rank, record in enumerate(records):  # unjudged (sampled but not annotated) are left out
            related = judged[record["id"]]
            record["gold"] = sorted(int(i) for i in related)
            record["reasons"] = {str(i): related[str(i)] for i in record["gold"]}
            record["split"] = split_of(record, rank)
            out.append(json.dumps(record, ensure_ascii=False))
    (data / "gold.jsonl").write_text("".join(line + "\n" for line in out), encoding="utf-8")
    print(len(out), "targets")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA)
