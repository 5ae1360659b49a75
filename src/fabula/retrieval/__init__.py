"""Retrieval and context building: pick the parts of a whole novel that a task or a model needs.

>>> retriever = index_book(book, "bm25")                       # doctest: +SKIP
>>> retriever.search("Ashdown's letter", k=5, until=120_000)     # doctest: +SKIP
>>> retrieval_context(retriever, "Ashdown's letter", budget=2000).text  # doctest: +SKIP

Units (paragraphs, sentences, token windows, sentence snippets) are spans of the book; retrievers
(``bm25``, ``tfidf``, ``mentions``, ``dense``, ``hybrid``) share one interface and honour a reading
position (``until``); indexes are cached on disk per book and settings.
"""

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
