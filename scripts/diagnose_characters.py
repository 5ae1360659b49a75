"""Print what character discovery gets wrong on PDNC novels: splits and merges, with evidence.

For every scored gold character (>= 10 quotes) covered by two or more predicted characters, the
predicted characters covering it (canonical name, mention count, the covering names with counts);
for every merge, the predicted character and the gold characters it covers. Used to tell clustering
errors from artefacts of the metric (a 1-mention cluster carrying a gold alias).

    python scripts/diagnose_characters.py ../shared/data/pdnc [NOVEL ...]
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from fabula.annotation import annotate
from fabula.book import Character
from fabula.characters import is_pseudo_name, name_key
from fabula.datasets import MIN_SPEAKER_QUOTES, find_pdnc_novels, load_pdnc_novel


def _names(character: Character) -> set[str]:
    return {name_key(n) for n in character.all_names() if not is_pseudo_name(n) and name_key(n)}


def _describe(p: Character, keys: set[str] | None = None) -> str:
    aliases = sorted(p.aliases.items(), key=lambda kv: -kv[1])
    shown = [f"{a}:{n}" for a, n in aliases if keys is None or name_key(a) in keys]
    return f"{p.id} [{p.name}] m={p.mention_count} names={sum(p.aliases.values())} {{{', '.join(shown[:8])}}}"


def diagnose(folder: Path) -> None:
    novel = load_pdnc_novel(folder)
    predicted = annotate(novel.book, {"characters"}, gold=None).characters  # the cast eval characters scores
    scored = {cid for cid, n in novel.quote_counts.items() if n >= MIN_SPEAKER_QUOTES}
    owners: dict[str, set[str]] = defaultdict(set)
    for g in novel.characters:
        for key in _names(g):
            owners[key].add(g.id)
    gold_by_id = {g.id: g for g in novel.characters}
    print(f"=== {novel.name}")
    for g in novel.characters:
        if g.id not in scored:
            continue
        distinctive = {k for k in _names(g) if owners[k] == {g.id}}
        covering = [p for p in predicted if _names(p) & distinctive]
        if len(covering) >= 2:
            print(f"  SPLIT {g.name} {sorted(g.all_names())}")
            for p in covering:
                print(f"      {_describe(p, distinctive)}")
        for p in predicted:
            keys = _names(p)
            others = {gid for k in keys if len(owners.get(k, ())) == 1 for gid in owners[k] if gid != g.id}
            if (
                keys & distinctive
                and others
                and p
                is max(
                    (q for q in predicted if _names(q) & _names(g)),
                    key=lambda q: sum(n for a, n in q.aliases.items() if name_key(a) in _names(g)),
                )
            ):
                print(f"  MERGE {g.name} with {[gold_by_id[o].name for o in others]}: {_describe(p)}")


def main() -> None:
    root = Path(sys.argv[1])
    wanted = set(sys.argv[2:])
    for folder in find_pdnc_novels(root):
        if not wanted or folder.name in wanted:
            diagnose(folder)


if __name__ == "__main__":
    main()
