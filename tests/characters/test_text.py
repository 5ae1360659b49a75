"""Small text helpers of the character layer."""

from __future__ import annotations

import pytest

from fabula.characters import shown_aliases, surnames
from fabula.characters._text import follows_speech, is_sentence_initial


def test_surnames_read_titled_and_full_names_not_single_words() -> None:
    assert surnames(["Mrs. Ashdown", "Ashdown", "Clara"]) == {"ashdown"}
    assert surnames(["Sir Walter Ashdown", "Walter Ashdown", "Miss Penrose"]) == {"ashdown", "penrose"}
    # a single word may be a given name; a phrase of address or description is no name
    assert surnames(["Walter", "My Dear Miss Clara Ashdown", "the old man"]) == frozenset()


@pytest.mark.parametrize(
    ("text", "initial"),
    [
        ('"You are late," Nora says.', False),  # a straight mark a space away closes the speech
        ("'You are late,' Nora says.", False),  # and so does a British single one
        ('"You are late,"\nNora says.', False),  # hard-wrapped after the closing mark
        ('"You are late." Nora sits.', True),  # the speech ended a sentence
        ('He said, "Nora is late."', True),  # an opening mark hugs its word
        ("Mr. Nora Penrose", False),
    ],
)
def test_a_name_after_a_closing_speech_mark_is_mid_sentence(text: str, initial: bool) -> None:
    assert is_sentence_initial(text, text.index("Nora")) is initial


@pytest.mark.parametrize(
    ("text", "after"),
    [
        ('"Go," she said.', True),
        ("“Go,” she said.", True),
        ("“Go,”\nshe said.", True),
        ("And she said.", False),
    ],
)
def test_a_tag_subject_follows_the_speech_whatever_the_marks(text: str, after: bool) -> None:
    assert follows_speech(text, text.index("she")) is after


def test_shown_aliases_give_each_name_once_in_its_most_used_form() -> None:
    # a sentence-initial "The", "the" before a surname and a lowercase rank are the same name to a reader
    aliases = {"Ashdown": 40, "the Ashdown": 1, "The Ashdown": 1, "Monsieur Ashdown": 12, "Kit": 0}
    assert shown_aliases("Mr. Ashdown", aliases) == ["Ashdown", "Monsieur Ashdown"]
    assert shown_aliases("Mrs. Ashdown", {"Mrs Ashdown": 3, "Nora": 9}) == ["Nora"]  # a title's period
    doctor = {
        "the Doctor": 20,
        "The Doctor": 5,
        "Doctor": 3,
        "the doctor": 2,
        "Holloway": 4,
        "Dr. Holloway": 1,
    }
    assert shown_aliases("Doctor Holloway", doctor) == ["the Doctor", "Holloway", "Dr. Holloway"]
    # the display name's own forms are not repeated among its other names
    assert shown_aliases("the Colonel", {"Colonel": 10, "The Colonel": 30, "Colonel Perrin": 2}) == [
        "Colonel Perrin"
    ]
