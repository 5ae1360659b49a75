"""Character-mention retrieval (BookWorm's "coreference" strategy) and RECIDENT's character filter.

Both read ``book.mentions`` (names, titles and resolved pronouns from `fabula.characters`), annotated by
`fabula.annotation.annotate` (with ``gold`` if given) when the book does not have them yet.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from fabula.book import Book, Character, Mention
from fabula.retrieval._base import FloatArray, Retriever, register_retriever
from fabula.retrieval._units import Unit

# How much one mention says that a unit is about the character. A full name or alias is unambiguous
# and counts 1; a partial name (a bare first name, which may be someone else's: Emma's "Henry") or a
# title 0.1, a nominal 0.05, a resolved pronoun 0.01. So units naming the character come first, more
# names first; partial names, titles and pronouns order the rest and bring in units without a name.
KIND_WEIGHTS = {"alias": 1.0, "name": 0.1, "title": 0.1, "nominal": 0.05, "pronoun": 0.01}


def ensure_mentions(book: Book, gold: list[Character] | None = None) -> None:
    """The book's characters and mentions by the one annotation pipeline (``gold``: that cast; None: the
    cast already annotated, else the discovered one)."""
    from fabula.annotation import UNSET, annotate

    annotate(book, {"mentions"}, gold=UNSET if gold is None else gold)


def find_character(book: Book, query: str) -> Character | None:
    """The character a query names (by id, name or alias), via `fabula.characters.resolve_name`."""
    from fabula.characters import resolve_name

    query = query.strip()
    if not query:
        return None
    return book.character(query) or resolve_name(book.characters, query)


def characters_named_in(book: Book, query: str) -> list[Character]:
    """Characters whose name or an alias appears in ``query`` as whole words (case-sensitive, since
    names are capitalized), or that the whole query resolves to."""
    found: dict[str, Character] = {}
    whole = find_character(book, query)
    if whole is not None:
        found[whole.id] = whole
    for character in book.characters:
        for name in character.all_names():
            if len(name) > 1 and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", query):
                found.setdefault(character.id, character)
                break
    return list(found.values())


def _weight(
    book: Book,
    mention: Mention,
    aliases: dict[str, set[str]],
    kind_weights: Mapping[str, float] = KIND_WEIGHTS,
) -> float:
    kind: str = mention.kind
    if kind == "name" and book.text[mention.start : mention.end].casefold() in aliases.get(
        mention.character_id or "", ()
    ):
        kind = "alias"
    return kind_weights.get(kind, 0.05) * mention.confidence


class MentionTable:
    """Which units each mention falls in, for fast per-character unit weights.

    A name mention counts as a full name when its text is one of the character's names in ``names``
    (the gold list when there is one, else the book's characters, whose aliases are all discovered
    surface forms). ``kind_weights`` overrides `KIND_WEIGHTS` (character recognition weighs pronouns more).
    """

    def __init__(
        self,
        book: Book,
        units: Sequence[Unit],
        names: list[Character] | None = None,
        *,
        kind_weights: Mapping[str, float] = KIND_WEIGHTS,
    ) -> None:
        starts = np.asarray([u.start for u in units], dtype=np.int64)
        ends = np.asarray([u.end for u in units], dtype=np.int64)
        mentions = [m for m in book.mentions if m.character_id is not None]
        m_start = np.asarray([m.start for m in mentions], dtype=np.int64)
        m_end = np.asarray([m.end for m in mentions], dtype=np.int64)
        # units are in book order with non-decreasing starts and ends, so the units containing a
        # mention are a contiguous range [first, stop)
        self.first = np.searchsorted(ends, m_end, side="left")
        self.stop = np.searchsorted(starts, m_start, side="right")
        self.character_ids = np.asarray([m.character_id for m in mentions], dtype=object)
        aliases = {c.id: {n.casefold() for n in c.all_names()} for c in names or book.characters}
        self.weights = np.asarray([_weight(book, m, aliases, kind_weights) for m in mentions])
        self.n_units = len(units)

    def unit_weights(self, character_ids: set[str]) -> FloatArray:
        """Summed mention weight of these characters in every unit."""
        out = np.zeros(self.n_units)
        if not character_ids or self.n_units == 0:
            return out
        selected = np.flatnonzero(np.isin(self.character_ids, list(character_ids)))
        single = selected[self.stop[selected] - self.first[selected] == 1]
        np.add.at(out, self.first[single], self.weights[single])
        for i in selected[self.stop[selected] - self.first[selected] > 1].tolist():  # overlapping units
            out[self.first[i] : self.stop[i]] += self.weights[i]
        return out

    def mask(self, character_ids: set[str]) -> npt.NDArray[np.bool_]:
        return self.unit_weights(character_ids) > 0


@register_retriever("mentions")
class MentionRetriever(Retriever):
    """Units that mention the queried character (a name, alias or id), most mentions first.

    Score: summed mention weights times confidence (`KIND_WEIGHTS`: full names first, then the rest).
    """

    def __init__(self, book: Book, *, gold: list[Character] | None = None) -> None:
        super().__init__()
        self.book = book
        self.gold = gold
        self._table: MentionTable | None = None

    @classmethod
    def for_book(cls, book: Book | None, **options: Any) -> MentionRetriever:
        if book is None:
            raise TypeError("the mentions retriever needs the book")
        return cls(book, **options)

    def _build(self) -> None:
        ensure_mentions(self.book, self.gold)
        self._table = MentionTable(self.book, self.units, self.gold)

    def scores(self, query: str, until: int | None = None) -> FloatArray:
        character = find_character(self.book, query)
        if character is None or self._table is None:
            return np.full(len(self.units), -np.inf)
        weights = self._table.unit_weights({character.id})
        return np.where(weights > 0, weights, -np.inf)


class CharacterFilter(Retriever):
    """RECIDENT's filter around any retriever: when the query names characters, keep only units that
    mention at least one of them (by name, alias or resolved pronoun); other queries pass unchanged."""

    def __init__(self, inner: Retriever, book: Book, *, gold: list[Character] | None = None) -> None:
        super().__init__()
        self.inner, self.book, self.gold = inner, book, gold
        self.name = f"{inner.name}+character-filter"  # type: ignore[misc]
        self._table: MentionTable | None = None
        if inner.units:
            self._attach()

    def _attach(self) -> None:
        self._set_units(self.inner.units)
        ensure_mentions(self.book, self.gold)
        self._table = MentionTable(self.book, self.units, self.gold)

    def _build(self) -> None:
        self.inner.index(self.units)
        self._attach()

    def scores(self, query: str, until: int | None = None) -> FloatArray:
        scores = self.inner.scores(query, until)
        named = {c.id for c in characters_named_in(self.book, query)}
        if not named or self._table is None:
            return scores
        return np.where(self._table.mask(named), scores, -np.inf)
