"""Merge the candidate files and the first-pass judgements into data/recap/gold.jsonl (the task's format).

python scripts/recap_gold.py [DATA_DIR]   (default: data/recap)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "recap"


def main(data: Path = DATA) -> None:
    judged = {}
    for line in (data / "judgements.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        judged[row["id"]] = row["related"]
    out = []
    for path in sorted(data.glob("*.candidates.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["id"] not in judged:
                continue  # sampled but not annotated
            related = judged[record["id"]]
            record["gold"] = sorted(int(i) for i in related)
            record["reasons"] = {str(i): related[str(i)] for i in record["gold"]}
            out.append(json.dumps(record, ensure_ascii=False))
    (data / "gold.jsonl").write_text("".join(line + "\n" for line in out), encoding="utf-8")
    print(len(out), "targets")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA)
