"""Context builders: fit the relevant parts of a book into a token budget (BookWorm's strategies).

- `lead_context`: the first N tokens of the book;
- `retrieval_context`: the top units for a query, then put back in book order;
- `mention_context`: every unit that mentions a character, in book order, until the budget is full;
- `hierarchical_context`: map-reduce through an LLM — chunks of N tokens, one call each, then merge calls.

Budgets are counted with the LLM's tokenizer when an LLM (or any counter) is given, else with the LLM
layer's heuristic (see `fabula.retrieval._tokens`). All builders take ``until`` (a reading position):
nothing after it is ever used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from fabula.book import Book, Character
from fabula.errors import BackendError, ConfigError
from fabula.retrieval._base import Retriever
from fabula.retrieval._mentions import MentionRetriever
from fabula.retrieval._tokens import TokenCounter, token_counter
from fabula.retrieval._units import Unit, UnitSpec, make_units

if TYPE_CHECKING:
    from fabula.llm import LLM

SEPARATOR = "\n\n"


@dataclass(slots=True)
class Context:
    """What a builder chose: the text to give a model, the units it came from, and its size."""

    strategy: str
    text: str
    units: list[Unit]
    tokens: int
    budget: int
    parts: list[str] = field(default_factory=list)  # hierarchical: the map step's notes, in order
    prompts: list[str] = field(default_factory=list)  # hierarchical: prompt ids used (name@version)


def _visible(units: Sequence[Unit], until: int | None) -> list[Unit]:
    return list(units) if until is None else [u for u in units if u.end <= until]


def _pack(units: Sequence[Unit], budget: int, count: TokenCounter, *, skip: bool) -> list[Unit]:
    """Units (in the given order) whose texts fit together in ``budget``; with ``skip`` a unit that does
    not fit is passed over, otherwise packing stops there."""
    chosen: list[Unit] = []
    used = 0
    separator = max(1, count(SEPARATOR))
    for unit in units:
        cost = count(unit.text) + (separator if chosen else 0)
        if used + cost <= budget:
            chosen.append(unit)
            used += cost
        elif not skip:
            break
    return chosen


def _context(strategy: str, units: list[Unit], budget: int, count: TokenCounter) -> Context:
    units = sorted(units, key=lambda u: u.start)
    while units:
        text = SEPARATOR.join(u.text for u in units)
        tokens = count(text)
        if tokens <= budget:
            return Context(strategy, text, units, tokens, budget)
        units = units[:-1]  # tokenizers may merge across the separator differently: stay within budget
    return Context(strategy, "", [], 0, budget)


def _cut_to_fit(book: Book, unit: Unit, budget: int, count: TokenCounter) -> Unit | None:
    """The longest prefix of ``unit`` ending at a book token that fits in ``budget`` tokens."""
    tokens = book.tokens
    first = int(np.searchsorted(tokens.starts, unit.start, side="left"))
    last = int(np.searchsorted(tokens.ends, unit.end, side="right"))
    lo, hi, best = first, last - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        end = int(tokens.ends[mid])
        text = book.span_text((unit.start, end), normalize=True)
        if count(text) <= budget:
            best, lo = Unit(unit.id, unit.start, end, unit.chapter, text), mid + 1
        else:
            hi = mid - 1
    return best


def _check_budget(budget: int) -> None:
    if budget < 1:
        raise ConfigError(f"token budget must be at least 1, not {budget}")


def lead_context(
    book: Book, budget: int, *, until: int | None = None, counter: object | None = None
) -> Context:
    """The first ``budget`` tokens of the book's body (the last paragraph cut at a token boundary)."""
    _check_budget(budget)
    count = token_counter(counter)
    units = _visible(make_units(book, "paragraph"), until)
    chosen = _pack(units, budget, count, skip=False)
    if len(chosen) < len(units):
        used = count(SEPARATOR.join(u.text for u in chosen)) + (max(1, count(SEPARATOR)) if chosen else 0)
        partial = _cut_to_fit(book, units[len(chosen)], budget - used, count) if budget > used else None
        if partial is not None:
            chosen.append(partial)
    return _context("lead", chosen, budget, count)


def retrieval_context(
    retriever: Retriever,
    query: str,
    budget: int,
    *,
    k: int | None = None,
    until: int | None = None,
    counter: object | None = None,
) -> Context:
    """The best units for ``query`` (at most ``k``) that fit in ``budget``, in book order."""
    _check_budget(budget)
    count = token_counter(counter)
    hits = retriever.search(query, k=k or len(retriever.units), until=until)
    return _context("retrieval", _pack([h.unit for h in hits], budget, count, skip=True), budget, count)


