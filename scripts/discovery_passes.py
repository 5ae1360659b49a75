"""What each pass of character discovery does on PDNC novels: the scores with every pass, then with
each switchable pass switched off (`fabula.characters.DISCOVERY_PASSES`).

    python scripts/discovery_passes.py ../shared/data/pdnc [--split tune|frozen|all] [--pass NAME ...]
        [--fingerprint]

Prints one markdown row per configuration: macro recall, merge and split rates (strict, %), alias
recall, and the count of top-20 cast entries that carry no gold name (``unlisted_top20``, summed),
with the change against all passes on. A pass whose removal changes nothing on the split is listed
as such. ``--fingerprint`` prints instead a hash of every novel's discovered cast and name mentions
(to check that a refactor keeps the casts byte-identical).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

from fabula.characters import DISCOVERY_PASSES, find_characters
from fabula.characters._discover import PASSES, discover_characters
from fabula.datasets import PdncNovel, find_pdnc_novels, load_pdnc_novel, pdnc_split
from fabula.metrics import mean_of
from fabula.tasks.pdnc_characters import score_novel_characters

SHOWN = ["recall", "merge_rate", "split_rate", "alias_recall"]


def fingerprint(novel: PdncNovel) -> str:
    """A hash of the discovered characters (id, name, gender) and name mentions of ``novel``."""
    characters, mentions = discover_characters(novel.book)
    h = hashlib.sha256()
    for c in characters:
        h.update(f"{c.id}|{c.name}|{c.gender}\n".encode())
    for m in mentions:
        h.update(f"{m.start},{m.end},{m.character_id},{m.kind},{m.confidence}\n".encode())
    return h.hexdigest()[:16]


def measure(novels: list[PdncNovel], skip: tuple[str, ...]) -> dict[str, float]:
    """Macro means of `SHOWN` and the summed unlisted top-20 entries with the passes ``skip`` off."""
    per_novel: dict[str, list[float | None]] = {m: [] for m in SHOWN}
    unlisted = 0
    for novel in novels:
        predicted = find_characters(novel.book, skip=skip)
        scores, details = score_novel_characters(novel, predicted)
        for m in SHOWN:
            per_novel[m].append(scores[m])
        unlisted += details["unlisted_top20"]
    out = {m: 100 * (mean_of(v) or 0.0) for m, v in per_novel.items()}
    out["unlisted_top20"] = unlisted
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdnc", type=Path)
    parser.add_argument("--split", choices=["tune", "frozen", "all"], default="tune")
    parser.add_argument("--pass", dest="passes", action="append", choices=DISCOVERY_PASSES, default=None)
    parser.add_argument("--fingerprint", action="store_true")
    args = parser.parse_args(argv)
    folders = [
        f for f in find_pdnc_novels(args.pdnc) if args.split == "all" or pdnc_split(f.name) == args.split
    ]
    novels = [load_pdnc_novel(f) for f in folders]
    if args.fingerprint:
        total = hashlib.sha256()
        for novel in novels:
            digest = fingerprint(novel)
            total.update(digest.encode())
            print(f"{novel.name} {digest}")
        print(f"all {total.hexdigest()[:16]}")
        return 0
    started = time.process_time()
    base = measure(novels, ())
    columns = [*SHOWN, "unlisted_top20"]
    print(f"{args.split} split, {len(novels)} novels; strict rates, macro %; unlisted_top20 summed")
    print(f"| passes | {' | '.join(columns)} |")
    print("|---|" + "---:|" * len(columns))
    print("| all on | " + " | ".join(f"{base[c]:.1f}" for c in columns) + " |")
    unchanged = []
    for p in PASSES:
        if p.required or (args.passes and p.name not in args.passes):
            continue
        scores = measure(novels, (p.name,))
        if scores == base:
            unchanged.append(p.name)
            continue
        cells = " | ".join(f"{scores[c]:.1f} ({scores[c] - base[c]:+.1f})" for c in columns)
        print(f"| without {p.name} | {cells} |")
    if unchanged:
        print(f"no change without: {', '.join(unchanged)}")
    print(f"cpu {time.process_time() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
