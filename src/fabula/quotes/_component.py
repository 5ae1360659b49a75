"""The quote components of the annotation pipeline (`fabula.annotation`): detection and attribution."""

from __future__ import annotations

from typing import Any

from fabula.annotation import component
from fabula.book import Book, Quote
from fabula.quotes._detect import detect_quotes
from fabula.quotes._registry import DEFAULT_METHOD, AttributionResult, attribute_quotes


@component("quotes", assigns={"quotes"})
def quotes_component(book: Book) -> list[Quote]:
    """``book.quotes``: every quotation, no speaker yet."""
    return detect_quotes(book)


@component(
    "attribution",
    requires={"quotes", "characters", "mentions"},
    assigns={"speakers"},
    settings={"method": DEFAULT_METHOD, "method_options": {}},
)
def attribution_component(book: Book, method: str, method_options: dict[str, Any]) -> AttributionResult:
    """Each quote's speaker, addressees, type and confidence by the attribution ``method`` (its
    ``method_options``: ``llm``, ``strategy``, ...)."""
    return attribute_quotes(book, method=method, **method_options)
