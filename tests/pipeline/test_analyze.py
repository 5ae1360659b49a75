"""`analyze_book` on real novels: stage order and timings, gold character lists, spoiler safety."""

from __future__ import annotations

import re

from fabula.pipeline import STAGES, analyze_book
from tests.conftest import ROOT, pdnc_novel_dir

ALICE = ROOT / "examples" / "alice_in_wonderland.txt"


def test_stages_and_statistics_on_the_example() -> None:
    seen: list[tuple[str, bool]] = []
    analysis = analyze_book(ALICE, progress=lambda stage, seconds: seen.append((stage, seconds is None)))
    assert [stage for stage, started in seen if started] == list(STAGES)
    assert list(analysis.timings) == list(STAGES)
    alice = analysis.characters[0]
    assert alice.name == "Alice"
    assert alice.quote_count > 50 and alice.mention_count > 300
    assert sum(alice.presence) == alice.mention_count and len(alice.presence) == len(analysis.book.chapters)
    assert alice.first_chapter == 1 and alice.partners
    assert all("Alice" in sentence for sentence in alice.profile[:1])
    # the settings name the attribution method that ran: the default learned ranker, as each quote says
    assert analysis.settings["characters"] == "discovered" and analysis.settings["attribution"] == "ranker"
    assert {q.method.split(":")[0] for q in analysis.book.quotes if q.method} == {"ranker"}


def test_gold_list_with_reading_position_hides_later_names() -> None:
    folder = pdnc_novel_dir("PrideAndPrejudice")
    analysis = analyze_book(
        folder / "novel_text.txt", gold_characters=folder / "character_info.csv", until="30%"
    )
    book = analysis.book
    assert analysis.settings["characters"] == "gold" and book.until is not None
    assert {c.source for c in book.characters} == {"gold"}
    for character in analysis.characters:
        for name in (character.name, *character.aliases):
            assert re.search(r"(?<!\w)" + re.escape(name).replace(r"\ ", r"\s+") + r"(?!\w)", book.text), name
    names = {c.name for c in analysis.characters}
    assert "Elizabeth Bennet" in names or "Elizabeth" in names
    assert not any("Lady Catherine" in n for n in names) or "Lady Catherine" in book.text
