"""Quote attribution with gold characters when the gold lists follow other annotators' conventions.

The held-out PDNC-2 novels' lists differ from the 21 shared ones in how they write people down; this
script re-scores the shared novels with their lists rewritten in the ways other lists plausibly
differ, and prints explicit and overall accuracy (macro %, per split) for each rewrite. Every rewrite
keeps each listed character's id, so the gold quotes' speakers stay the same; an added entry is a new
id nobody speaks as. PDNC's pseudo-speakers (``_narr``, ``_group``...) are left as they are.

* ``as-written``: the list as published.
* ``richer``: the forms PDNC's annotators link to one character added (`richer_gold_lists.richer_lists`).
* ``main-only`` / ``main-plus-one``: the main name alone, or with its first alias (sorted).
* ``unmarked``: no narrator marker (PDNC's ``_narr`` aliases of a first-person narrator's
  entry), as a list of one's own has none.
* ``ungendered``: no genders (every entry ``unknown``), as in a list of names and aliases only.
* ``swapped``: the longest alias is the main name, the published main name an alias.
* ``untitled``: "Mr. X" listed as "X" (unless another entry holds "X"), no titled alias.
* ``titled``: a man's surname gains "Mr. S"; every titled name gains its form without the period ("Mr S").
* ``qualified``: every main name carries a qualifier after a spaced dash ("Name - Story").
* ``placeholders``: a bare-surname entry of gender X, category minor, beside each surname's holders.
* ``family``: a never-speaking relative for each surname: "Mrs. S" beside a man's "Mr. S", "Mr. S"
  beside a woman's "Miss S" (only where no entry holds it).

    python scripts/gold_list_variants.py ../shared/data/pdnc [--variant NAME ...] [--novel NAME ...]
        [--show]   # the tuning novels' explicit quotes a rewrite loses (never the frozen ones')
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from statistics import mean

from fabula.book import Character
from fabula.characters._gold_match import is_pseudo_name
from fabula.characters._lexicon import HONORIFICS, NAME_PARTICLES, SURNAME_HONORIFICS
from fabula.characters._text import split_honorific
from fabula.datasets import PdncNovel, find_pdnc_novels, is_pseudo_speaker, load_pdnc_novel, pdnc_split
from fabula.metrics import best_overlap
from fabula.tasks.pdnc_quotes import predict_quotes, score_novel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from richer_gold_lists import richer_lists  # a sibling script

Rewrite = Callable[[list[Character], Path], list[Character]]


def _people(gold: list[Character]) -> list[Character]:
    return [c for c in gold if not is_pseudo_speaker(c.name)]


def _with(character: Character, name: str, aliases: list[str]) -> Character:
    return dataclasses.replace(character, name=name, aliases={a: 0 for a in aliases if a != name})


def _each(gold: list[Character], change: Callable[[Character], Character]) -> list[Character]:
    return [c if is_pseudo_speaker(c.name) else change(c) for c in gold]


def as_written(gold: list[Character], folder: Path) -> list[Character]:
    return list(gold)


def richer(gold: list[Character], folder: Path) -> list[Character]:
    _, added = richer_lists(folder, gold)
    return _each(gold, lambda c: _with(c, c.name, [*c.aliases, *sorted(added.get(c.id, ()))]))


def main_only(gold: list[Character], folder: Path) -> list[Character]:
    return _each(gold, lambda c: _with(c, c.name, []))


def unmarked(gold: list[Character], folder: Path) -> list[Character]:
    return _each(gold, lambda c: _with(c, c.name, [a for a in c.aliases if not is_pseudo_name(a)]))


def ungendered(gold: list[Character], folder: Path) -> list[Character]:
    return _each(gold, lambda c: dataclasses.replace(c, gender="unknown"))


def main_plus_one(gold: list[Character], folder: Path) -> list[Character]:
    return _each(gold, lambda c: _with(c, c.name, sorted(a for a in c.aliases if a != c.name)[:1]))


def swapped(gold: list[Character], folder: Path) -> list[Character]:
    def change(c: Character) -> Character:
        names = list(c.all_names())
        longest = max(names, key=lambda n: (len(n), n))
        return _with(c, longest, [n for n in names if n != longest])

    return _each(gold, change)


def _surname(name: str) -> str | None:
    """The last word of a several-word name or of "Mr./Mrs./Miss X", when it is a capitalised
    non-particle word (not "Sir Roland"'s given name)."""
    honorific, rest = split_honorific(name)
    words = rest.split()
    if not words or (len(words) < 2 and honorific not in SURNAME_HONORIFICS):
        return None
    last = words[-1]
    return last if last[:1].isupper() and last.lower() not in NAME_PARTICLES and len(last) > 1 else None


def _held(gold: list[Character]) -> dict[str, set[str]]:
    held: dict[str, set[str]] = defaultdict(set)
    for c in gold:
        for n in c.all_names():
            held[n].add(c.id)
    return held


def untitled(gold: list[Character], folder: Path) -> list[Character]:
    held = _held(gold)
    for c in gold:  # who would hold each untitled form: two entries never get one bare name
        for n in c.all_names():
            if split_honorific(n)[0] is not None:
                held[split_honorific(n)[1]].add(c.id)

    def bare(c: Character, name: str) -> str:
        honorific, rest = split_honorific(name)
        if honorific is None or not rest.strip() or held.get(rest, set()) - {c.id}:
            return name
        return rest

    return _each(
        gold, lambda c: _with(c, bare(c, c.name), list(dict.fromkeys(bare(c, a) for a in c.aliases)))
    )


def titled(gold: list[Character], folder: Path) -> list[Character]:
    held = _held(gold)

    def change(c: Character) -> Character:
        names = list(c.all_names())
        extra = []
        for n in names:
            head = n.split(None, 1)[0]
            if split_honorific(n)[0] is not None and head.endswith("."):
                extra.append(n.replace(head, head.rstrip("."), 1))
            surname = _surname(n)
            if c.gender == "male" and surname and not held.get(f"Mr. {surname}"):
                extra.append(f"Mr. {surname}")
        return _with(c, c.name, list(dict.fromkeys([*c.aliases, *extra])))

    return _each(gold, change)


def qualified(gold: list[Character], folder: Path) -> list[Character]:
    return _each(gold, lambda c: _with(c, f"{c.name} - Story", list(c.aliases)))


def _new_entry(n: int, name: str, gender: str) -> Character:
    return Character(
        id=f"added{n}",
        name=name,
        gender=gender,  # type: ignore[arg-type]
        gender_confidence=1.0,
        source="gold",
        category="minor",
    )


def placeholders(gold: list[Character], folder: Path) -> list[Character]:
    held = _held(gold)
    surnames = sorted(
        {s for c in _people(gold) for n in c.all_names() if (s := _surname(n)) and s not in held}
    )
    return [*gold, *(_new_entry(i, s, "neutral") for i, s in enumerate(surnames))]


def family(gold: list[Character], folder: Path) -> list[Character]:
    held = _held(gold)
    wanted: dict[str, str] = {}
    for c in _people(gold):
        for n in c.all_names():
            honorific, rest = split_honorific(n)
            if honorific is None or len(rest.split()) != 1:
                continue
            if HONORIFICS.get(honorific) == "male" and n.startswith("Mr"):
                wanted.setdefault(f"Mrs. {rest}", "female")
            elif n.startswith("Miss"):
                wanted.setdefault(f"Mr. {rest}", "male")
    added = [name for name in sorted(wanted) if name not in held and name.replace(".", "") not in held]
    return [*gold, *(_new_entry(i, name, wanted[name]) for i, name in enumerate(added))]


VARIANTS: dict[str, Rewrite] = {
    "as-written": as_written,
    "richer": richer,
    "main-only": main_only,
    "main-plus-one": main_plus_one,
    "unmarked": unmarked,
    "ungendered": ungendered,
    "swapped": swapped,
    "untitled": untitled,
    "titled": titled,
    "qualified": qualified,
    "placeholders": placeholders,
    "family": family,
}


def score(folder: Path, rewrite: Rewrite, show: bool) -> tuple[float | None, float | None]:
    """(accuracy, explicit accuracy) of one novel with its rewritten list (fresh from disk: a run
    annotates the book)."""
    novel: PdncNovel = load_pdnc_novel(folder)
    novel.characters = rewrite(novel.characters, folder)
    result = predict_quotes(novel, characters="gold", method="ranker")
    scores, _, _ = score_novel(novel, result.quotes)
    if show:
        _show_lost(novel, result.quotes)
    return scores["accuracy"], scores["explicit"]


def _show_lost(novel: PdncNovel, predicted: list) -> None:  # type: ignore[type-arg]
    """The scored explicit quotes attributed wrongly: speech tag, gold and predicted speaker."""
    names = {c.id: c.name for c in novel.characters}
    scored = novel.scored_speakers()
    best = best_overlap(novel.quotes, predicted)
    for gold, quote in zip(novel.quotes, best, strict=True):
        if gold.type != "explicit" or gold.speaker_id not in scored:
            continue
        said = quote.speaker_id if quote is not None else None
        if said != gold.speaker_id:
            print(
                f"   {novel.name} {gold.id}: {gold.referring_expression!r} gold {names.get(gold.speaker_id or '')!r}"
                f" predicted {names.get(said or '', said)!r}"
            )


def _cell(rows: list[tuple[float | None, float | None]]) -> str:
    """Macro accuracy / explicit (%) over the novels that have a score."""
    parts = [[100 * v for v in column if v is not None] for column in zip(*rows, strict=True)]
    return " / ".join(f"{mean(p):.1f}" if p else "-" for p in parts) if rows else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdnc")
    parser.add_argument(
        "--variant", action="append", choices=sorted(VARIANTS), help="repeatable; default all"
    )
    parser.add_argument("--novel", action="append", help="only this novel (repeatable)")
    parser.add_argument("--show", action="store_true", help="list the tuning novels' wrong explicit quotes")
    parser.add_argument("--per-novel", action="store_true", help="each novel's accuracy / explicit too")
    args = parser.parse_args()
    folders = [f for f in find_pdnc_novels(args.pdnc) if not args.novel or f.name in args.novel]
    print("| list | tune: accuracy / explicit | frozen: accuracy / explicit | novels | s |")
    print("|---|---|---|---:|---:|")
    for name in args.variant or list(VARIANTS):
        started = time.perf_counter()
        rows: dict[str, list[tuple[float | None, float | None]]] = defaultdict(list)
        for folder in folders:
            split = pdnc_split(folder.name) or "tune"  # a novel outside PDNC's 21 is readable: tune
            accuracy, explicit = score(folder, VARIANTS[name], args.show and split == "tune")
            rows[split].append((accuracy, explicit))
            if args.per_novel:
                print(f"   {name} {folder.name} ({split}): {_cell([(accuracy, explicit)])}")
        cells = [_cell(rows[s]) for s in ("tune", "frozen")]
        took = time.perf_counter() - started
        print(f"| {name} | {cells[0]} | {cells[1]} | {len(folders)} | {took:.0f} |", flush=True)


if __name__ == "__main__":
    main()
