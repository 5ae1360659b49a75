"""`MentionIndex`: the mentions in a range and the walks back/forward from an offset."""

from __future__ import annotations

from fabula.book import Mention, MentionIndex


def _index() -> MentionIndex:
    mentions = [Mention(30, 34, "b"), Mention(0, 4, "a"), Mention(10, 14, None), Mention(50, 55, "a")]
    return MentionIndex(mentions, keep=lambda m: m.character_id is not None)


def test_between_is_half_open_and_in_text_order() -> None:
    index = _index()
    assert [m.start for m in index.between(0, 50)] == [0, 30]
    assert [m.start for m in index.between(30, 51)] == [30, 50]
    assert index.between(31, 50) == []
    assert len(index) == 3  # the mention without a character was filtered out


def test_walks_start_nearest_first() -> None:
    index = _index()
    assert [m.start for m in index.before(30)] == [0]  # strictly before the offset
    assert [m.start for m in index.before(31)] == [30, 0]
    assert [m.start for m in index.after(30)] == [30, 50]
    assert list(index.after(56)) == []
