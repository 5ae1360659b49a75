"""Character descriptions and analyses (BookWorm): extractive sheets without an LLM, and LLM
descriptions over a chosen context (lead, BM25, mentions, hierarchical), spoiler-safe at a position.

>>> select_sentences(book, "c1", k=4, method="lead")     # doctest: +SKIP
>>> characteristic_lines(book)["c1"]                     # doctest: +SKIP
>>> describe_characters(book, [emma], llm, context="bm25")  # doctest: +SKIP
"""

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
from fabula.describe._lines import characteristic_lines
from fabula.describe._sheet import (
    CharacterSheet,
    SheetSentence,
    character_sheet,
    find_profile,
    main_characters,
)

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
    "select_sentences",
    "sentences_at",
    "strip_citations",
    "text_sentences",
    "truncate_paragraphs",
    "whole_sentence",
]
