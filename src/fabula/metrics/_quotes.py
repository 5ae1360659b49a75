"""Quotation scores with the PDNC protocol (Vishnubhotla et al. 2022; Michel et al. 2024).

* Detection: precision / recall / F1 of predicted quotes against gold quotes, one-to-one in text order,
  where a match is a pair whose spans overlap (`match_quotes`).
* Attribution: accuracy overall and by gold quote type (explicit / anaphoric / implicit), each gold
  quote judged against the predicted quote sharing the most characters with it (`best_overlap`);
  a gold quote with no overlapping prediction is wrong. With predicted characters a speaker is right
  when its names share one with the gold speaker's names (`same_character`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from fabula.book import Character, Span
from fabula.metrics._classification import PRF, precision_recall_f1, ratio
from fabula.metrics._registry import metric

QUOTE_TYPES = ("explicit", "anaphoric", "implicit")


class SpannedQuote(Protocol):
    """A quote as the metrics see it: one or more spans in text order (gold or predicted)."""

    @property
    def spans(self) -> list[Span]: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


Q = TypeVar("Q", bound=SpannedQuote)


def match_quotes(gold: Sequence[SpannedQuote], predicted: Sequence[SpannedQuote]) -> dict[int, int | None]:
    """One-to-one matching in text order: each gold quote takes the first unmatched predicted quote
    whose spans overlap its own. Returns gold index -> predicted index (or None). Both in text order."""
    out: dict[int, int | None] = {}
    used: set[int] = set()
    first = 0
    for i, g in enumerate(gold):
        while first < len(predicted) and predicted[first].end <= g.start:
            first += 1
        out[i] = None
        j = first
        while j < len(predicted) and predicted[j].start < g.end:
            if j not in used and _overlaps(g.spans, predicted[j].spans):
                out[i] = j
                used.add(j)
                break
            j += 1
    return out


@metric("quote_detection")
def quote_detection(gold: Sequence[SpannedQuote], predicted: Sequence[SpannedQuote]) -> PRF:
    """Detection precision / recall / F1 under the one-to-one overlap matching."""
    matched = sum(1 for p in match_quotes(gold, predicted).values() if p is not None)
    return precision_recall_f1(matched, len(predicted), len(gold))


def best_overlap(gold: Sequence[SpannedQuote], predicted: Sequence[Q]) -> list[Q | None]:
    """For attribution: the predicted quote sharing the most characters with each gold quote."""
    out: list[Q | None] = []
    first = 0
    for g in gold:
        while first < len(predicted) and predicted[first].end <= g.start:
            first += 1
        best: Q | None = None
        best_overlap = 0
        j = first
        while j < len(predicted) and predicted[j].start < g.end:
            overlap = sum(
                max(0, min(a.end, b.end) - max(a.start, b.start)) for a in g.spans for b in predicted[j].spans
            )
            if overlap > best_overlap:
                best, best_overlap = predicted[j], overlap
            j += 1
        out.append(best)
    return out


def _overlaps(a: Sequence[Span], b: Sequence[Span]) -> bool:
    return any(x.start < y.end and y.start < x.end for x in a for y in b)


_NAME_SPACE = re.compile(r"\s+")


def _norm(name: str) -> str:
    return _NAME_SPACE.sub(" ", name).strip().lower()


def same_character(predicted: Character, gold: Character) -> bool:
    """A predicted character is the gold one when their names (main name or aliases, case and
    spacing ignored) share one."""
    return bool({_norm(n) for n in predicted.all_names()} & {_norm(n) for n in gold.all_names()})


@dataclass(slots=True)
class Tally:
    """Right out of total; ``score`` is None when there is nothing to score."""

    right: int = 0
    total: int = 0

    def add(self, right: bool) -> None:
        self.right += int(right)
        self.total += 1

    def merge(self, other: Tally) -> None:
        self.right += other.right
        self.total += other.total

    @property
    def score(self) -> float | None:
        return ratio(self.right, self.total)


@dataclass(slots=True)
class AttributionScores:
    """Attribution accuracy overall and per gold quote type, with the tallies behind them."""

    overall: Tally = field(default_factory=Tally)
    by_type: dict[str, Tally] = field(default_factory=lambda: {t: Tally() for t in QUOTE_TYPES})

    def merge(self, other: AttributionScores) -> None:
        self.overall.merge(other.overall)
        for key, tally in other.by_type.items():
            self.by_type.setdefault(key, Tally()).merge(tally)

    def as_dict(self) -> dict[str, float | None]:
        """``{"accuracy": ..., "explicit": ..., "anaphoric": ..., "implicit": ...}``."""
        return {"accuracy": self.overall.score, **{t: self.by_type[t].score for t in QUOTE_TYPES}}


@metric("attribution_accuracy")
def attribution_accuracy(right: Sequence[bool], types: Sequence[str]) -> AttributionScores:
    """Accuracy of speaker attribution overall and per quote type (types outside `QUOTE_TYPES` count
    only overall)."""
    scores = AttributionScores()
    for is_right, kind in zip(right, types, strict=True):
        scores.overall.add(is_right)
        if kind in scores.by_type:
            scores.by_type[kind].add(is_right)
    return scores
