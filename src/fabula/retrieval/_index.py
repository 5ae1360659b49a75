"""`index_book`: units + retriever + on-disk cache in one call — what tasks and the CLI use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fabula.book import Book, Character
from fabula.retrieval._base import Hit, Retriever, create_retriever
from fabula.retrieval._cache import cached_index
from fabula.retrieval._hybrid import DEFAULT_MEMBERS, HybridRetriever
from fabula.retrieval._mentions import CharacterFilter
from fabula.retrieval._units import UnitKind, UnitSpec, make_units


def index_book(
    book: Book,
    retriever: str = "bm25",
    *,
    units: UnitSpec | UnitKind = "paragraph",
    cache: bool = True,
    cache_dir: Path | None = None,
    character_filter: bool = False,
    gold: list[Character] | None = None,
    **options: Any,
) -> Retriever:
    """An indexed retriever over ``book``'s units, loaded from the index cache when possible.

    ``options`` go to the retriever (e.g. ``model=`` for ``dense``, ``method=`` for ``bm25``; for
    ``hybrid``: ``members=("bm25", "dense")`` and ``member_options={"dense": {...}}``). ``gold`` is the
    character list the ``mentions`` retriever and the character filter use when the book has no
    mentions yet. ``character_filter`` wraps the retriever in RECIDENT's filter.
    """
    spec = UnitSpec(kind=units) if isinstance(units, str) else units
    unit_list = make_units(book, spec)
    result: Retriever
    if retriever == "hybrid":
        member_options: dict[str, dict[str, Any]] = options.pop("member_options", {})
        members = [
            m
            if isinstance(m, Retriever)
            else index_book(
                book, m, units=spec, cache=cache, cache_dir=cache_dir, gold=gold, **member_options.get(m, {})
            )
            for m in options.pop("members", DEFAULT_MEMBERS)
        ]
        result = HybridRetriever(members, **options)
        result.index(unit_list)  # members already hold these units: nothing is rebuilt
    else:
        if retriever == "mentions":
            options.setdefault("gold", gold)
        result = create_retriever(retriever, book, **options)
        if cache:
            cached_index(
                result, unit_list, content_hash=book.content_hash, unit_key=spec.key(), cache_dir=cache_dir
            )
        else:
            result.index(unit_list)
    if character_filter:
        result = CharacterFilter(result, book, gold=gold)
    return result


def is_heading(book: Book, start: int, end: int) -> bool:
    """Whether ``[start, end)`` is a chapter's heading or lies before it (a part heading such as
    "VOLUME II" above the chapter's): a title, not a passage a reader searches for."""
    for chapter in book.chapters:
        if chapter.heading is not None and chapter.start <= start and end <= chapter.heading.end:
            return True
    return False


def search_passages(
    retriever: Retriever, book: Book, query: str, k: int = 10, until: int | None = None
) -> list[Hit]:
    """The ``k`` best passages for ``query``, chapter and part headings left out: a short heading
    ("CHAPTER VII") sits close to many queries in an embedding space, yet shows the reader nothing.
    The headings stay in the index (contexts built from it keep the book's text as it is)."""
    headings = sum(1 for c in book.chapters if c.heading is not None) * 2  # a part heading each, at most
    hits = [
        h
        for h in retriever.search(query, k=k + headings, until=until)
        if not is_heading(book, h.unit.start, h.unit.end)
    ]
    return [Hit(h.unit, h.score, rank) for rank, h in enumerate(hits[:k], start=1)]
