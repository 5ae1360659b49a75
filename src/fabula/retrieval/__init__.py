"""Retrieval and context building: pick the parts of a whole novel that a task or a model needs.

>>> retriever = index_book(book, "bm25")                       # doctest: +SKIP
>>> retriever.search("Ashdown's letter", k=5, until=120_000)     # doctest: +SKIP
>>> retrieval_context(retriever, "Ashdown's letter", budget=2000).text  # doctest: +SKIP

Units (paragraphs, sentences, token windows, sentence snippets) are spans of the book; retrievers
(``bm25``, ``tfidf``, ``mentions``, ``dense``, ``hybrid``) share one interface and honour a reading
position (``until``); indexes are cached on disk per book and settings.

The names load on first use (PEP 562): `fabula analyze` needs only `Analyzer` (the content words of
characters' lines) and does not import the retrievers, the context builders and their dependencies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabula._lazy import lazy_exports

if TYPE_CHECKING:
    from fabula.retrieval._analysis import Analyzer
    from fabula.retrieval._base import (
        Hit,
        Retriever,
        create_retriever,
        rank_scores,
        register_retriever,
        retriever_names,
    )
    from fabula.retrieval._bm25 import BM25Retriever
    from fabula.retrieval._cache import cached_index, default_cache_dir
    from fabula.retrieval._context import (
        Context,
        hierarchical_context,
        lead_context,
        mention_context,
        retrieval_context,
    )
    from fabula.retrieval._dense import DEFAULT_DENSE_MODEL, DenseRetriever, Embedder, load_embedder
    from fabula.retrieval._hybrid import HybridRetriever
    from fabula.retrieval._index import index_book, is_heading, search_passages
    from fabula.retrieval._mentions import (
        CharacterFilter,
        MentionRetriever,
        MentionTable,
        characters_named_in,
        ensure_mentions,
        find_character,
    )
    from fabula.retrieval._tfidf import TfidfRetriever
    from fabula.retrieval._tokens import TokenCounter, token_counter
    from fabula.retrieval._units import DEFAULT_MAX_TOKENS, UNIT_KINDS, Unit, UnitKind, UnitSpec, make_units

_EXPORTS = {
    "Analyzer": "fabula.retrieval._analysis",
    "Hit": "fabula.retrieval._base",
    "Retriever": "fabula.retrieval._base",
    "create_retriever": "fabula.retrieval._base",
    "rank_scores": "fabula.retrieval._base",
    "register_retriever": "fabula.retrieval._base",
    "retriever_names": "fabula.retrieval._base",
    "BM25Retriever": "fabula.retrieval._bm25",
    "cached_index": "fabula.retrieval._cache",
    "default_cache_dir": "fabula.retrieval._cache",
    "Context": "fabula.retrieval._context",
    "hierarchical_context": "fabula.retrieval._context",
    "lead_context": "fabula.retrieval._context",
    "mention_context": "fabula.retrieval._context",
    "retrieval_context": "fabula.retrieval._context",
    "DEFAULT_DENSE_MODEL": "fabula.retrieval._dense",
    "DenseRetriever": "fabula.retrieval._dense",
    "Embedder": "fabula.retrieval._dense",
    "load_embedder": "fabula.retrieval._dense",
    "HybridRetriever": "fabula.retrieval._hybrid",
    "index_book": "fabula.retrieval._index",
    "is_heading": "fabula.retrieval._index",
    "search_passages": "fabula.retrieval._index",
    "CharacterFilter": "fabula.retrieval._mentions",
    "MentionRetriever": "fabula.retrieval._mentions",
    "MentionTable": "fabula.retrieval._mentions",
    "characters_named_in": "fabula.retrieval._mentions",
    "ensure_mentions": "fabula.retrieval._mentions",
    "find_character": "fabula.retrieval._mentions",
    "TfidfRetriever": "fabula.retrieval._tfidf",
    "TokenCounter": "fabula.retrieval._tokens",
    "token_counter": "fabula.retrieval._tokens",
    "DEFAULT_MAX_TOKENS": "fabula.retrieval._units",
    "UNIT_KINDS": "fabula.retrieval._units",
    "Unit": "fabula.retrieval._units",
    "UnitKind": "fabula.retrieval._units",
    "UnitSpec": "fabula.retrieval._units",
    "make_units": "fabula.retrieval._units",
}

__all__ = [
    "DEFAULT_DENSE_MODEL",
    "DEFAULT_MAX_TOKENS",
    "UNIT_KINDS",
    "Analyzer",
    "BM25Retriever",
    "CharacterFilter",
    "Context",
    "DenseRetriever",
    "Embedder",
    "Hit",
    "HybridRetriever",
    "MentionRetriever",
    "MentionTable",
    "Retriever",
    "TfidfRetriever",
    "TokenCounter",
    "Unit",
    "UnitKind",
    "UnitSpec",
    "cached_index",
    "characters_named_in",
    "create_retriever",
    "default_cache_dir",
    "ensure_mentions",
    "find_character",
    "hierarchical_context",
    "index_book",
    "is_heading",
    "lead_context",
    "load_embedder",
    "make_units",
    "mention_context",
    "rank_scores",
    "register_retriever",
    "retrieval_context",
    "retriever_names",
    "search_passages",
    "token_counter",
]

__getattr__, __dir__ = lazy_exports("fabula.retrieval", _EXPORTS, globals())
