"""Small text helpers of the character layer."""

from __future__ import annotations

import pytest

from fabula.characters import surnames
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
