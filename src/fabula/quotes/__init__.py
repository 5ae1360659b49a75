"""Quotations: detection (a span layer on the Book), speaker attribution, and output records.

Pipeline (declared as the ``quotes`` and ``attribution`` components of `fabula.annotation`, so
``annotate(book, {"speakers"})`` runs it): ``detect_quotes(book)``, then
``fabula.characters.find_characters(book, gold=...)``, then ``attribute_quotes(book)`` (default ``method="ranker"``: the rule sieve, then a learned ranker over each
turn's candidate speakers; ``method="rules"`` is the sieve alone). Methods plug in with
``@attribution_method("name")``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabula._lazy import lazy_exports
from fabula.quotes import _component, _ranker, _rules  # noqa: F401  register the methods and components
from fabula.quotes._detect import detect_quote_style, detect_quotes
from fabula.quotes._output import TSV_COLUMNS, QuoteFormat, quote_records, quotes_bytes, write_quotes
from fabula.quotes._ranker import keep_text_values
from fabula.quotes._registry import (
    DEFAULT_METHOD,
    LLM_METHODS,
    METHODS,
    AttributionResult,
    attribute_quotes,
    attribution_method,
    available_methods,
)

if TYPE_CHECKING:
    from fabula.quotes._llm_attribution import llm_prompt_id
    from fabula.quotes._michel import (
        CHUNK_TOKENS,
        PAPER,
        STRIDE_TOKENS,
        PaperAttributionReport,
        attribute_parts,
        quote_parts,
    )
    from fabula.quotes._michel import METHOD_NAME as PAPER_METHOD
    from fabula.quotes._michel import alias_table as paper_alias_table

# The LLM methods' names, loaded on first use (PEP 562): their modules import the LLM layer and pydantic,
# which `fabula analyze` without --llm never needs (the methods themselves register lazily in `METHODS`).
_LAZY = {
    "llm_prompt_id": ("fabula.quotes._llm_attribution", "llm_prompt_id"),
    "CHUNK_TOKENS": ("fabula.quotes._michel", "CHUNK_TOKENS"),
    "PAPER": ("fabula.quotes._michel", "PAPER"),
    "STRIDE_TOKENS": ("fabula.quotes._michel", "STRIDE_TOKENS"),
    "PaperAttributionReport": ("fabula.quotes._michel", "PaperAttributionReport"),
    "attribute_parts": ("fabula.quotes._michel", "attribute_parts"),
    "quote_parts": ("fabula.quotes._michel", "quote_parts"),
    "PAPER_METHOD": ("fabula.quotes._michel", "METHOD_NAME"),
    "paper_alias_table": ("fabula.quotes._michel", "alias_table"),
}


__getattr__, __dir__ = lazy_exports("fabula.quotes", _LAZY, globals())


__all__ = [
    "CHUNK_TOKENS",
    "DEFAULT_METHOD",
    "LLM_METHODS",
    "METHODS",
    "PAPER",
    "PAPER_METHOD",
    "STRIDE_TOKENS",
    "TSV_COLUMNS",
    "AttributionResult",
    "PaperAttributionReport",
    "QuoteFormat",
    "attribute_parts",
    "attribute_quotes",
    "attribution_method",
    "available_methods",
    "detect_quote_style",
    "detect_quotes",
    "keep_text_values",
    "llm_prompt_id",
    "paper_alias_table",
    "quote_parts",
    "quote_records",
    "quotes_bytes",
    "write_quotes",
]
