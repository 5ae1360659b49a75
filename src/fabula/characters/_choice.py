"""One rule for "clearly the one": a candidate counted at least N times and k times as often as the
runner-up. Clustering, vocative answers, title holders and alias resolution all choose this way."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

_T = TypeVar("_T")

#: the usual lead: a candidate named twice as often as the next is the one meant
DOMINANCE = 2.0


def clear_winner(
    scored: Iterable[tuple[_T, float]], *, at_least: float = 0, factor: float = DOMINANCE
) -> _T | None:
    """The item whose count is at least ``at_least`` and ``factor`` times the runner-up's, else None:
    the one rule behind every "clearly the one" choice (an only item needs just ``at_least``)."""
    ranked = sorted(scored, key=lambda item: -item[1])
    if not ranked:
        return None
    best, n = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0
    return best if n >= at_least and n >= factor * runner_up else None
