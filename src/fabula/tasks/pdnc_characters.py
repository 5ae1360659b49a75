"""Character discovery scored against PDNC's character lists (issue 3's protocol).

For every novel the characters are discovered without the gold list, then compared with the gold
characters that speak at least 10 times (major and intermediate, as in the standard PDNC evaluation).
Names are compared by `fabula.characters.name_key` (case, periods and spacing ignored); PDNC pseudo
names (``_narr``) are ignored.

- recall: share of scored gold characters for which some predicted character has the gold main name or
  one of its aliases among its names (canonical name or aliases).
- A predicted character *covers* a gold character when it has one of that character's *distinctive*
  names (names no other gold character lists). The *matched* prediction of a gold character is the
  recalled prediction with the most mentions under that character's names.
- merge_rate: share of scored gold characters whose matched prediction also covers another gold
  character (any category).
- split_rate: share of scored gold characters covered by two or more predicted characters.
- merge_rate_substantial / split_rate_substantial: the same over *substantial* coverage only: a
  predicted character covers a gold character substantially when at least ``SUBSTANTIAL_MIN`` (3)
  of its name mentions, and ``SUBSTANTIAL_SHARE`` (5 %) of all predicted name mentions under that
  gold character's distinctive names, are its own. A 1–2 mention cluster that happens to hold a
  gold alias ("Mrs. Robert Ferrars" once) is noise a reader never notices; a character shown twice
  with dozens of mentions each is the error the strict rates are meant to catch. Both are reported;
  the acceptance targets are stated on the strict rates.
- alias_recall: over the names of scored gold characters that occur in the text (case-sensitive whole
  words, a leading article in either case), the share found among the names of the matched prediction
  (pooled per novel; names of unrecalled characters count as missed).
"""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fabula.book import Character
from fabula.characters import find_characters, name_key
from fabula.characters._gold_match import is_pseudo_name
from fabula.datasets import find_pdnc_novels, load_pdnc_novel
from fabula.datasets._pdnc import MIN_SPEAKER_QUOTES
from fabula.tasks._evaluation import EvalReport

METRICS = [
    "recall",
    "merge_rate",
    "split_rate",
    "alias_recall",
    "merge_rate_substantial",
    "split_rate_substantial",
]
SUBSTANTIAL_MIN = 3
SUBSTANTIAL_SHARE = 0.05


def evaluate_characters(
    pdnc_dir: str | Path,
    *,
    novels: list[str] | None = None,
    ner_model: str | None = None,
    min_quotes: int = MIN_SPEAKER_QUOTES,
    progress: Callable[[str], None] | None = None,
) -> EvalReport:
    """Discover the characters of each PDNC novel and score them (see the module docstring)."""
    report = EvalReport(
        task="characters",
        metrics=list(METRICS),
        settings={
            "min_quotes": min_quotes,
            "ner_model": ner_model,
            "method": "rules" + ("+ner" if ner_model else ""),
        },
    )
    for folder in find_pdnc_novels(pdnc_dir):
        if novels and folder.name not in novels:
            continue
        novel = load_pdnc_novel(folder)
        started = time.perf_counter()
        predicted = find_characters(novel.book, ner_model=ner_model)
        seconds = time.perf_counter() - started
        scored = {cid for cid, n in novel.quote_counts.items() if n >= min_quotes}
        name_counts: dict[str, Counter[str]] = defaultdict(Counter)
        for m in novel.book.mentions:
            if m.kind != "pronoun" and m.character_id is not None:
                name_counts[m.character_id][name_key(novel.book.text[m.start : m.end])] += 1
        scores = score_characters(
            novel.book.text, novel.characters, predicted, scored, name_counts=name_counts
        )
        scores["seconds"] = round(seconds, 2)
        report.add_novel(novel.name, scores)
        if progress is not None:
            progress(novel.name)
    return report


def _names(character: Character) -> set[str]:
    return {name_key(n) for n in character.all_names() if not is_pseudo_name(n) and name_key(n)}


