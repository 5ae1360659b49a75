"""RECIDENT's construction: targets and their candidate snippets, in sentences of the book.

Li et al. (2024), "Previously on the Stories: Recap Snippet Identification for Story Reading": the book
is split into sentences; a *target* is ``w`` consecutive sentences around a central sentence (``w`` = 7,
10 as the paper's alternative); its *candidates* are ``n_candidates`` (60) snippets of ``w`` sentences
before it, back to back and not overlapping, the nearest ending a *gap* of 10-20 sentences before the
target (the gap keeps the target's own lead-in out, so a recap is more than "the previous paragraph").

Everything is a sentence range over the book's body sentences plus character offsets into
``book.text``, so a reading app can link each snippet in place. The gap of a target is drawn from a
random generator seeded by ``seed`` and the target's first sentence, so a target always gets the same
candidates (a data file built today matches a ranking run tomorrow).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from fabula.book import Book
from fabula.errors import ConfigError


@dataclass(frozen=True, slots=True)
class RecapSpec:
    """The paper's parameters: ``w`` sentences per snippet, ``n_candidates`` candidates, a gap of
    ``gap_min``..``gap_max`` sentences between the nearest candidate and the target."""

    w: int = 7
    n_candidates: int = 60
    gap_min: int = 10
    gap_max: int = 20
    seed: int = 0

    def __post_init__(self) -> None:
        if self.w < 1 or self.n_candidates < 1:
            raise ConfigError("recap: w and n_candidates must be at least 1")
        if not 0 <= self.gap_min <= self.gap_max:
            raise ConfigError("recap: the gap must satisfy 0 <= gap_min <= gap_max")

    @property
    def history(self) -> int:
        """Sentences a full candidate set needs before the target (at the widest gap)."""
        return self.gap_max + self.n_candidates * self.w


class Snippet(NamedTuple):
    """Sentences ``[first, stop)`` of the body; ``start``/``end`` are offsets into ``book.text``.
    (A named tuple: a novel's every target makes ~60,000 of them.)"""

    first: int
    stop: int
    start: int
    end: int

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)


@dataclass(frozen=True, slots=True)
class RecapTarget:
    """One target and its candidates in book order (``candidates[-1]`` is the nearest).

    ``gold`` holds indices into ``candidates`` (None when unannotated); ``id`` names the item."""

    id: str
    target: Snippet
    candidates: tuple[Snippet, ...]
    gap: int
    gold: tuple[int, ...] | None = None
    groups: dict[str, str] = field(default_factory=dict)

    def distance(self, index: int) -> int:
        """1 for the nearest candidate, 2 for the one before it, ..."""
        return len(self.candidates) - index


class SentenceIndex:
    """The body's sentences as a list of offset pairs, with lookups both ways."""

    def __init__(self, book: Book) -> None:
        inside = book.sentences.within(book.body.start, book.body.end)
        layer = book.sentences[inside.start : inside.stop]
        self.starts: list[int] = layer.starts.tolist()
        self.ends: list[int] = layer.ends.tolist()

    def __len__(self) -> int:
        return len(self.starts)

    def snippet(self, first: int, stop: int) -> Snippet:
        return Snippet(first, stop, self.starts[first], self.ends[stop - 1])

    def covering(self, start: int, end: int) -> tuple[int, int]:
        """The sentence range ``[first, stop)`` of sentences lying inside ``[start, end)`` (ConfigError if none)."""
        import bisect

        first = bisect.bisect_left(self.starts, start)
        stop = bisect.bisect_right(self.ends, end)
        if first >= stop:
            raise ConfigError(f"recap: no sentence lies within offsets [{start}, {end})")
        return first, stop

    def last_before(self, offset: int) -> int:
        """How many sentences end at or before ``offset``."""
        import bisect

        return bisect.bisect_right(self.ends, offset)


def gap_for(spec: RecapSpec, first_sentence: int) -> int:
    """The target's gap, drawn once per (seed, first sentence) so it never changes between runs."""
    return random.Random(f"{spec.seed}:{first_sentence}").randint(spec.gap_min, spec.gap_max)


