"""Small text helpers of the character layer."""

from __future__ import annotations

from fabula.characters import surnames


def test_surnames_read_titled_and_full_names_not_single_words() -> None:
    assert surnames(["Mrs. Ashdown", "Ashdown", "Clara"]) == {"ashdown"}
    assert surnames(["Sir Walter Ashdown", "Walter Ashdown", "Miss Penrose"]) == {"ashdown", "penrose"}
    # a single word may be a given name; a phrase of address or description is no name
    assert surnames(["Walter", "My Dear Miss Clara Ashdown", "the old man"]) == frozenset()
