"""Score character discovery against PDNC lists made richer from PDNC's own quote annotations.

The held-out novels' lists hold more aliases per person than the 21 shared lists (epithets, dialect and
pet forms), and the strict split rate counts every predicted character that holds any alias of a gold
character: a richer list turns small clusters nobody scores here into splits. This script estimates
that effect on the shared novels. Each gold character gains the forms PDNC's annotators linked to it
in the quotes: the names inside quotes (``mentionTextsList`` / ``mentionEntitiesList``) and the name in
a speech tag's referring expression (``said the lamplighter`` -> ``the lamplighter``), kept when a form
is capitalised (or ``the`` + up to three words), linked at least twice, and to one character in at
least 90 % of its links. Then recall / merge / split (strict, macro %) are printed for both lists,
per split; ``--show`` lists the tuning novels' added aliases and the splits and merges only the
richer lists see (the frozen novels only as means: they are not read one by one).

    python scripts/richer_gold_lists.py ../shared/data/pdnc [--show]
"""

from __future__ import annotations

import argparse
import ast
import csv
import re
from collections import Counter, defaultdict
from pathlib import Path
from statistics import mean
from typing import Any

from fabula.annotation import annotate
from fabula.book import Character
from fabula.characters import name_key
from fabula.characters._lexicon import HONORIFICS
from fabula.datasets import find_pdnc_novels, load_pdnc_novel, pdnc_split
from fabula.metrics import score_characters

PRONOUNS = frozenset(
    [
        "i",
        "me",
        "my",
        "mine",
        "you",
        "your",
        "yours",
        "he",
        "him",
        "his",
        "she",
        "her",
        "hers",
        "we",
        "us",
        "our",
        "they",
        "them",
        "their",
        "it",
        "its",
        "tu",
        "sir",
        "madam",
    ]
)
_VERB = (
    r"(?:said|cried|asked|replied|answered|exclaimed|continued|added|returned|remarked|observed|began|"
    r"went on|inquired|interrupted|whispered|shouted|called|proclaimed|retorted|repeated|declared|"
    r"murmured|muttered|rejoined|resumed|urged|pursued)"
)
_NAME = r"(?:[Tt]he(?: [a-z][\w-]*){1,3}|[Tt]he [A-Z][\w.'-]*(?: [A-Z][\w.'-]*)*|[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)*)"
_TAG_BEFORE = re.compile(rf"^{_VERB} ({_NAME})$")  # "said the lamplighter"
_TAG_AFTER = re.compile(rf"^({_NAME}) {_VERB}$")  # "the lamplighter said"
MIN_LINKS = 2
MIN_SHARE = 0.9


def _form(text: str) -> str | None:
    """The alias a linked mention stands for, or None (pronouns, lowercase words, long phrases)."""
    words = text.split()
    if not words or len(words) > 4 or text.lower() in PRONOUNS:
        return None
    if words[0] in ("the", "The"):
        return " ".join(["the", *words[1:]]) if len(words) > 1 else None
    return " ".join(words) if words[0][0].isupper() else None