def build_target(
    sentences: SentenceIndex,
    first: int,
    spec: RecapSpec,
    *,
    id: str = "",
    groups: dict[str, str] | None = None,
) -> RecapTarget:
    """The target of ``spec.w`` sentences starting at sentence ``first`` and its candidates (as many of
    ``n_candidates`` as fit before it; none when the book is too short)."""
    stop = min(first + spec.w, len(sentences))
    if not 0 <= first < stop:
        raise ConfigError(f"recap: target sentence {first} is outside the book's {len(sentences)} sentences")
    gap = gap_for(spec, first)
    candidates: list[Snippet] = []
    end = first - gap
    while len(candidates) < spec.n_candidates and end - spec.w >= 0:
        candidates.append(sentences.snippet(end - spec.w, end))
        end -= spec.w
    candidates.reverse()
    return RecapTarget(
        id or f"s{first}", sentences.snippet(first, stop), tuple(candidates), gap, None, dict(groups or {})
    )


def target_at(book: Book, position: int, spec: RecapSpec | None = None) -> RecapTarget:
    """The recap question for a reader at ``position``: the target is the last ``w`` sentences that end
    at or before it (the passage just read); everything returned ends at or before ``position``."""
    spec = spec or RecapSpec()
    sentences = SentenceIndex(book.truncated(position) if position < len(book.text) else book)
    read = sentences.last_before(position)
    if read == 0:
        raise ConfigError(f"recap: no complete sentence before position {position}")
    return build_target(sentences, max(0, read - spec.w), spec, id=f"at{position}")


def targets_from_spans(
    book: Book, items: Sequence[tuple[str, tuple[int, int], Sequence[tuple[int, int]]]]
) -> list[tuple[str, Snippet, list[Snippet]]]:
    """Map offset spans (from a data file) back to sentence ranges of this book."""
    sentences = SentenceIndex(book)
    out = []
    for item_id, target, candidates in items:
        t = sentences.snippet(*sentences.covering(*target))
        cands = [sentences.snippet(*sentences.covering(*c)) for c in candidates]
        out.append((item_id, t, cands))
    return out


def ensure_characters(book: Book) -> None:
    """Find the book's characters and mentions (`fabula.characters`) unless it already has them."""
    if not book.mentions:
        from fabula.characters import find_characters

        find_characters(book)


def main_characters(book: Book, top: int = 5) -> list[str]:
    """Ids of the ``top`` characters with the most name mentions (runs `find_characters` if needed)."""
    ensure_characters(book)
    counts = Counter(m.character_id for m in book.mentions if m.character_id and m.kind != "pronoun")
    return [cid for cid, _ in counts.most_common(top)]


def sample_targets(
    book: Book,
    n_targets: int,
    spec: RecapSpec | None = None,
    *,
    top_characters: int = 5,
    full_only: bool = True,
    prefix: str = "",
) -> list[RecapTarget]:
    """Evaluation targets as the paper samples them: central sentences naming one of the main
    characters, targets not overlapping each other, each with a full candidate set (``full_only``).

    Deterministic for a given ``spec.seed``; returned in book order.
    """
    spec = spec or RecapSpec()
    sentences = SentenceIndex(book)
    main = set(main_characters(book, top_characters))
    central: set[int] = set()
    for mention in book.mentions:
        if mention.character_id in main and mention.kind != "pronoun":
            i = sentences.last_before(mention.start)  # the sentence containing (or after) the mention
            if i < len(sentences):
                central.add(i)
    half = spec.w // 2
    lowest = spec.history + half if full_only else half
    pool = sorted(i for i in central if lowest <= i and i - half + spec.w <= len(sentences))
    random.Random(spec.seed).shuffle(pool)
    taken: list[tuple[int, int]] = []
    targets: list[RecapTarget] = []
    for centre in pool:
        first = centre - half
        if any(first < stop and other < first + spec.w for other, stop in taken):
            continue
        taken.append((first, first + spec.w))
        if len(taken) == n_targets:
            break
    for first, _ in sorted(taken):
        targets.append(build_target(sentences, first, spec, id=f"{prefix}{first}"))
    return targets


def every_target(book: Book, spec: RecapSpec | None = None) -> list[RecapTarget]:
    """Every non-overlapping target of the book that has at least one candidate (for benchmarks)."""
    spec = spec or RecapSpec()
    sentences = SentenceIndex(book)
    start = spec.gap_max + spec.w
    return [
        build_target(sentences, first, spec) for first in range(start, len(sentences) - spec.w + 1, spec.w)
    ]