def mention_context(
    book: Book,
    character: str | Character,
    budget: int,
    *,
    units: UnitSpec | str = "paragraph",
    until: int | None = None,
    counter: object | None = None,
    gold: list[Character] | None = None,
) -> Context:
    """Units that mention ``character`` (name, alias, id or `Character`), in book order, until the
    budget is full."""
    _check_budget(budget)
    count = token_counter(counter)
    retriever = MentionRetriever(book, gold=gold)
    spec = UnitSpec(kind=units) if isinstance(units, str) else units  # type: ignore[arg-type]
    retriever.index(make_units(book, spec))
    query = character.id if isinstance(character, Character) else character
    scores = np.where(retriever.visible(until), retriever.scores(query), -np.inf)
    mentioning = [retriever.units[i] for i in np.flatnonzero(np.isfinite(scores)).tolist()]
    return _context("mentions", _pack(mentioning, budget, count, skip=False), budget, count)


def hierarchical_context(
    book: Book,
    llm: LLM,
    instruction: str,
    *,
    chunk_tokens: int = 4000,
    reduce_tokens: int | None = None,
    max_output_tokens: int = 512,
    until: int | None = None,
    map_prompt: str = "retrieval/map",
    reduce_prompt: str = "retrieval/reduce",
) -> Context:
    """Map-reduce over the whole book (up to ``until``): chunks of at most ``chunk_tokens`` tokens go
    to one LLM call each (notes for ``instruction``), then the notes are merged by reduce calls —
    in groups that fit ``reduce_tokens`` (default: ``chunk_tokens``), repeated until one text is left.
    """
    from fabula.llm import GenerateOptions
    from fabula.prompts import load_prompt

    _check_budget(chunk_tokens)
    count = token_counter(llm)
    mapper, reducer = load_prompt(map_prompt), load_prompt(reduce_prompt)
    title_clause = f", {book.meta.title}" if book.meta.title else ""
    chunks = _chunks(book, chunk_tokens, until, count)
    if not chunks:
        return Context("hierarchical", "", [], 0, chunk_tokens)
    options = GenerateOptions(max_tokens=max_output_tokens, temperature=0.0)
    prompts = [
        mapper.messages(
            chunk=SEPARATOR.join(u.text for u in chunk),
            part=i,
            parts=len(chunks),
            instruction=instruction,
            title_clause=title_clause,
        )
        for i, chunk in enumerate(chunks, start=1)
    ]
    notes = _answers(llm.generate_many(prompts, options, progress="reading (map)"), "map")
    parts = list(notes)
    limit = reduce_tokens or chunk_tokens
    while True:
        groups = _note_groups(notes, limit, count)
        merged = _answers(
            llm.generate_many(
                [
                    reducer.messages(
                        notes=_numbered(group), instruction=instruction, title_clause=title_clause
                    )
                    for group in groups
                ],
                options,
                progress="merging (reduce)" if len(groups) > 1 else None,
            ),
            "reduce",
        )
        if len(merged) == 1:
            break
        if len(merged) >= len(notes):  # no progress: notes too long to merge within the limit
            raise ConfigError(
                f"reduce_tokens={limit} is too small to merge notes of up to {max_output_tokens} tokens"
            )
        notes = merged
    text = merged[0]
    units = [u for chunk in chunks for u in chunk]
    return Context("hierarchical", text, units, count(text), chunk_tokens, parts, [mapper.id, reducer.id])


def _chunks(book: Book, chunk_tokens: int, until: int | None, count: TokenCounter) -> list[list[Unit]]:
    """Consecutive paragraphs packed into chunks of at most ``chunk_tokens`` (by ``count``)."""
    units = _visible(make_units(book, UnitSpec("paragraph", max_tokens=max(1, chunk_tokens // 2))), until)
    chunks: list[list[Unit]] = []
    while units:
        chunk = _pack(units, chunk_tokens, count, skip=False)
        if not chunk:  # a paragraph longer than a chunk by this tokenizer: cut it
            cut = _cut_to_fit(book, units[0], chunk_tokens, count)
            if cut is None:
                raise ConfigError(f"chunk_tokens={chunk_tokens} is too small to hold a single word")
            chunk = [cut]
            rest = Unit(
                units[0].id,
                cut.end,
                units[0].end,
                units[0].chapter,
                book.span_text((cut.end, units[0].end), normalize=True),
            )
            units = ([rest] if rest.text else []) + units[1:]
        else:
            units = units[len(chunk) :]
        chunks.append(chunk)
    return chunks


def _numbered(notes: Sequence[str]) -> str:
    return SEPARATOR.join(f"[Part {i}]\n{note.strip()}" for i, note in enumerate(notes, start=1))


def _note_groups(notes: list[str], limit: int, count: TokenCounter) -> list[list[str]]:
    """Consecutive notes grouped so each group's numbered text fits ``limit`` tokens (one note per
    group at least)."""
    groups: list[list[str]] = [[]]
    for note in notes:
        if groups[-1] and count(_numbered([*groups[-1], note])) > limit:
            groups.append([])
        groups[-1].append(note)
    return groups


def _answers(generations: Sequence[object], step: str) -> list[str]:
    """Texts of the generations; a failed call is an error (a missing chunk would silently lose part
    of the book)."""
    texts: list[str] = []
    for generation in generations:
        error = getattr(generation, "error", None)
        if error is not None:
            raise BackendError(f"LLM call failed in the {step} step: {error}", "hierarchical context")
        texts.append(str(getattr(generation, "text", "")).strip())
    return texts
