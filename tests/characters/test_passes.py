"""The table of discovery passes: every pass switchable by name, the required one not, unknown names
refused; switching a pass off changes what it decides (passages written for the test)."""

from __future__ import annotations

import pytest

from fabula.book import book_from_text
from fabula.characters import DISCOVERY_PASSES, find_characters
from fabula.characters._discover import PASSES, run_passes

GARDEN = (
    "It was a fine morning in the village, and the church bells had rung.\n\n"
    '"Good morning," said Miss Verity Quill, and she bowed to the vicar.\n\n'
    '"Good morning, Miss Quill," said Mr. Hollis. "Is Verity well today?"\n\n'
    '"Quite well," said Verity. "And the garden at Thornbury is lovely in June."\n\n'
    "They walked on to Thornbury together, and at Thornbury they parted.\n\n"
)


def test_every_pass_has_a_unique_name_and_a_stage() -> None:
    assert len(set(DISCOVERY_PASSES)) == len(PASSES)
    stages = [p.stage for p in PASSES]
    # the stages run in order: candidates, evidence, clustering, joins
    assert stages == sorted(stages, key=["candidates", "evidence", "clustering", "joins"].index)


def test_unknown_or_required_passes_are_refused() -> None:
    book = book_from_text(GARDEN)
    with pytest.raises(ValueError, match="unknown discovery passes: nope"):
        find_characters(book, skip=["nope"])
    with pytest.raises(ValueError, match="cannot be switched off: evidence"):
        run_passes(book, skip=["evidence"])


def test_switching_off_a_pass_undoes_what_it_decides() -> None:
    book = book_from_text(GARDEN * 3)
    names = {c.name: c.all_names() for c in find_characters(book)}
    verity = next(n for n in names.values() if "Verity" in n)
    assert "Miss Verity Quill" in verity
    # a bare given name is placed by the first-name phase or, failing it, the bare-word phase
    joined = find_characters(book, skip=["first_names"])
    assert any({"Verity", "Miss Verity Quill"} <= set(c.all_names()) for c in joined)
    unplaced = find_characters(book, skip=["first_names", "bare_words"])
    assert not any("Verity" in c.all_names() for c in unplaced)
    # without the person test, the place "Thornbury" (after "at", "to") becomes a character
    assert not any("Thornbury" in n for n in names.values())
    find_characters(book, skip=["persons"])  # a place: in the cast, or set aside as never shown a person
    assert any("Thornbury" in c.all_names() for c in [*book.characters, *book.set_aside])
