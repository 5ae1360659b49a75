"""RECIDENT's construction: invariants on a real novel and exact results on a hand-built one."""

from __future__ import annotations

import itertools

import pytest

from fabula.book import load_book
from fabula.errors import ConfigError
from fabula.recap import RecapSpec, SentenceIndex, build_target, every_target, sample_targets, target_at
from tests.conftest import pdnc_novel_dir
from tests.recap.conftest import SPEC


def test_hand_built_target_has_the_expected_candidates(hand_book):
    sentences = SentenceIndex(hand_book)
    assert len(sentences) == 13
    target = build_target(sentences, 11, SPEC)
    assert target.gap == 1
    assert [(c.first, c.stop) for c in target.candidates] == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    assert (target.target.first, target.target.stop) == (11, 13)
    assert [target.distance(i) for i in range(5)] == [5, 4, 3, 2, 1]


def test_short_history_gives_fewer_candidates(hand_book):
    target = build_target(SentenceIndex(hand_book), 6, SPEC)
    assert [(c.first, c.stop) for c in target.candidates] == [(1, 3), (3, 5)]


@pytest.mark.parametrize("w", [7, 10])
def test_construction_invariants_on_a_real_novel(w):
    book = load_book(pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt")
    spec = RecapSpec(w=w, seed=3)
    sentences = SentenceIndex(book)
    targets = sample_targets(book, 12, spec)
    assert len(targets) == 12
    spans = []
    for target in targets:
        assert len(target.candidates) == 60  # the book allows a full set for sampled targets
        assert target.target.stop - target.target.first == w
        assert spec.gap_min <= target.gap <= spec.gap_max
        # the gap: sentences between the nearest candidate and the target
        assert target.target.first - target.candidates[-1].stop == target.gap
        previous_stop = -1
        for candidate in target.candidates:
            assert candidate.stop - candidate.first == w
            assert candidate.first >= previous_stop  # in book order, not overlapping
            previous_stop = candidate.stop
            assert candidate.end <= target.target.start  # strictly before the target
            assert candidate.start == sentences.starts[candidate.first]
            assert candidate.end == sentences.ends[candidate.stop - 1]
        spans.append((target.target.first, target.target.stop))
    spans.sort()
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))  # targets do not overlap
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


def test_bad_spec_is_a_config_error():
    with pytest.raises(ConfigError):
        RecapSpec(gap_min=5, gap_max=2)
