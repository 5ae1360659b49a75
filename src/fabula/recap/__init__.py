"""Recap snippets ("previously on..."), after RECIDENT (Li et al., 2024): at a reading position, which
earlier passages does the passage being read directly follow from?

>>> result = recap(book, resolve_position(book, "45%"), k=5)   # doctest: +SKIP
>>> [(s.chapter, s.start, s.end) for s in result.snippets]     # doctest: +SKIP

The construction (targets of ``w`` sentences, 60 candidate snippets before a 10-20 sentence gap), the
rankers (``closest``, ``bm25``, ``tfidf``, ``dense``, ``character-filter``, ``combined``,
``llm-listwise``, ``llm-pairwise``, ``pipeline``) and the data file are documented in docs/recap.md.
"""

from fabula.recap._api import RecapResult, RecapSnippet, reader_context, recap
from fabula.recap._construct import (
    RecapSpec,
    RecapTarget,
    SentenceIndex,
    Snippet,
    build_target,
    every_target,
    main_characters,
    sample_targets,
    target_at,
)
from fabula.recap._data import read_records, target_record, write_targets
from fabula.recap._rankers import (
    LLM_METHODS,
    RANKERS,
    Ranker,
    Ranking,
    RecapContext,
    create_ranker,
    ranker_names,
    ranker_needs_llm,
    register_ranker,
)

__all__ = [
    "LLM_METHODS",
    "RANKERS",
    "Ranker",
    "Ranking",
    "RecapContext",
    "RecapResult",
    "RecapSnippet",
    "RecapSpec",
    "RecapTarget",
    "SentenceIndex",
    "Snippet",
    "build_target",
    "create_ranker",
    "every_target",
    "main_characters",
    "ranker_names",
    "ranker_needs_llm",
    "read_records",
    "reader_context",
    "recap",
    "register_ranker",
    "sample_targets",
    "target_at",
    "target_record",
    "write_targets",
]
