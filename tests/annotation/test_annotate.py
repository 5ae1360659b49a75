"""`fabula.annotation`: components declare what they need and add; `annotate` runs exactly those needed,
in the one declared order, once (issue 24's acceptance: a test registers a toy component)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fabula.annotation import COMPONENTS, annotate, component, component_order, plan, result_of
from fabula.book import Book, Character, book_from_text
from fabula.errors import ConfigError

TEXT = (
    "Chapter 1\n\n"
    + "\n\n".join(
        [
            '"Good morning," said Mary Lennox. "Where is Colin?"',
            '"In the garden," Dickon answered. "He went there early."',
            "Mary Lennox walked to the garden and found Colin Craven by the wall.",
            '"You came," said Colin Craven. "I knew Mary would come."',
        ]
        * 6
    )
    + "\n"
)


@pytest.fixture
def toy() -> Iterator[list[str]]:
    """A toy component counting name mentions per character (needs mentions, adds "name_counts")."""
    calls: list[str] = []

    @component("toy-counts", requires={"mentions"}, assigns={"name_counts"}, settings={"kinds": ("name",)})
    def count(book: Book, kinds: tuple[str, ...]) -> dict[str, int]:
        calls.append(",".join(kinds))
        counts: dict[str, int] = {}
        for m in book.mentions:
            if m.character_id and m.kind in kinds:
                counts[m.character_id] = counts.get(m.character_id, 0) + 1
        return counts

    yield calls
    COMPONENTS.remove("toy-counts")


def test_the_declared_order_puts_quotes_before_characters() -> None:
    names = [c.name for c in component_order()]
    assert (
        names.index("quotes")
        < names.index("characters")
        < names.index("attribution")
        < names.index("profiles")
    )
    assert [c.name for c in plan({"mentions"})] == ["quotes", "characters"]
    assert [c.name for c in plan({"speakers"})] == ["quotes", "characters", "attribution"]


def test_a_toy_component_runs_after_what_it_requires_and_only_once(toy: list[str]) -> None:
    assert [c.name for c in plan({"name_counts"})] == ["quotes", "characters", "toy-counts"]
    book = book_from_text(TEXT)
    seen: list[tuple[str, bool]] = []
    annotate(book, {"name_counts"}, progress=lambda name, seconds: seen.append((name, seconds is None)))
    assert [n for n, starting in seen if starting] == ["quotes", "characters", "toy-counts"]
    counts = result_of(book, "toy-counts")
    assert counts and sum(counts.values()) == sum(1 for m in book.mentions if m.kind == "name")
    annotate(book, {"name_counts"})  # everything is there: nothing runs again
    assert toy == ["name"]
    annotate(book, {"name_counts"}, kinds=("name", "pronoun"))  # a different setting: the toy re-runs
    assert toy == ["name", "name,pronoun"]
    assert book.annotations["characters"].sequence < book.annotations["toy-counts"].sequence


def test_a_changed_upstream_setting_reruns_everything_below_it(toy: list[str]) -> None:
    book = annotate(book_from_text(TEXT), {"name_counts"})
    discovered = {c.name for c in book.characters}
    assert "Mary Lennox" in discovered
    gold = [Character("G1", "Mary Lennox", {"Mary": 0}), Character("G2", "Colin Craven", {"Colin": 0})]
    annotate(book, {"name_counts"}, gold=gold)
    assert [c.id for c in book.characters] == ["G1", "G2"]
    assert set(result_of(book, "toy-counts")) <= {"G1", "G2"} and len(toy) == 2
    annotate(book, {"mentions"})  # no gold given: the gold cast already there is kept
    assert [c.id for c in book.characters] == ["G1", "G2"] and len(toy) == 2


def test_a_truncated_book_is_annotated_afresh() -> None:
    book = annotate(book_from_text(TEXT), {"mentions"})
    cut = book.truncated(len(TEXT) // 2)
    assert cut.annotations == {} and cut.partial
    annotate(cut, {"mentions"})
    assert all(m.end <= len(cut.text) for m in cut.mentions)


def test_unknown_layers_and_settings_are_refused() -> None:
    with pytest.raises(ConfigError, match="no annotation component assigns 'speaker'"):
        annotate(book_from_text(TEXT), {"speaker"})
    with pytest.raises(ConfigError, match="setting"):
        annotate(book_from_text(TEXT), {"quotes"}, golds=[])
    with pytest.raises(ConfigError, match="has not run"):
        result_of(book_from_text(TEXT), "attribution")


def test_two_components_cannot_assign_one_layer() -> None:
    @component("toy-quotes", assigns={"quotes"})
    def other(book: Book) -> None:
        return None

    try:
        with pytest.raises(ConfigError, match="assigned by two components"):
            plan({"quotes"})
    finally:
        COMPONENTS.remove("toy-quotes")
