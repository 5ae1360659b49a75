"""The one core data model: a `Book` and the span layers every component reads and adds to.

The original text is kept exactly as decoded from the file (never normalised in place). Everything
else — front/back matter, chapters, paragraphs, sentences, tokens, and later characters, mentions and
quotes — is stored as character-offset spans into it, like spaCy's ``Doc``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from fabula.book._spans import Span, SpanLayer

if TYPE_CHECKING:
    from fabula.book._prefix import PrefixLayers

Gender = Literal["female", "male", "neutral", "unknown"]
QuoteType = Literal["explicit", "anaphoric", "implicit"]
MentionKind = Literal["name", "title", "pronoun", "nominal"]
CharacterSource = Literal["gold", "predicted"]

# Project Gutenberg writes italics as _underscores_ ("_could_", "_I_ see!"): a pair around a run of text
# that starts and ends with a non-space and is not part of a word (snake_case stays as it is).
EMPHASIS = re.compile(r"(?<![\w_])_(?=[^_\s])([^_]*?[^_\s])_(?![\w_])")


def strip_emphasis(text: str) -> str:
    """``text`` without Gutenberg's emphasis underscores: ``"_I_ see!"`` -> ``"I see!"``."""
    return EMPHASIS.sub(r"\1", text) if "_" in text else text


def normalize_text(text: str, *, keep_emphasis: bool = False) -> str:
    """``text`` as people should read it: hard-wrapped lines joined, white space collapsed, and Gutenberg's
    ``_emphasis_`` underscores dropped unless ``keep_emphasis`` (what `Book.span_text` gives with
    ``normalize``)."""
    # runs of white space as one space, ends stripped: ``re.sub(r"\s+", " ", text).strip()`` (str.split's white
    # space is re's ``\s``, tested on every code point), ~4x faster
    text = " ".join(text.split())
    return text if keep_emphasis else strip_emphasis(text)


def char_classes(text: str, classify: Callable[[str], int], dtype: Any = np.uint8) -> np.ndarray:
    """``classify(c)`` for every character ``c`` of ``text``, as an array of ``dtype`` (bit flags, say):
    ``classify`` runs once per distinct character (a novel has a few hundred), not once per character or token."""
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    if codes.size == 0:
        return np.zeros(0, dtype=dtype)
    # numpy indexes with an array of its own index type on a fast path: converting the code points first
    # and indexing twice with them is about a third less work than indexing twice with the uint32 codes
    indices = codes.astype(np.intp)
    present = np.zeros(int(codes.max()) + 1, dtype=bool)
    present[indices] = True
    table = np.zeros(present.size, dtype=dtype)
    for code in np.flatnonzero(present).tolist():
        table[code] = classify(chr(code))
    return table[indices]


#: `text_kinds` bits: `str.isalpha`, `str.isalnum`, and punctuation other than the symbols of code and data
ALPHA, ALNUM, PUNCTUATION = 1, 2, 4
_SYMBOLS = "#[]{}\\/@&%"  # Unicode calls these punctuation; in code and data they are syntax


def _kind(char: str) -> int:
    return (
        (ALPHA if char.isalpha() else 0)
        | (ALNUM if char.isalnum() else 0)
        | (PUNCTUATION if char not in _SYMBOLS and unicodedata.category(char).startswith("P") else 0)
    )


_last_kinds: tuple[str, np.ndarray] = ("", np.zeros(0, dtype=np.uint8))


def text_kinds(text: str) -> np.ndarray:
    """`ALPHA` | `ALNUM` | `PUNCTUATION` of every character of ``text`` (`char_classes`). The last text's array is
    kept: `fabula.book.prose_problem` and `Book.word_count` read the same book's (each character classed once
    for both, not twice and once more)."""
    global _last_kinds
    last = _last_kinds  # one read: another thread may replace it meanwhile
    if last[0] is text:
        return last[1]
    kinds = char_classes(text, _kind)
    kinds.flags.writeable = False  # shared by every caller
    _last_kinds = (text, kinds)
    return kinds


