"""Counts in words for messages: "1 quotation", "2 quotations" — never "1 quotations".

Shared by every package that prints a count (the CLI, the report, character sheets).
"""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """``word`` as it goes with ``n``: itself for one, else ``many`` (default: ``word + "s"``)."""
    return word if n == 1 else (many or word + "s")


def counted(n: int, word: str, many: str | None = None) -> str:
    """``n`` (with thousands separators) and ``word`` agreeing with it: ``counted(1, "book")`` ->
    ``"1 book"``, ``counted(2016, "mention")`` -> ``"2,016 mentions"``."""
    return f"{n:,} {plural(n, word, many)}"
