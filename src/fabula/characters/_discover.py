"""Character discovery without a list (rules; optional spaCy NER evidence)."""

from __future__ import annotations

from fabula.book import Book, Character, Mention


def discover_characters(book: Book, *, ner_model: str | None = None) -> tuple[list[Character], list[Mention]]:
    """Placeholder until rule-based discovery lands: no characters."""
    return [], []
