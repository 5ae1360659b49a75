"""Character discovery scored against a gold character list (issue 3's protocol, on PDNC).

Names are compared by `fabula.characters.name_key` (case, periods and spacing ignored); pseudo
names (``_narr``) are ignored. Only the ``scored`` gold characters count (on PDNC: those that speak at
least 10 times).

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
  gold alias ("Mrs. Robert Quarles" once) is noise a reader never notices; a character shown twice
  with dozens of mentions each is the error the strict rates are meant to catch. Both are reported;
  the acceptance targets are stated on the strict rates.
- unlisted_top20: how many of the first ``TOP_CAST`` (20) predicted characters, in the order given
  (`find_characters` ranks them), carry no name of any gold character (any category; a narrator
  without a name is not counted). On a full gold list these are mostly non-persons (places,
  groups, capitalised common words) or people the list leaves out; ``unlisted`` names them.
- alias_recall: over the names of scored gold characters that occur in the text (case-sensitive whole
  words, a leading article in either case), the share found among the names of the matched prediction
  (pooled per novel; names of unrecalled characters count as missed).
- gender_accuracy / gender_unknown / gender_wrong (`score_genders`): over the scored gold characters of
  known gender (male or female; a gold gender that is neutral, PDNC's ``X``, or unknown, PDNC's ``U``,
  is left out) that have a matched prediction, the share whose prediction has the same gender, no gender
  (unknown or neutral) and the other gender; the three add up to 1. The ``_quotes`` variants weight
  each character by its number of quotes: a wrong gender on a major character is what a reader notices.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from fabula.book import Character
from fabula.characters import is_pseudo_name, name_key
from fabula.metrics._classification import ratio
from fabula.metrics._registry import metric

SUBSTANTIAL_MIN = 3  # mentions a predicted character needs under a gold character's names to count
SUBSTANTIAL_SHARE = 0.05  # ... and its share of all predicted mentions under those names
TOP_CAST = 20  # the head of the cast a reader sees first


@dataclass(frozen=True, slots=True)
class CharacterScores:
    """The rates (fractions; None with nothing to score) and the counts behind them."""

    recall: float | None
    merge_rate: float | None
    split_rate: float | None
    alias_recall: float | None
    merge_rate_substantial: float | None
    split_rate_substantial: float | None
    gold_characters: int
    predicted_characters: int
    recalled: int
    merges: int
    splits: int
    missed: list[str]
    unlisted_top20: int = 0
    unlisted: list[str] = field(default_factory=list)
    #: one entry per scored gold character: its matched prediction, the other gold characters that
    #: prediction covers (merged with) and every prediction covering it (split into)
    matches: tuple[dict[str, Any], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class GenderScores:
    """Shares (None with nothing to score) of matched gold characters of known gender whose predicted
    gender is right, missing (unknown or neutral) or wrong; ``*_quotes`` weighted by quote counts."""

    gender_accuracy: float | None
    gender_unknown: float | None
    gender_wrong: float | None
    gender_accuracy_quotes: float | None
    gender_unknown_quotes: float | None
    gender_wrong_quotes: float | None
    gendered: int  # matched gold characters of known gender (the denominator)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


_KNOWN_GENDERS = ("male", "female")


def gender_outcome(gold: str, predicted: str | None) -> str | None:
    """``right``, ``wrong`` (the other gender) or ``unknown`` (no male/female prediction) for a gold
    gender of male or female; None for any other gold gender (not scored)."""
    if gold not in _KNOWN_GENDERS:
        return None
    return "right" if predicted == gold else "wrong" if predicted in _KNOWN_GENDERS else "unknown"


@metric("gender_scores")
def score_genders(pairs: Iterable[tuple[str, str, float]]) -> GenderScores:
    """Gender agreement over (gold gender, predicted gender, weight) triples, one per gold character
    matched to a prediction. Gold genders other than male/female are not scored; a predicted gender
    other than male/female counts as unknown."""
    counts: Counter[str] = Counter()
    weights: defaultdict[str, float] = defaultdict(float)
    for gold, predicted, weight in pairs:
        outcome = gender_outcome(gold, predicted)
        if outcome is None:
            continue
        counts[outcome] += 1
        weights[outcome] += weight
    n = sum(counts.values())
    total = sum(weights.values())
    return GenderScores(
        gender_accuracy=ratio(counts["right"], n),
        gender_unknown=ratio(counts["unknown"], n),
        gender_wrong=ratio(counts["wrong"], n),
        gender_accuracy_quotes=ratio(weights["right"], total),
        gender_unknown_quotes=ratio(weights["unknown"], total),
        gender_wrong_quotes=ratio(weights["wrong"], total),
        gendered=n,
    )


def _names(character: Character) -> set[str]:
    return {name_key(n) for n in character.all_names() if not is_pseudo_name(n) and name_key(n)}


@metric("character_scores")
def score_characters(
    text: str,
    gold: list[Character],
    predicted: list[Character],
    scored: set[str],
    *,
    name_counts: dict[str, Counter[str]] | None = None,
) -> CharacterScores:
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
    matched: list[dict[str, Any]] = []
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
        matched.append(
            {
                "gold_id": g.id,
                "gold_name": g.name,
                "matched": None if best is None else best.id,
                "matched_name": None if best is None else best.name,
                "matched_mentions": None if best is None else best.mention_count,
                "gold_gender": g.gender,
                "predicted_gender": None if best is None else best.gender,
                "merged_with": [] if best is None else sorted(covers.get(best.id, set()) - {g.id}),
                "split_into": list(covered_by.get(g.id, [])) if len(covered_by.get(g.id, [])) >= 2 else [],
            }
        )
        best_keys = _names(best) if best is not None else set()
        for name in {n for n in g.all_names() if not is_pseudo_name(n)}:
            if _occurs(text, name):
                alias_total += 1
                alias_found += name_key(name) in best_keys
    n = len([g for g in gold if g.id in scored])
    unlisted = [
        p.name for p, keys in predicted_names[:TOP_CAST] if not keys & owners.keys() and not p.narrator
    ]
    substantial_known = n > 0 and name_counts is not None
    return CharacterScores(
        recall=ratio(recalled, n),
        merge_rate=ratio(merged, n),
        split_rate=ratio(split, n),
        alias_recall=ratio(alias_found, alias_total),
        merge_rate_substantial=ratio(merged_substantial, n) if substantial_known else None,
        split_rate_substantial=ratio(split_substantial, n) if substantial_known else None,
        gold_characters=n,
        predicted_characters=len(predicted),
        recalled=recalled,
        merges=merged,
        splits=split,
        missed=sorted(missed),
        unlisted_top20=len(unlisted),
        unlisted=unlisted,
        matches=tuple(matched),
    )


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