def score_characters(
    text: str,
    gold: list[Character],
    predicted: list[Character],
    scored: set[str],
    *,
    name_counts: dict[str, Counter[str]] | None = None,
) -> dict[str, Any]:
    """Recall, merge, split and alias recall of ``predicted`` against the ``scored`` gold characters;
    with ``name_counts`` (predicted id -> name key -> name mentions) also the substantial rates."""
    owners: dict[str, set[str]] = defaultdict(set)
    for g in gold:
        for key in _names(g):
            owners[key].add(g.id)
    predicted_names = [(p, _names(p)) for p in predicted]
    covered_by: dict[str, list[str]] = defaultdict(list)  # gold id -> predicted ids covering it
    covers: dict[str, set[str]] = defaultdict(set)  # predicted id -> gold ids it covers
    for p, keys in predicted_names:
        for key in keys:
            if len(owners.get(key, ())) == 1:
                (gid,) = owners[key]
                covers[p.id].add(gid)
                if p.id not in covered_by[gid]:
                    covered_by[gid].append(p.id)
    counts = name_counts or {}

    def weight(pid: str, gid: str) -> int:
        return sum(n for key, n in counts.get(pid, Counter()).items() if owners.get(key) == {gid})

    def substantial(pid: str, gid: str) -> bool:
        total = sum(weight(other, gid) for other in covered_by.get(gid, []))
        return weight(pid, gid) >= max(SUBSTANTIAL_MIN, SUBSTANTIAL_SHARE * total)

    recalled = merged = split = 0
    merged_substantial = split_substantial = 0
    alias_found = alias_total = 0
    missed: list[str] = []
    for g in gold:
        if g.id not in scored:
            continue
        keys = _names(g)
        matches = [(p, pkeys & keys) for p, pkeys in predicted_names if pkeys & keys]
        best: Character | None = None
        if matches:
            recalled += 1
            best = max(matches, key=lambda pm: (_count_under(pm[0], pm[1]), pm[0].mention_count))[0]
            if covers.get(best.id, set()) - {g.id}:
                merged += 1
                best_id = best.id
                if any(substantial(best_id, other) for other in covers[best_id] - {g.id}):
                    merged_substantial += 1
        else:
            missed.append(g.name)
        if len(covered_by.get(g.id, [])) >= 2:
            split += 1
            if sum(substantial(pid, g.id) for pid in covered_by[g.id]) >= 2:
                split_substantial += 1
        best_keys = _names(best) if best is not None else set()
        for name in {n for n in g.all_names() if not is_pseudo_name(n)}:
            if _occurs(text, name):
                alias_total += 1
                alias_found += name_key(name) in best_keys
    n = len([g for g in gold if g.id in scored])
    return {
        "recall": recalled / n if n else None,
        "merge_rate": merged / n if n else None,
        "split_rate": split / n if n else None,
        "alias_recall": alias_found / alias_total if alias_total else None,
        "merge_rate_substantial": merged_substantial / n if n and name_counts is not None else None,
        "split_rate_substantial": split_substantial / n if n and name_counts is not None else None,
        "gold_characters": n,
        "predicted_characters": len(predicted),
        "recalled": recalled,
        "merges": merged,
        "splits": split,
        "missed": sorted(missed),
    }


def _count_under(character: Character, keys: set[str]) -> int:
    return sum(n for alias, n in character.aliases.items() if name_key(alias) in keys)


def _occurs(text: str, name: str) -> bool:
    words = name.split()
    if not words:
        return False
    head = words[0]
    if head.lower() in {"the", "a", "an"}:
        head = f"[{head[0].upper()}{head[0].lower()}]{re.escape(head[1:])}"
    else:
        head = re.escape(head)
    pattern = r"(?<![\w])" + r"\s+".join([head, *(re.escape(w) for w in words[1:])]) + r"(?![\w])"
    return re.search(pattern, text) is not None
