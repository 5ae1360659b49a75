"""Append one judgement line: python scripts/recap_judge.py FILE ID 'IDX=reason' ... (no IDX: none related)."""

import json
import sys
from pathlib import Path

path, item_id, *pairs = sys.argv[1:]
related = {}
for pair in pairs:
    index, reason = pair.split("=", 1)
    related[str(int(index))] = reason.strip()
with Path(path).open("a", encoding="utf-8") as out:
    out.write(json.dumps({"id": item_id, "related": related}, ensure_ascii=False) + "\n")
print(item_id, sorted(map(int, related)))