@dataclass(slots=True)
class BookMeta:
    """What we know about where a book came from."""

    title: str | None = None
    author: str | None = None
    language: str = "en"  # "en" or "zh"; decides sentence and token rules
    encoding: str = "utf-8"
    source: str | None = None  # the path it was loaded from
    source_format: str = "txt"  # "txt" or "epub"
    gutenberg: bool = False  # whether Project Gutenberg boilerplate was found and excluded


@dataclass(slots=True)
class Chapter:
    """A chapter: its span covers the heading and the chapter text up to the next heading."""

    id: int
    start: int
    end: int
    title: str | None = None
    heading: Span | None = None  # where the heading itself is, if there is one
    synthetic: bool = False  # True when the book had no headings and fabula cut sections itself
    part: str | None = None  # the BOOK/PART/VOLUME heading this chapter belongs to ("VOLUME II"), if any

    @property
    def span(self) -> Span:
        return Span(self.start, self.end)


@dataclass(slots=True)
class Character:
    """A character: a cluster of names (aliases) that refer to one person."""

    id: str
    name: str  # canonical name
    aliases: dict[str, int] = field(default_factory=dict)  # alias -> number of mentions with it
    gender: Gender = "unknown"
    gender_confidence: float = 0.0
    mention_count: int = 0
    first: int | None = None  # offset of the first mention
    last: int | None = None  # offset of the last mention
    rank: int = 0  # 1 = most important
    source: CharacterSource = "predicted"
    category: str | None = None  # e.g. PDNC's major/intermediate/minor for gold characters
    narrator: bool = False  # the first-person narrator: "I" in the narration refers to this character

    def all_names(self) -> tuple[str, ...]:
        """The canonical name, then the aliases in their order, each once. An ordered tuple, not a set:
        a set of strings iterates in an order that changes from process to process (hash randomisation),
        which made anything drawn while walking the names (the anonymiser's mapping) differ between runs."""
        return tuple(dict.fromkeys((self.name, *self.aliases)))


@dataclass(slots=True)
class Mention:
    """A span that refers to a character (a name, a title like "the Colonel", or a pronoun)."""

    start: int
    end: int
    character_id: str | None
    kind: MentionKind = "name"
    confidence: float = 1.0

    @property
    def span(self) -> Span:
        return Span(self.start, self.end)


@dataclass(slots=True)
class Quote:
    """A quotation. ``spans`` are its sub-quotes (text inside the marks, as PDNC annotates them):
    ``"Yes," said he, "I will."`` is one quote with two spans."""

    id: str
    spans: list[Span]
    speaker_id: str | None = None
    addressee_ids: list[str] = field(default_factory=list)
    type: QuoteType | None = None
    confidence: float = 0.0
    method: str | None = None  # which rule / model produced the attribution
    flags: list[str] = field(default_factory=list)  # e.g. "unclosed" for a quote closed at paragraph end
    mention: Span | None = None  # the speaker mention the attribution used, if any

    @property
    def start(self) -> int:
        return self.spans[0].start

    @property
    def end(self) -> int:
        return self.spans[-1].end


@dataclass(slots=True)
class Annotation:
    """What one annotation component (`fabula.annotation`) did to a book: its settings, its return value,
    when it ran (a sequence number, so a component that ran before what it requires is stale) and how long."""

    component: str
    settings: dict[str, Any]
    result: Any
    sequence: int
    seconds: float = 0.0


