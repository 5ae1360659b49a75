"""`clear_winner`: the one "at least N and k times the runner-up" rule."""

from fabula.characters._choice import clear_winner


def test_clear_winner_needs_the_lead_and_the_minimum() -> None:
    assert clear_winner([("a", 6), ("b", 3)], factor=2) == "a"
    assert clear_winner([("a", 5), ("b", 3)], factor=2) is None  # not twice the runner-up
    assert clear_winner([("a", 4), ("b", 4)], factor=2) is None  # a tie is no winner
    assert clear_winner([("a", 1)], at_least=2) is None  # an only candidate still needs the minimum
    assert clear_winner([("a", 2)], at_least=2) == "a"
    assert clear_winner([], at_least=0) is None
