"""How often a discovered entry's display name is what the gold list calls the person, under the shipped
policy and three others (docs/benchmarks.md, "Display names, measured and left").

For every gold character with at least 10 quotes that a discovered entry holds (the entry holding one of
its names with the most mentions): whether the entry's display name is the list's main name, and whether
it is one of the person's listed names (case and periods ignored), macro over those characters, per split.
The policies, each swapped in for `_canonical` in turn:

* ``current``: the shipped one, the fullest form used a fair number of times, a titled one first;
* ``given-first``: the same, but an untitled form of as many words used three times as often wins
  ("Nora" over "Miss Holloway");
* ``full-name``: a "Given Surname" form used twice whose given name is frequent and whose surname a
  frequent titled form carries wins ("Nora Holloway");
* ``most-frequent``: the form used most.

    python scripts/display_names.py ../shared/data/pdnc
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import fabula.characters._discover._passes as passes
from fabula.characters import find_characters
from fabula.datasets import MIN_SPEAKER_QUOTES, find_pdnc_novels, load_pdnc_novel, pdnc_split
from fabula.quotes import detect_quotes

Form = tuple[str | None, tuple[str, ...]]
SHIPPED = passes._canonical


def _render(form: Form) -> str:
    honorific, words = form
    name = " ".join(words)
    if honorific == "the":
        return f"the {name}"
    if honorific:
        return (
            honorific.capitalize()
            + ("." if honorific in {"mr", "mrs", "dr", "st", "ms"} else "")
            + " "
            + name
        )
    return name


def _forms(cluster: passes._Cluster) -> tuple[Counter[Form], list[Form]]:
    """The cluster's forms as `_canonical` reads them, and those used a fair number of times."""
    forms = Counter({f: n for f, n in cluster.forms.items() if f not in cluster.prefixed}) or cluster.forms
    return forms, [f for f, n in forms.items() if n >= max(2, 0.1 * cluster.size)]


def given_first(cluster: passes._Cluster) -> str:
    forms, frequent = _forms(cluster)
    if not frequent:
        return _render(forms.most_common(1)[0][0])
    best = max(frequent, key=lambda f: (len(f[1]), f[0] not in (None, "the"), forms[f]))
    plain = [
        f for f in frequent if f[0] is None and len(f[1]) == len(best[1]) and forms[f] >= 3 * forms[best]
    ]
    if best[0] not in (None, "the") and plain:
        best = max(plain, key=lambda f: forms[f])
    return _render(best)


def full_name(cluster: passes._Cluster) -> str:
    forms, frequent = _forms(cluster)
    singles = {f[1][0] for f in frequent if f[0] is None and len(f[1]) == 1}
    surnames = {f[1][-1] for f in frequent if f[0] not in (None, "the")}
    fulls = [
        f
        for f, n in forms.items()
        if f[0] is None and len(f[1]) == 2 and f[1][0] in singles and f[1][1] in surnames and n >= 2
    ]
    return _render(max(fulls, key=lambda f: forms[f])) if fulls else SHIPPED(cluster)


def most_frequent(cluster: passes._Cluster) -> str:
    return _render(_forms(cluster)[0].most_common(1)[0][0])


POLICIES: dict[str, Callable[[passes._Cluster], str]] = {
    "current": SHIPPED,
    "given-first": given_first,
    "full-name": full_name,
    "most-frequent": most_frequent,
}


def _key(name: str) -> str:
    return re.sub(r"[.\s]+", " ", name.lower()).strip()


def agreement(pdnc: Path) -> Counter[tuple[str, str, str]]:
    """(policy, split, "n" | "main" | "listed") -> count."""
    counts: Counter[tuple[str, str, str]] = Counter()
    folders = find_pdnc_novels(pdnc)
    try:
        for policy, canonical in POLICIES.items():
            passes._canonical = canonical
            for folder in folders:
                novel = load_pdnc_novel(folder)
                book = novel.book
                detect_quotes(book)
                find_characters(book)
                quotes = Counter(q.speaker_id for q in novel.quotes)
                for person in novel.characters:
                    if quotes[person.id] < MIN_SPEAKER_QUOTES:
                        continue
                    names = {_key(n) for n in person.all_names()}
                    holders = [c for c in book.characters if names & {_key(n) for n in c.all_names()}]
                    if not holders:
                        continue
                    shown = _key(max(holders, key=lambda c: c.mention_count or 0).name)
                    split = pdnc_split(folder.name) or "other"
                    counts[policy, split, "n"] += 1
                    counts[policy, split, "main"] += shown == _key(person.name)
                    counts[policy, split, "listed"] += shown in names
    finally:
        passes._canonical = SHIPPED
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdnc", type=Path)
    args = parser.parse_args()
    counts = agreement(args.pdnc)
    splits = sorted({split for _, split, _ in counts})
    print("| policy | split | characters | display name = main name (%) | = a listed name (%) |")
    print("|---|---|---:|---:|---:|")
    for policy in POLICIES:
        for split in splits:
            n = counts[policy, split, "n"]
            if n:
                main_share = 100 * counts[policy, split, "main"] / n
                listed = 100 * counts[policy, split, "listed"] / n
                print(f"| {policy} | {split} | {n} | {main_share:.1f} | {listed:.1f} |")


if __name__ == "__main__":
    main()
