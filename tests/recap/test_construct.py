"""RECIDENT's construction: invariants on a real novel and exact results on a hand-built one."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from fabula.book import load_book
from fabula.errors import ConfigError
from fabula.recap import (
    RecapSpec,
    SentenceIndex,
    build_target,
    every_target,
    main_characters,
    sample_targets,
    target_at,
)
from tests.conftest import pdnc_novel_dir
from tests.recap.conftest import SPEC


def test_hand_built_target_has_the_expected_candidates(hand_book):
    sentences = SentenceIndex(hand_book)
    assert len(sentences) == 13
    target = build_target(sentences, 11, SPEC)
    assert target.gap == 2
    assert [(c.first, c.stop) for c in target.candidates] == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    assert (target.target.first, target.target.stop) == (11, 13)
    assert [target.distance(i) for i in range(5)] == [5, 4, 3, 2, 1]


def test_short_history_gives_fewer_candidates(hand_book):
    target = build_target(SentenceIndex(hand_book), 6, SPEC)
    assert [(c.first, c.stop) for c in target.candidates] == [(1, 3), (3, 5)]


@pytest.mark.parametrize(("w", "candidate_w"), [(7, 6), (10, 10)])
def test_construction_invariants_on_a_real_novel(w, candidate_w):
    book = load_book(pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt")
    spec = RecapSpec(w=w, candidate_w=candidate_w, seed=3)
    sentences = SentenceIndex(book)
    targets = sample_targets(book, 12, spec)
    assert len(targets) == 12
    main = set(main_characters(book))
    spans = []
    for target in targets:
        assert len(target.candidates) == 60  # the book allows a full set for sampled targets
        assert target.target.stop - target.target.first == w
        assert spec.gap_min <= target.gap <= spec.gap_max
        # the paper's gap: the nearest candidate's last sentence j = i - gap, i the central sentence
        centre = target.target.first + (w - 1) // 2
        assert target.candidates[-1].stop - 1 == centre - target.gap
        # the central sentence names a main character (named more than 100 times)
        named = {
            m.character_id
            for m in book.mentions
            if m.kind != "pronoun" and sentences.starts[centre] <= m.start < sentences.ends[centre]
        }
        assert named & main
        previous_stop = -1
        for candidate in target.candidates:
            assert candidate.stop - candidate.first == candidate_w
            assert candidate.first >= previous_stop  # in book order, not overlapping
            previous_stop = candidate.stop
            assert candidate.end <= target.target.start  # strictly before the target
            assert candidate.start == sentences.starts[candidate.first]
            assert candidate.end == sentences.ends[candidate.stop - 1]
        spans.append((target.target.first, target.target.stop))
    spans.sort()
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))  # targets do not overlap
    # sampled evenly: each twelfth of the eligible stretch of the book holds about one target
    firsts = [first for first, _ in spans]
    assert firsts[-1] - firsts[0] > 0.6 * (len(sentences) - spec.history)
    # the same seed gives the same targets and gaps
    again = sample_targets(book, 12, spec)
    assert [(t.target, t.gap, t.candidates) for t in again] == [
        (t.target, t.gap, t.candidates) for t in targets
    ]


def test_every_target_covers_the_book_without_overlap():
    book = load_book(pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt")
    targets = every_target(book)
    assert len(targets) > 300
    assert all(a.target.stop <= b.target.first for a, b in itertools.pairwise(targets))
    assert all(len(t.candidates) == 60 for t in targets if t.target.first >= RecapSpec().history)


def test_target_at_ends_at_the_position(hand_book):
    position = hand_book.text.index("Night fell.") + 3  # inside the gap sentence
    target = target_at(hand_book, position, SPEC)
    assert target.target.end <= position
    assert all(c.end <= position for c in target.candidates)
    with pytest.raises(ConfigError):
        target_at(hand_book, hand_book.body.start, SPEC)


def test_main_characters_are_those_named_more_than_100_times():
    book = load_book(pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt")
    main = main_characters(book)  # finds the characters and their mentions
    counts = Counter(m.character_id for m in book.mentions if m.character_id and m.kind != "pronoun")
    assert main and all(counts[c] > 100 for c in main)
    assert {c for c, n in counts.items() if n > 100} == set(main)
    with pytest.raises(ConfigError, match="named more than"):
        sample_targets(book, 3, min_mentions=10**6)


def test_bad_spec_is_a_config_error():
    with pytest.raises(ConfigError):
        RecapSpec(gap_min=5, gap_max=2)
    with pytest.raises(ConfigError, match="inside the target"):
        RecapSpec(w=7, gap_min=3, gap_max=5)