@dataclass(slots=True)
class Book:
    """A novel: the untouched text plus span layers. Components add characters, mentions, quotes."""

    text: str
    meta: BookMeta
    body: Span  # the text without front/back matter (e.g. Project Gutenberg header and licence)
    chapters: list[Chapter]
    paragraphs: SpanLayer
    sentences: SpanLayer
    tokens: SpanLayer
    characters: list[Character] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    quotes: list[Quote] = field(default_factory=list)
    #: discovered entries left out of the cast: named, never once shown as a person (a place, a book; ids
    #: ``S1``, ``S2``, … by name mentions; no mentions of theirs in ``mentions``). Kept to be inspected
    #: (`fabula characters`, book.json); no command reads them as characters
    set_aside: list[Character] = field(default_factory=list)
    until: int | None = None  # set when the book is limited to a reading position
    partial: bool = False  # set when ``until`` is before the end of the body: some of the story is hidden
    #: component name -> what it did (`fabula.annotation.annotate` keeps this; not saved with the book)
    annotations: dict[str, Annotation] = field(default_factory=dict, repr=False, compare=False)
    #: the whole book's local layers when this book was cut through a `PrefixLayers` (not saved, not pickled)
    prefix_layers: PrefixLayers | None = field(default=None, repr=False, compare=False)

    # --- text access -------------------------------------------------------------------------
    def span_text(
        self, span: Span | tuple[int, int], *, normalize: bool = False, keep_emphasis: bool = False
    ) -> str:
        """The text of a span. ``normalize`` gives it as people should read it: hard-wrapped lines joined,
        white space collapsed, and Gutenberg's ``_emphasis_`` underscores dropped (``keep_emphasis`` keeps
        them, for outputs that render emphasis, like the HTML report). Offsets always refer to the
        untouched ``text``."""
        start, end = (span.start, span.end) if isinstance(span, Span) else span
        text = self.text[start:end]
        return normalize_text(text, keep_emphasis=keep_emphasis) if normalize else text

    @property
    def body_text(self) -> str:
        return self.text[self.body.start : self.body.end]

    @property
    def word_count(self) -> int:
        """Number of word tokens (tokens containing a letter or digit).

        Punctuation tokens are single characters, so checking a token's first and last character is
        enough (and ~10x faster than scanning every character of every token); the characters are
        tested once per distinct character (`text_kinds`), the tokens as arrays.
        """
        if not len(self.tokens):
            return 0
        kinds = text_kinds(self.text)
        return int(np.count_nonzero((kinds[self.tokens.starts] | kinds[self.tokens.ends - 1]) & ALNUM))

    @property
    def content_hash(self) -> str:
        """SHA-256 of the text: keys caches and indexes built from this book."""
        return hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()

    # --- lookups ------------------------------------------------------------------------------
    def chapter_at(self, offset: int) -> Chapter | None:
        """The chapter containing ``offset`` (None in front/back matter)."""
        lo, hi = 0, len(self.chapters)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.chapters[mid].end <= offset:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(self.chapters) and self.chapters[lo].start <= offset < self.chapters[lo].end:
            return self.chapters[lo]
        return None

    def character(self, character_id: str) -> Character | None:
        for character in self.characters:
            if character.id == character_id:
                return character
        return None

    # --- reading position ---------------------------------------------------------------------
    def truncated(self, until: int) -> Book:
        """This book as a reader at offset ``until`` knows it: nothing after ``until`` survives.

        The text itself is cut at ``until`` so no later character can leak into any output; offsets
        stay valid because the text is only shortened at the end.
        """
        partial = self.partial or until < self.body.end
        until = max(self.body.start, min(until, self.body.end))
        chapters = [
            Chapter(c.id, c.start, min(c.end, until), c.title, c.heading, c.synthetic, c.part)
            for c in self.chapters
            if c.start < until
        ]
        return Book(
            text=self.text[:until],
            meta=self.meta,
            body=Span(self.body.start, until),
            chapters=chapters,
            paragraphs=_clip_layer(self.paragraphs, until),
            sentences=_clip_layer(self.sentences, until),
            tokens=self.tokens.until(until),
            characters=[],  # recomputed from the visible text by whoever needs them
            mentions=[m for m in self.mentions if m.end <= until],
            quotes=[q for q in self.quotes if q.end <= until],
            until=until,
            partial=partial,
            prefix_layers=self.prefix_layers,  # a cut of a cut is a cut of the same whole book
        )


def _clip_layer(layer: SpanLayer, until: int) -> SpanLayer:
    """Keep spans that start before ``until``; cut the one that straddles it."""
    hi = int((layer.starts < until).sum())
    starts = layer.starts[:hi].copy()
    ends = layer.ends[:hi].copy()
    if hi:
        ends[-1] = min(int(ends[-1]), until)
    return SpanLayer(starts, ends)
