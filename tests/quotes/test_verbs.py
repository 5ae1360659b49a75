"""The speech verbs a book's own tags teach (`fabula.characters.learned_speech_verbs`), and the sieve reading them."""

from __future__ import annotations

from fabula.book import Book, Character, book_from_text
from fabula.characters import SPEECH_VERBS, find_characters, learned_speech_verbs
from fabula.characters._speech_verbs import MIN_TAG_USES
from tests.quotes.test_rules import _run as run_sieve_with

CAST = [
    Character("nora", "Nora Penrose", {"Nora": 0}, gender="female", source="gold"),
    Character("kit", "Kit Ashdown", {"Kit": 0}, gender="male", source="gold"),
]

#: "quavered" in the three slots only a speech tag fills, once each
TAUGHT = (
    '"It is late," Nora quavered.\n\n'
    '"Is it?" she quavered, and looked away.\n\n'
    '"Very late," quavered Nora.\n\n'
)


def _run(text: str) -> Book:
    return run_sieve_with(text, CAST)


def test_a_verb_in_the_tag_slots_often_enough_is_learned() -> None:
    assert "quavered" not in SPEECH_VERBS and MIN_TAG_USES == 3
    assert learned_speech_verbs(TAUGHT) == ("quavered",)
    assert learned_speech_verbs(TAUGHT.split("\n\n", 1)[1]) == ()  # twice is not enough
    # a word the lexicon holds is not "learned"; conjunctions and adverbs in the slots never are
    slots = '"Yes," said Kit. "No," and Kit left. "Well," Kit slowly turned. ' * 4
    assert learned_speech_verbs(slots) == ()
    # no slot runs past its paragraph or takes the next sentence's capitalised pronoun for a speaker
    # (a quotation closed by a comma and no tag: what a sparse-tag or damaged text has)
    untagged = '"Happiness,"\n\nNora paused. "Yes,"    She paused. "Not now,"\n  He paused.\n\n' * 2
    assert learned_speech_verbs(untagged) == ()


def test_a_word_that_is_no_past_tense_counts_only_when_used_both_before_and_after_the_speaker() -> None:
    after_only = '"Come," Kit spake. "Go," Nora spake. "Stay," Kit spake.'
    assert learned_speech_verbs(after_only) == ()
    assert learned_speech_verbs(after_only + ' "Now," spake Nora.') == ("spake",)


def test_a_lead_in_with_a_learned_verb_is_a_speech_tag_not_a_beat() -> None:
    scene = 'Kit stood at the window, and then Nora quavered, "Go now."\n'
    # the verb unknown, the clause is a beat about its first name: Kit
    assert _run(scene).quotes[0].speaker_id == "kit"
    book = _run(TAUGHT + scene)
    assert book.quotes[-1].speaker_id == "nora" and book.quotes[-1].method == "rules:tag"


def test_a_role_tagged_with_a_learned_verb_is_a_character() -> None:
    """Discovery's role pass ("said the boatman") reads the book's own verbs too: a boatman the text
    tags only with a verb the lexicon lacks is found (among the cast or the entries set aside)."""
    scene = (
        'Nora Fenwick stepped into the boat; she was cold. "Is it far?" she asked.\n\n'
        '"Not far, miss," quavered the boatman, and he rowed on.\n\n'
        '"Is the water deep?" asked Nora. "Very deep," said the man.\n\n'
    ) * 5
    book = book_from_text(scene)
    assert "quavered" in learned_speech_verbs(book.text)
    cast = [*find_characters(book), *book.set_aside]
    assert "the boatman" in {name for c in cast for name in c.all_names()}
