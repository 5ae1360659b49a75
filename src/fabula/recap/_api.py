"""`recap`: the "previously on..." snippets for a reading position — what a reading app calls.

Spoiler safety: the book is cut at the position first (`Book.truncated`), so characters, terms and
embeddings come from the text before it, and every snippet (and the target) ends at or before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fabula.book import Book
from fabula.llm import LLM
from fabula.recap._construct import RecapSpec, Snippet, target_at
from fabula.recap._rankers import RecapContext, create_ranker


@dataclass(frozen=True, slots=True)
class RecapSnippet:
    """One recap snippet: offsets into ``book.text``, its chapter (1-based; None outside chapters),
    distance (1 = the nearest candidate), score and text."""

    start: int
    end: int
    chapter: int | None
    chapter_title: str | None
    distance: int
    score: float
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "chapter": self.chapter,
            "chapter_title": self.chapter_title,
            "distance": self.distance,
            "score": self.score,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class RecapResult:
    """The recap for a reader at ``position``: the passage just read (``target``) and its snippets,
    best first."""

    position: int
    method: str
    target: RecapSnippet
    snippets: list[RecapSnippet]
    log: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "method": self.method,
            "target": self.target.to_dict(),
            "snippets": [s.to_dict() for s in self.snippets],
        }


def _snippet(
    book: Book, context: RecapContext, snippet: Snippet, distance: int, score: float
) -> RecapSnippet:
    chapter_index = None
    title = None
    for number, chapter in enumerate(book.chapters, start=1):
        if chapter.start <= snippet.start < chapter.end:
            chapter_index, title = number, chapter.title
            break
    return RecapSnippet(
        snippet.start, snippet.end, chapter_index, title, distance, score, context.text(snippet)
    )


def recap(
    book: Book,
    position: int,
    *,
    k: int = 5,
    method: str = "reach-back",
    spec: RecapSpec | None = None,
    llm: LLM | None = None,
    **options: Any,
) -> RecapResult:
    """The ``k`` recap snippets for a reader at character offset ``position`` (see
    `fabula.book.resolve_position` for "45%" or "chapter:12"), ranked by ``method``.

    ``book`` is usually the whole book (it is cut at ``position`` here). A book already cut there
    (``book.truncated(position)``) whose characters `fabula.annotation.annotate` has found is used as it
    is, with those characters and mentions: the same ones a fresh cut would get, without finding them
    again (``fabula serve`` passes its checkpoint's analysis)."""
    ranker = create_ranker(method, llm=llm, **options)
    context = reader_context(book, position)
    visible = context.book
    target = target_at(visible, position, spec)
    ranking = ranker.rank(context, target)
    chosen = ranking.free(k) if ranker.needs_llm and ranking.selected is not None else ranking.top(k)
    snippets = [
        _snippet(visible, context, target.candidates[i], target.distance(i), ranking.scores[i])
        for i in chosen[:k]
    ]
    return RecapResult(
        position, method, _snippet(visible, context, target.target, 0, 0.0), snippets, ranking.log
    )


def reader_context(book: Book, position: int) -> RecapContext:
    """The rankers' context for a reader at character offset ``position``: the book cut there
    (`Book.truncated`), so its characters, term rarities and embeddings come from the text read so far
    and nothing after. `recap` and ``fabula eval recap`` (at a target's end) both build it here, so an
    evaluation scores exactly what a reader would be shown. A ``book`` already cut at ``position`` and
    annotated (see `recap`) is used as it is."""
    return RecapContext(book if _cut_and_annotated(book, position) else book.truncated(position))


def _cut_and_annotated(book: Book, position: int) -> bool:
    """Whether ``book`` is already cut at ``position`` and has its characters annotated."""
    return book.until == position and book.body.end == position and "characters" in book.annotations