def richer_lists(folder: Path, gold: list[Character]) -> tuple[list[Character], dict[str, set[str]]]:
    """``gold`` with the forms the quote annotations link to one character added as aliases, and the
    added forms per character id."""
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    with (folder / "quotation_info.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            expression = " ".join((row.get("referringExpression") or "").split())
            for pattern in (_TAG_BEFORE, _TAG_AFTER):
                m = pattern.match(expression)
                form = _form(m.group(1)) if m else None
                if form:
                    votes[form][row["speaker"]] += 1
            # the mention columns are PDNC's; a list without them adds the speech tags' forms only
            texts = ast.literal_eval(row.get("mentionTextsList") or "[]")
            entities = ast.literal_eval(row.get("mentionEntitiesList") or "[]")
            for group_texts, group_entities in zip(texts, entities, strict=False):
                for text, linked in zip(group_texts, group_entities, strict=False):
                    form = _form(text)
                    if form:
                        votes[form][linked[0] if len(linked) == 1 else "_several"] += 1
    owner = {name: g.id for g in gold for name in g.all_names()}
    added: dict[str, set[str]] = defaultdict(set)
    for form, counts in votes.items():
        ((top, n),) = counts.most_common(1)
        if n >= MIN_LINKS and n >= MIN_SHARE * sum(counts.values()) and top in owner:
            added[owner[top]].add(form)
    richer = []
    for g in gold:
        known = {name_key(n) for n in g.all_names()}
        new = {f for f in added.get(g.id, ()) if name_key(f) not in known}
        added[g.id] = new
        richer.append(
            Character(id=g.id, name=g.name, aliases={**g.aliases, **dict.fromkeys(new, 0)}, gender=g.gender)
        )
    return richer, added


def alias_kind(alias: str) -> str:
    """``the X`` (an epithet or role), ``title + name`` (a known honorific; "Marse Dick" is several words),
    ``one word`` or ``several words``."""
    words = alias.replace(".", "").split()
    if words[0].lower() == "the":
        return "the X"
    if words[0].lower() in HONORIFICS:
        return "title + name"
    return "one word" if len(words) == 1 else "several words"


def _split_kinds(
    plain: tuple[dict[str, Any], ...],
    rich: tuple[dict[str, Any], ...],
    predicted: list[Character],
    added: dict[str, set[str]],
) -> Counter[str]:
    """For each gold character split only on the richer list, the kind of the added alias that a
    predicted character other than its match holds."""
    by_id = {p.id: p for p in predicted}
    kinds: Counter[str] = Counter()
    for before, after in zip(plain, rich, strict=True):
        if not after["split_into"] or before["split_into"]:
            continue
        new = {name_key(a): a for a in added.get(after["gold_id"], ())}
        held = {
            new[key]
            for pid in after["split_into"]
            if pid != after["matched"]
            for key in {name_key(n) for n in by_id[pid].all_names()}
            if key in new
        }
        kinds.update({alias_kind(a) for a in held} or {"other"})
    return kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdnc")
    parser.add_argument(
        "--show", action="store_true", help="list the tuning novels' added aliases and new errors"
    )
    args = parser.parse_args()
    rows: dict[str, list[tuple[float, ...]]] = defaultdict(list)
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for folder in find_pdnc_novels(args.pdnc):
        split = pdnc_split(folder.name) or "other"
        novel = load_pdnc_novel(folder)
        predicted = annotate(novel.book, {"characters"}, gold=None).characters  # as `fabula eval characters`
        scored = novel.scored_speakers()
        richer, added = richer_lists(folder, novel.characters)
        plain = score_characters(novel.book.text, novel.characters, predicted, scored)
        rich = score_characters(novel.book.text, richer, predicted, scored)
        kinds[split].update(_split_kinds(plain.matches, rich.matches, predicted, added))
        rows[split].append(
            tuple(
                100 * (v or 0.0)
                for v in (
                    plain.recall,
                    plain.merge_rate,
                    plain.split_rate,
                    rich.recall,
                    rich.merge_rate,
                    rich.split_rate,
                )
            )
        )
        if args.show and split == "tune":
            print(f"== {folder.name}")
            for g in novel.characters:
                if g.id in scored and added.get(g.id):
                    print(f"   + {g.name}: {sorted(added[g.id])}")
            for before, after in zip(plain.matches, rich.matches, strict=True):
                if after["split_into"] and not before["split_into"]:
                    print(f"   split only on the richer list: {after['gold_name']} {after['split_into']}")
                if after["merged_with"] and not before["merged_with"]:
                    print(f"   merge only on the richer list: {after['gold_name']} ({after['matched_name']})")
    for part, counts in sorted(kinds.items()):
        print(f"{part}: splits only the richer lists see, by the added alias behind them: {dict(counts)}")
    print("| split | novels | PDNC lists: recall / merge / split | richer lists: recall / merge / split |")
    print("|---|---:|---|---|")
    for part, values in sorted(rows.items()):
        means = [mean(v[i] for v in values) for i in range(6)]
        print(
            f"| {part} | {len(values)} | {means[0]:.1f} / {means[1]:.1f} / {means[2]:.1f} "
            f"| {means[3]:.1f} / {means[4]:.1f} / {means[5]:.1f} |"
        )


if __name__ == "__main__":
    main()
