"""RECIDENT's construction: targets and their candidate snippets, in sentences of the book.

Li et al. (2024), "Previously on the Stories: Recap Snippet Identification for Story Reading", §3 and
§4.1.1: the book is split into sentences; a *target* is ``w`` (7) consecutive sentences around a central
sentence ``i`` (the paper's T_i = [s_(i-w/2), ..., s_(i+w/2)]); its *candidates* are ``n_candidates`` (60)
snippets of ``candidate_w`` (6) sentences, back to back and not overlapping, chunked backwards from an end
sentence ``j`` drawn from [i-20, i-10] (the *gap*, counted from the central sentence: it keeps the
target's own lead-in out, so a recap is more than "the previous paragraph"). Central sentences are those
naming a *main character* — one named more than 100 times — and evaluation targets are sampled evenly
from the longest run of non-overlapping targets around them.

Everything is a sentence range over the book's body sentences plus character offsets into
``book.text``, so a reading app can link each snippet in place. The gap of a target is drawn from a
random generator seeded by ``seed`` and the target's first sentence, so a target always gets the same
candidates (a data file built today matches a ranking run tomorrow).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from fabula.book import Book
from fabula.errors import ConfigError


@dataclass(frozen=True, slots=True)
class RecapSpec:
    """The paper's parameters: ``w`` sentences per target (7; 10 for one of its novels), ``candidate_w``
    sentences per candidate (6; 10 with w = 10), ``n_candidates`` candidates (60), and the nearest
    candidate's last sentence ``gap_min``..``gap_max`` (10-20) sentences before the target's central
    sentence."""

    w: int = 7
    candidate_w: int = 6
    n_candidates: int = 60
    gap_min: int = 10
    gap_max: int = 20
    seed: int = 0

    def __post_init__(self) -> None:
        if self.w < 1 or self.candidate_w < 1 or self.n_candidates < 1:
            raise ConfigError("recap: w, candidate_w and n_candidates must be at least 1")
        if not 0 <= self.gap_min <= self.gap_max:
            raise ConfigError("recap: the gap must satisfy 0 <= gap_min <= gap_max")
        if self.gap_min <= self.centre:
            raise ConfigError(
                f"recap: gap_min must exceed {self.centre} (counted from the central sentence, a smaller gap "
                "would put the nearest candidate inside the target)"
            )

    @property
    def centre(self) -> int:
        """The central sentence's place in the target (3 of 0..6 for w = 7)."""
        return (self.w - 1) // 2

    @property
    def history(self) -> int:
        """Sentences a full candidate set needs before the central sentence (at the widest gap)."""
        return self.gap_max + self.n_candidates * self.candidate_w - 1


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
    ``n_candidates`` as fit before it; none when the book is too short): the nearest candidate ends with
    sentence ``j = i - gap`` (``i`` the central sentence), the others are chunked backwards from it."""
    stop = min(first + spec.w, len(sentences))
    if not 0 <= first < stop:
        raise ConfigError(f"recap: target sentence {first} is outside the book's {len(sentences)} sentences")
    gap = gap_for(spec, first)
    candidates: list[Snippet] = []
    end = first + spec.centre - gap + 1  # one past sentence j
    size = spec.candidate_w
    while len(candidates) < spec.n_candidates and end - size >= 0:
        candidates.append(sentences.snippet(end - size, end))
        end -= size
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
    """The book's characters and mentions by the one annotation pipeline (`fabula.annotation`)."""
    from fabula.annotation import annotate

    annotate(book, {"mentions"})


MAIN_CHARACTER_MENTIONS = 100


def main_characters(book: Book, min_mentions: int = MAIN_CHARACTER_MENTIONS) -> list[str]:
    """Ids of the characters named more than ``min_mentions`` times (the paper: > 100), most named first
    (annotates the characters if needed; pronouns do not count, as the paper counts names found by NER)."""
    ensure_characters(book)
    counts = Counter(m.character_id for m in book.mentions if m.character_id and m.kind != "pronoun")
    return [cid for cid, count in counts.most_common() if count > min_mentions]


def sample_targets(
    book: Book,
    n_targets: int,
    spec: RecapSpec | None = None,
    *,
    min_mentions: int = MAIN_CHARACTER_MENTIONS,
    full_only: bool = True,
    prefix: str = "",
) -> list[RecapTarget]:
    """Evaluation targets as the paper samples them: central sentences naming a main character (named
    more than ``min_mentions`` times); of those, the longest sequence whose targets do not overlap
    (greedy in book order, which is optimal for equal lengths); from it ``n_targets`` sampled evenly
    (one at random from each of ``n_targets`` equal stretches of the sequence), so the targets cover the
    whole book. Each has a full candidate set when ``full_only``.

    Deterministic for a given ``spec.seed``; returned in book order. `ConfigError` when no character is
    named often enough.
    """
    spec = spec or RecapSpec()
    sentences = SentenceIndex(book)
    main = set(main_characters(book, min_mentions))
    if not main:
        raise ConfigError(
            f"recap: no character is named more than {min_mentions} times (lower it with --min-mentions)"
        )
    central: set[int] = set()
    for mention in book.mentions:
        if mention.character_id in main and mention.kind != "pronoun":
            i = sentences.last_before(mention.start)  # the sentence containing (or after) the mention
            if i < len(sentences):
                central.add(i)
    before = spec.centre
    lowest = spec.history if full_only else before
    chain: list[int] = []
    for centre in sorted(central):
        if centre < lowest or centre - before + spec.w > len(sentences):
            continue
        if not chain or centre >= chain[-1] + spec.w:
            chain.append(centre)
    if len(chain) > n_targets:
        rng = random.Random(spec.seed)
        bounds = [round(k * len(chain) / n_targets) for k in range(n_targets + 1)]
        chain = [chain[rng.randrange(lo, hi)] for lo, hi in itertools.pairwise(bounds)]
    return [build_target(sentences, c - before, spec, id=f"{prefix}{c - before}") for c in chain]


def every_target(book: Book, spec: RecapSpec | None = None) -> list[RecapTarget]:
    """Every non-overlapping target of the book that has at least one candidate (for benchmarks)."""
    spec = spec or RecapSpec()
    sentences = SentenceIndex(book)
    start = max(0, spec.gap_max + spec.candidate_w - spec.centre - 1)
    return [
        build_target(sentences, first, spec) for first in range(start, len(sentences) - spec.w + 1, spec.w)
    ]
