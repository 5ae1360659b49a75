"""BookWorm's zero-shot protocol (Papoudakis et al., 2024, §4.2 and Appendix B; the authors' released code,
``src/models/eval.py``, ``src/utils/misc.py`` and ``config/eval.yaml``), for ``fabula describe --llm
--protocol bookworm`` and ``fabula eval describe --protocol bookworm``.

- Prompts: the released files word for word (``prompts/describe/bookworm_*.toml``): "Describe character:
  {character} given the following context.\\n\\nContext: {context}", its merge prompt, and the analysis
  pair; no system message.
- Settings: sampling at temperature 0.4 (the paper, the config's ``do_sample: True``), at most 110 new
  tokens for a description (``max_new_tokens: 110``); an input of 8,192 tokens whose context is cut at
  7,600 (``max_input_length``, ``truncate_length``): whole paragraphs while the next still fits, as the
  released ``truncate_text``.
- Contexts: ``lead`` — the book truncated; ``bm25`` — the 80 paragraphs scoring highest by BM25 for the
  character's name (§4.2), in book order, truncated; ``coref`` — the paragraphs in which fabula's
  mention layer finds the character (names, aliases, titles, resolved pronouns: fabula's stand-in for
  BookNLP's coreference), in book order, truncated; ``hierarchical`` — the whole book in segments of at
  most 7,600 tokens (released ``segment_text``), one description per segment and one merge call over
  them joined by blank lines (one step, as the paper reports).

Not in the release (fabula's choices, stated in docs/reproduce.md): 800 new tokens for an analysis (the
release configures descriptions only), and BM25's 80 paragraphs put back in book order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from fabula.book import Book
from fabula.errors import ConfigError

if TYPE_CHECKING:
    from fabula.llm import LLM

BOOKWORM_CONTEXTS = ("lead", "bm25", "coref", "hierarchical")
MAX_INPUT_TOKENS = 8192
TRUNCATE_TOKENS = 7600
TEMPERATURE = 0.4
MAX_NEW_TOKENS = {"description": 110, "analysis": 800}
BM25_PARAGRAPHS = 80
PROMPTS = {
    "description": ("describe/bookworm_description", "describe/bookworm_description_merge"),
    "analysis": ("describe/bookworm_analysis", "describe/bookworm_analysis_merge"),
}
BOOKWORM_SETTINGS = {  # what a report records of the protocol
    "prompts": {kind: list(names) for kind, names in PROMPTS.items()},
    "temperature": TEMPERATURE,
    "max_new_tokens": dict(MAX_NEW_TOKENS),
    "max_input_tokens": MAX_INPUT_TOKENS,
    "truncate_tokens": TRUNCATE_TOKENS,
    "bm25_paragraphs": BM25_PARAGRAPHS,
}

Counter = Callable[[str], int]


@dataclass(slots=True)
class BookwormOutput:
    """One character's output under the protocol: the text, the segment outputs of ``hierarchical``,
    the prompt ids and the number of calls made."""

    name: str
    kind: str
    context: str
    text: str
    segment_outputs: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    calls: int = 0
    context_tokens: int = 0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def truncate_paragraphs(paragraphs: Sequence[str], count: Counter, limit: int = TRUNCATE_TOKENS) -> str:
    """Whole paragraphs from the first while the running token count stays within ``limit`` (released
    ``truncate_text``: it stops at the first paragraph that would pass it), joined by blank lines."""
    kept: list[str] = []
    used = 0
    for paragraph in paragraphs:
        size = count(paragraph)
        if used + size > limit:
            break
        kept.append(paragraph)
        used += size
    return "\n\n".join(kept)


def segment_paragraphs(paragraphs: Sequence[str], count: Counter, limit: int = TRUNCATE_TOKENS) -> list[str]:
    """The paragraphs in consecutive segments of at most ``limit`` tokens (released ``segment_text``: a
    paragraph longer than the limit is a segment of its own)."""
    segments: list[str] = []
    current: list[str] = []
    used = 0
    for paragraph in paragraphs:
        size = count(paragraph)
        if used + size > limit and current:
            segments.append("\n\n".join(current))
            current, used = [], 0
        current.append(paragraph)
        used += size
    if current:
        segments.append("\n\n".join(current))
    return segments


def token_counter(llm: LLM) -> Counter:
    """The token counter the protocol truncates by (the one place to switch when the backends offer the
    server's own tokenizer)."""
    return llm.count_tokens


def context_paragraphs(book: Book, character: str, context: str) -> list[str]:
    """The paragraphs a context strategy feeds the model, in order (before truncation)."""
    from fabula.retrieval import MentionRetriever, create_retriever, make_units

    until = book.until if book.until is not None else len(book.text)
    units = [u for u in make_units(book, "paragraph") if u.end <= until]
    if context in ("lead", "hierarchical"):
        return [u.text for u in units]
    if context == "bm25":
        retriever = create_retriever("bm25", book)
        retriever.index(units)
        hits = retriever.search(character, k=BM25_PARAGRAPHS)
        return [h.unit.text for h in sorted(hits, key=lambda h: h.unit.start)]
    if context == "coref":
        mentions = MentionRetriever(book)
        mentions.index(units)
        hits = mentions.search(character, k=len(units))
        if not hits:
            raise ConfigError(f"no character called {character!r} in the book", "--protocol bookworm")
        return [h.unit.text for h in sorted(hits, key=lambda h: h.unit.start)]
    raise ConfigError(f"unknown BookWorm context {context!r} (choose from {', '.join(BOOKWORM_CONTEXTS)})")


def bookworm_describe(
    book: Book, characters: Sequence[str], llm: LLM, *, kind: str = "description", context: str = "coref"
) -> list[BookwormOutput]:
    """Each named character described (or analysed) under BookWorm's protocol; failed calls come back
    with ``error`` set. ``book`` is the reader's view: nothing after its ``until`` reaches a prompt."""
    from fabula.llm import GenerateOptions
    from fabula.prompts import load_prompt

    if kind not in PROMPTS:
        raise ConfigError(f"unknown kind {kind!r} (choose from {', '.join(PROMPTS)})", "--kind")
    if context not in BOOKWORM_CONTEXTS:
        raise ConfigError(
            f"unknown BookWorm context {context!r} (choose from {', '.join(BOOKWORM_CONTEXTS)})"
        )
    count = token_counter(llm)
    ask, merge = (load_prompt(name) for name in PROMPTS[kind])
    options = GenerateOptions(max_tokens=MAX_NEW_TOKENS[kind], temperature=TEMPERATURE)
    outputs: list[BookwormOutput] = []
    whole_book: list[str] | None = None
    for name in characters:
        if context == "hierarchical":
            whole_book = whole_book if whole_book is not None else context_paragraphs(book, name, context)
            segments = segment_paragraphs(whole_book, count)
            parts = llm.generate_many([ask.messages(character=name, context=s) for s in segments], options)
            texts = [g.text.strip() for g in parts]
            final = llm.generate(merge.messages(character=name, descriptions="\n\n".join(texts)), options)
            error = next((g.error for g in [*parts, final] if g.error), None)
            outputs.append(
                BookwormOutput(
                    name,
                    kind,
                    context,
                    final.text.strip(),
                    texts,
                    [ask.id, merge.id],
                    len(segments) + 1,
                    sum(count(s) for s in segments),
                    error,
                )
            )
            continue
        text = truncate_paragraphs(context_paragraphs(book, name, context), count)
        generation = llm.generate(ask.messages(character=name, context=text), options)
        outputs.append(
            BookwormOutput(
                name, kind, context, generation.text.strip(), [], [ask.id], 1, count(text), generation.error
            )
        )
    return outputs
