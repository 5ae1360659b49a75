"""Character descriptions and analyses (BookWorm): extractive sheets without an LLM, and LLM
descriptions over a chosen context (lead, BM25, mentions, hierarchical), spoiler-safe at a position.

>>> select_sentences(book, "c1", k=4, method="lead")     # doctest: +SKIP
>>> characteristic_lines(book)["c1"]                     # doctest: +SKIP
>>> describe_characters(book, [emma], llm, context="bm25")  # doctest: +SKIP

The names load on first use (PEP 562): `fabula analyze` needs only the extractive lead and the characteristic
lines for its profiles, not the LLM descriptions, BookWorm's protocol or the character sheets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabula._lazy import lazy_exports

if TYPE_CHECKING:
    from fabula.describe._bookworm import (
        BOOKWORM_CONTEXTS,
        BOOKWORM_SETTINGS,
        BookwormOutput,
        bookworm_describe,
        context_paragraphs,
        truncate_paragraphs,
    )
    from fabula.describe._extractive import (
        K_BY_KIND,
        Candidate,
        candidate_sentences,
        extractive_methods,
        oracle_sentences,
        select_sentences,
        sentences_at,
        whole_sentence,
    )
    from fabula.describe._generate import (
        CONTEXTS,
        DEFAULT_BUDGET,
        JOINT_BATCH,
        KINDS,
        CitedSentence,
        GeneratedDescription,
        Passage,
        describe_characters,
        strip_citations,
        text_sentences,
    )
    from fabula.describe._lines import (
        characteristic_lines,
        read_lines_ahead,
    )
    from fabula.describe._sheet import (
        CharacterSheet,
        SheetSentence,
        character_sheet,
        find_profile,
        main_characters,
    )

_EXPORTS = {
    "BOOKWORM_CONTEXTS": "fabula.describe._bookworm",
    "BOOKWORM_SETTINGS": "fabula.describe._bookworm",
    "BookwormOutput": "fabula.describe._bookworm",
    "bookworm_describe": "fabula.describe._bookworm",
    "context_paragraphs": "fabula.describe._bookworm",
    "truncate_paragraphs": "fabula.describe._bookworm",
    "K_BY_KIND": "fabula.describe._extractive",
    "Candidate": "fabula.describe._extractive",
    "candidate_sentences": "fabula.describe._extractive",
    "extractive_methods": "fabula.describe._extractive",
    "oracle_sentences": "fabula.describe._extractive",
    "select_sentences": "fabula.describe._extractive",
    "sentences_at": "fabula.describe._extractive",
    "whole_sentence": "fabula.describe._extractive",
    "CONTEXTS": "fabula.describe._generate",
    "DEFAULT_BUDGET": "fabula.describe._generate",
    "JOINT_BATCH": "fabula.describe._generate",
    "KINDS": "fabula.describe._generate",
    "CitedSentence": "fabula.describe._generate",
    "GeneratedDescription": "fabula.describe._generate",
    "Passage": "fabula.describe._generate",
    "describe_characters": "fabula.describe._generate",
    "strip_citations": "fabula.describe._generate",
    "text_sentences": "fabula.describe._generate",
    "characteristic_lines": "fabula.describe._lines",
    "read_lines_ahead": "fabula.describe._lines",
    "CharacterSheet": "fabula.describe._sheet",
    "SheetSentence": "fabula.describe._sheet",
    "character_sheet": "fabula.describe._sheet",
    "find_profile": "fabula.describe._sheet",
    "main_characters": "fabula.describe._sheet",
}

__all__ = [
    "BOOKWORM_CONTEXTS",
    "BOOKWORM_SETTINGS",
    "CONTEXTS",
    "DEFAULT_BUDGET",
    "JOINT_BATCH",
    "KINDS",
    "K_BY_KIND",
    "BookwormOutput",
    "Candidate",
    "CharacterSheet",
    "CitedSentence",
    "GeneratedDescription",
    "Passage",
    "SheetSentence",
    "bookworm_describe",
    "candidate_sentences",
    "character_sheet",
    "characteristic_lines",
    "context_paragraphs",
    "describe_characters",
    "extractive_methods",
    "find_profile",
    "main_characters",
    "oracle_sentences",
    "read_lines_ahead",
    "select_sentences",
    "sentences_at",
    "strip_citations",
    "text_sentences",
    "truncate_paragraphs",
    "whole_sentence",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
