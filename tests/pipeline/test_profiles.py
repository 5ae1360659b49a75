"""Per-character statistics on a hand-annotated book, where every expected number was counted by hand."""

from __future__ import annotations

from fabula.book import Quote, Span
from fabula.characters import hide_unseen_names
from fabula.pipeline import build_profiles, conversation_turns, lead_sentences
from tests.pipeline.handmade import handmade_book


def test_counts_presence_and_first_chapter() -> None:
    profiles, _ = build_profiles(handmade_book())
    by_id = {p.id: p for p in profiles}
    alice, rabbit, queen = by_id["alice"], by_id["rabbit"], by_id["queen"]
    assert (alice.mention_count, alice.quote_count) == (7, 4)
    assert alice.presence == [3, 2, 2]
    assert rabbit.presence == [3, 3, 0]
    assert queen.presence == [0, 0, 5]  # the chapter heading "The Queen" counts as a mention
    assert (alice.first_chapter, queen.first_chapter) == (1, 3)
    assert by_id["mabel"].words_spoken == 3  # "Read it anyway,"
    assert [p.id for p in profiles] == ["alice", "mabel", "rabbit", "queen", "duchess"]  # by rank


def test_partners_come_from_turn_taking() -> None:
    profiles, pairs = build_profiles(handmade_book())
    by_id = {p.id: p for p in profiles}
    assert pairs[("alice", "rabbit")] == 3
    assert pairs[("alice", "mabel")] == 2
    assert [x.id for x in by_id["alice"].partners][:2] == ["rabbit", "mabel"]
    assert [x.id for x in by_id["queen"].partners] == ["alice"]


def test_named_addressees_override_turn_taking() -> None:
    book = handmade_book()
    duchess_line = next(q for q in book.quotes if q.speaker_id == "duchess")
    duchess_line.addressee_ids = ["queen"]
    turns = conversation_turns(book)
    assert turns[("duchess", "queen")] == 1
    assert turns[("duchess", "alice")] == 0


def test_no_turn_across_distant_paragraphs() -> None:
    book = handmade_book()
    first, last = book.quotes[0], book.quotes[-1]
    book.quotes = [
        Quote("a", list(first.spans), "alice"),
        Quote("b", list(last.spans), "duchess"),
    ]
    assert conversation_turns(book) == {}


def test_lead_profile_is_first_sentences_mentioning() -> None:
    book = handmade_book()
    profiles, _ = build_profiles(book)
    rabbit = next(p for p in profiles if p.id == "rabbit")
    assert rabbit.profile == [
        "A White Rabbit ran past.",
        "The Rabbit muttered to itself.",
        '"Oh dear! Oh dear! I shall be late!" said the Rabbit.',
        "Alice followed the Rabbit down the hole.",
    ]  # BookWorm's lead-k with k = 4
    assert lead_sentences(book, []) == []


def test_hide_unseen_names_for_a_truncated_book() -> None:
    book = handmade_book()
    cut = book.text.index("CHAPTER III")
    truncated = book.truncated(cut)
    truncated.characters = book.characters  # a gold list knows everyone
    truncated.characters[0].aliases["Alice Liddell"] = 3  # an alias the reader has not met yet
    truncated.quotes.append(Quote("late", [Span(cut - 5, cut - 1)], "duchess"))
    hide_unseen_names(truncated)
    assert [c.id for c in truncated.characters] == ["alice", "mabel", "rabbit"]
    assert "Alice Liddell" not in truncated.characters[0].aliases
    assert truncated.quotes[-1].speaker_id is None  # the Duchess is unknown before chapter III


def test_unseen_canonical_name_is_replaced_by_a_seen_alias() -> None:
    book = handmade_book()
    rabbit = book.characters[2]
    rabbit.name = "Mr Bunny Secret"
    truncated = book.truncated(book.text.index("CHAPTER II"))
    truncated.characters = book.characters
    hide_unseen_names(truncated)
    shown = next(c for c in truncated.characters if c.id == "rabbit")
    assert shown.name == "Rabbit"  # the most frequent alias visible so far
