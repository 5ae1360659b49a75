"""What discovery's clusters get wrong on PDNC novels, with the evidence between the clusters involved.

For every scored gold character (>= 10 quotes) spread over two or more discovery clusters (a split),
and every cluster holding distinctive names of two gold characters (a merge), prints the clusters'
forms and, for each pair of forms across them, what the clustering read off the book: shared
sentences (``tog``, the cannot-link evidence), shared sentences plus tagged turns (``apart``),
vocative replies (``addr``) and links the text states (``link``). A split with no evidence between its
clusters needs something the rules do not read; one with evidence shows which veto kept them apart.

Runs discovery as `fabula eval characters` does (quotes detected first), at the clustering stage
(before `find_characters` renumbers). Only the tuning novels by default: the frozen ones are for
measuring, not for reading errors.

    python scripts/cluster_evidence.py ../shared/data/pdnc [NOVEL ...]
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

from fabula.annotation import annotate
from fabula.characters import name_key
from fabula.characters._discover._clustering import _Cluster, _Clustering
from fabula.characters._discover._passes import run_passes
from fabula.datasets import MIN_SPEAKER_QUOTES, PDNC_TUNE, load_pdnc_novel

_Form = tuple[str | None, tuple[str, ...]]


def _render(form: _Form) -> str:
    honorific, words = form
    return (f"{honorific} " if honorific else "") + " ".join(words)


def _evidence(state: _Clustering, a: _Cluster, b: _Cluster) -> dict[str, list[tuple[str, str, int]]]:
    """Per kind of evidence, the form pairs across ``a`` and ``b`` that have some, with the count."""
    kinds = {"tog": state.together, "apart": state.apart, "addr": state.addressed, "link": state.links}
    found: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for fa in a.forms:
        for fb in b.forms:
            for kind, counts in kinds.items():
                n = counts.get((fa, fb), 0) + counts.get((fb, fa), 0)
                if n:
                    found[kind].append((_render(fa), _render(fb), n))
    return dict(found)


def _show(cluster: _Cluster) -> str:
    return f"#{cluster.id} {cluster.gender} {{{', '.join(f'{_render(f)}: {n}' for f, n in cluster.forms.most_common(6))}}}"


def report(folder: Path) -> None:
    """Print one novel's splits and merges with the evidence between their clusters."""
    novel = load_pdnc_novel(folder)
    annotate(novel.book, {"quotes"}, gold=None)
    state = run_passes(novel.book).clustering
    owners: dict[str, set[str]] = defaultdict(set)
    for g in novel.characters:
        for name in g.all_names():
            owners[name_key(name)].add(g.id)
    names = {g.id: g.name for g in novel.characters}
    scored = {cid for cid, n in novel.quote_counts.items() if n >= MIN_SPEAKER_QUOTES}
    covers: dict[int, Counter[str]] = {}
    for cluster in state.clusters.values():
        golds: Counter[str] = Counter()
        for form, n in cluster.forms.items():
            owner = owners.get(name_key(_render(form)), set())
            if len(owner) == 1:
                golds[next(iter(owner))] += n
        covers[cluster.id] = golds
    print(f"=== {novel.name}")
    by_gold: dict[str, list[_Cluster]] = defaultdict(list)
    for cid, golds in covers.items():
        for gid in golds:
            by_gold[gid].append(state.clusters[cid])
    for gid, clusters in by_gold.items():
        if gid not in scored or len(clusters) < 2:
            continue
        print(f"  SPLIT {names[gid]}")
        for cluster in clusters:
            print(f"    {_show(cluster)}")
        for i, a in enumerate(clusters):
            for b in clusters[i + 1 :]:
                print(f"      #{a.id} / #{b.id}: {_evidence(state, a, b) or 'no evidence'}")
    for cid, golds in covers.items():
        if len(golds) >= 2 and set(golds) & scored:
            print(f"  MERGE {[names[g] for g in golds]}: {_show(state.clusters[cid])}")


def main(argv: list[str]) -> int:
    root = Path(argv[0])
    wanted = argv[1:] or sorted(PDNC_TUNE)
    for name in wanted:
        report(root / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
