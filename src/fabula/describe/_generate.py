"""LLM descriptions and analyses of characters over a chosen context (BookWorm's strategies).

Contexts (all from `fabula.retrieval`, all limited to ``budget`` tokens of the LLM's tokenizer):

- ``lead``: the first tokens of the book;
- ``bm25``: the best BM25 paragraphs for the character's names as the query, in book order;
- ``mentions``: paragraphs that mention the character ranked by the weight of its mentions there
  (full names first, then partial names and titles, then resolved pronouns: `MentionRetriever`), in
  book order — the paper's "coreference" retrieval;
- ``hierarchical``: map-reduce notes on the whole book about the character, then the final prompt;
- ``none``: title, author and name only (what the model already knows).

``joint=True`` describes up to five characters per call and answers JSON ``{name: text}``; a batch whose
answer misses a name or cannot be parsed is redone one character at a time. ``cite=True`` numbers the
passages and asks for their ids after each sentence; ids are parsed strictly (unknown ids dropped).
The book given is the reader's view (`Book.truncated`), so nothing after ``--until`` reaches a prompt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from fabula.book import Book, Character
from fabula.errors import ConfigError

if TYPE_CHECKING:
    from fabula.llm import LLM, Generation

CONTEXTS = ("lead", "bm25", "mentions", "hierarchical", "none")
KINDS = ("description", "analysis")
DEFAULT_BUDGET = 4000
JOINT_BATCH = 5
TASKS = {
    "description": (
        "Write a short factual description of the character (about 90 words): who they are, their "
        "role in the story, their relationships to other characters and what happens to them."
    ),
    "analysis": (
        "Write an in-depth analysis of the character (about 600 words): their development over the "
        "story, their motives, personality, relationships and social context."
    ),
}
MAX_TOKENS = {"description": 256, "analysis": 1024}
CITE = " After each sentence, give in square brackets the ids of the passages it rests on, like [P2][P7]."
_CITATION = re.compile(r"\[P(\d+)\]")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([.,;:!?])")
_LEADING_CITATIONS = re.compile(r"^(?:\s*\[P\d+\])+\s*")


@dataclass(slots=True)
class Passage:
    """A passage given to the model: its id in the prompt (P1, P2, ...) and where it is in the book."""

    id: int
    start: int
    end: int
    text: str


@dataclass(slots=True)
class CitedSentence:
    text: str
    passages: list[int]  # ids of the `Passage`s the sentence cites


@dataclass(slots=True)
class GeneratedDescription:
    """One character's generated text, the context it came from, and what the call cost."""

    character_id: str
    name: str
    kind: str
    context: str
    text: str
    passages: list[Passage] = field(default_factory=list)
    sentences: list[CitedSentence] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)  # prompt ids (name@version) used
    joint: bool = False  # came from a joint (batched) call
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached: bool = False
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def describe_characters(
    book: Book,
    characters: Sequence[Character],
    llm: LLM,
    *,
    kind: str = "description",
    context: str = "mentions",
    budget: int = DEFAULT_BUDGET,
    joint: bool = False,
    cast: Sequence[Character] | None = None,
    cite: bool = False,
    progress: str | None = None,
) -> list[GeneratedDescription]:
    """A description (or analysis) of each character, in order. ``cast`` (``--with-cast``) names the other
    main characters in each prompt. Failed calls come back with ``error`` set, never raise."""
    if kind not in KINDS:
        raise ConfigError(f"unknown kind {kind!r} (choose from {', '.join(KINDS)})", "--kind")
    if context not in CONTEXTS:
        raise ConfigError(f"unknown context {context!r} (choose from {', '.join(CONTEXTS)})", "--context")
    if budget < 1:
        raise ConfigError(f"token budget must be at least 1, not {budget}", "--budget")
    builder = _ContextBuilder(book, llm, kind, context, budget)
    if joint and context != "none":
        results: list[GeneratedDescription] = []
        for start in range(0, len(characters), JOINT_BATCH):
            results.extend(
                _joint_batch(builder, list(characters[start : start + JOINT_BATCH]), cite, progress)
            )
        return results
    return _one_at_a_time(builder, list(characters), cast, cite, progress)


class _ContextBuilder:
    """The passages of one context strategy for one or several characters (indexes built once)."""

    def __init__(self, book: Book, llm: LLM, kind: str, context: str, budget: int) -> None:
        self.book, self.llm, self.kind, self.context, self.budget = book, llm, kind, context, budget
        self._retriever: Any = None

    def book_clause(self) -> str:
        meta = self.book.meta
        title = f" {meta.title}" if meta.title else ""
        author = f" by {meta.author}" if meta.author else ""
        return title + author

    def passages(self, characters: Sequence[Character]) -> tuple[list[Passage], list[str]]:
        """Numbered passages for these characters (budget shared between them) and prompt ids used."""
        from fabula.retrieval import (
            MentionRetriever,
            index_book,
            lead_context,
            make_units,
            retrieval_context,
        )

        until = self.book.until
        share = max(1, self.budget // max(1, len(characters)))
        units: dict[tuple[int, int], str] = {}
        prompts: list[str] = []
        if self.context == "lead":
            for unit in lead_context(self.book, self.budget, until=until, counter=self.llm).units:
                units[(unit.start, unit.end)] = unit.text
        elif self.context == "hierarchical":
            notes = self._hierarchical(characters)
            prompts.extend(notes.prompts)
            return [Passage(1, 0, 0, notes.text)] if notes.text else [], prompts
        else:
            if self._retriever is None:
                if self.context == "bm25":
                    self._retriever = index_book(self.book, "bm25", cache=False)
                else:
                    self._retriever = MentionRetriever(self.book)
                    self._retriever.index(make_units(self.book, "paragraph"))
            for character in characters:
                query = _query(character) if self.context == "bm25" else character.id
                chosen = retrieval_context(self._retriever, query, share, until=until, counter=self.llm)
                for unit in chosen.units:
                    units[(unit.start, unit.end)] = unit.text
        ordered = sorted(units.items())
        return [Passage(i, s, e, text) for i, ((s, e), text) in enumerate(ordered, start=1)], prompts

    def _hierarchical(self, characters: Sequence[Character]) -> Any:
        from fabula.retrieval import hierarchical_context

        names = ", ".join(c.name for c in characters)
        instruction = (
            f"Note everything the text says about {names}: who they are, what they do and say, what "
            "happens to them, their relationships and what others think of them."
        )
        return hierarchical_context(
            self.book,
            self.llm,
            instruction,
            chunk_tokens=self.budget,
            max_output_tokens=MAX_TOKENS[self.kind],
            until=self.book.until,
        )


def _query(character: Character) -> str:
    return " ".join(sorted(character.all_names(), key=lambda n: (-character.aliases.get(n, 0), n)))


def _passage_block(passages: Sequence[Passage], cite: bool) -> str:
    if not passages:
        return "(no passages)"
    if not cite:
        return "\n\n".join(p.text for p in passages)
    return "\n\n".join(f"[P{p.id}] {p.text}" for p in passages)


def _aliases_clause(character: Character) -> str:
    others = sorted(
        (a for a in character.aliases if a != character.name), key=lambda a: -character.aliases[a]
    )
    return f" (also called {', '.join(others[:5])})" if others else ""


def _one_at_a_time(
    builder: _ContextBuilder,
    characters: list[Character],
    cast: Sequence[Character] | None,
    cite: bool,
    progress: str | None,
) -> list[GeneratedDescription]:
    from fabula.llm import GenerateOptions
    from fabula.prompts import load_prompt

    kind = builder.kind
    template = load_prompt("describe/no_context" if builder.context == "none" else "describe/character")
    prompts = []
    contexts: list[tuple[list[Passage], list[str]]] = []
    for character in characters:
        passages: list[Passage] = []
        used: list[str] = []
        if builder.context == "none":
            prompts.append(
                template.messages(
                    task=TASKS[kind], name=character.name, book_clause=builder.book_clause(), kind=kind
                )
            )
        else:
            passages, used = builder.passages([character])
            others = [c.name for c in cast or [] if c.id != character.id]
            prompts.append(
                template.messages(
                    book_clause=builder.book_clause(),
                    passages=_passage_block(passages, cite),
                    cast=f"\nThe main characters of the novel are: {', '.join(others)}.\n" if others else "",
                    task=TASKS[kind],
                    name=character.name,
                    aliases=_aliases_clause(character),
                    cite=CITE if cite else "",
                    kind=kind,
                )
            )
        contexts.append((passages, [*used, template.id]))
    options = GenerateOptions(max_tokens=MAX_TOKENS[kind], temperature=0.0)
    generations = builder.llm.generate_many(prompts, options, progress=progress)
    return [
        _result(character, builder, generation, passages, used, cite)
        for character, generation, (passages, used) in zip(characters, generations, contexts, strict=True)
    ]


def _joint_batch(
    builder: _ContextBuilder, batch: list[Character], cite: bool, progress: str | None
) -> list[GeneratedDescription]:
    from fabula.llm import GenerateOptions, ParseError, parse_json_answer
    from fabula.prompts import load_prompt

    template = load_prompt("describe/joint")
    passages, used = builder.passages(batch)
    names = [c.name for c in batch]
    prompt = template.messages(
        book_clause=builder.book_clause(),
        passages=_passage_block(passages, cite),
        task=TASKS[builder.kind],
        names=", ".join(names),
        cite=CITE if cite else "",
        format=", ".join(f'"{name}": "..."' for name in names),
    )
    options = GenerateOptions(max_tokens=MAX_TOKENS[builder.kind] * len(batch), temperature=0.0)
    generation = builder.llm.generate(prompt, options)
    answers: dict[str, str] = {}
    if generation.ok:
        try:
            value = parse_json_answer(generation.text)
        except ParseError:
            value = None
        if isinstance(value, dict):
            answers = {
                str(k).strip(): v.strip() for k, v in value.items() if isinstance(v, str) and v.strip()
            }
    if not all(name in answers for name in names):  # the model broke the format: one at a time
        return _one_at_a_time(builder, batch, None, cite, progress)
    share = len(batch)
    results = []
    for character in batch:
        result = _result(character, builder, generation, passages, [*used, template.id], cite)
        result.text = answers[character.name]
        result.sentences = _cited_sentences(result.text, {p.id for p in passages}) if cite else []
        result.joint = True
        result.prompt_tokens //= share  # one call's cost shared by its characters
        result.completion_tokens //= share
        result.seconds /= share
        results.append(result)
    return results


def _result(
    character: Character,
    builder: _ContextBuilder,
    generation: Generation,
    passages: list[Passage],
    prompts: list[str],
    cite: bool,
) -> GeneratedDescription:
    text = generation.text.strip()
    return GeneratedDescription(
        character_id=character.id,
        name=character.name,
        kind=builder.kind,
        context=builder.context,
        text=text,
        passages=passages,
        sentences=_cited_sentences(text, {p.id for p in passages}) if cite else [],
        prompts=prompts,
        prompt_tokens=generation.prompt_tokens,
        completion_tokens=generation.completion_tokens,
        seconds=generation.seconds,
        cached=generation.cached,
        error=generation.error,
    )


def text_sentences(text: str, language: str = "en") -> list[str]:
    """The sentences of a generated text, by the splitter books use (`fabula.book.split_sentences`)."""
    from fabula.book import SpanLayer, split_sentences

    text = text.strip()
    if not text:
        return []
    return [text[s:e] for s, e in split_sentences(text, SpanLayer([0], [len(text)]), language).pairs()]


def _cited_sentences(text: str, known: set[int]) -> list[CitedSentence]:
    """Sentences with the passage ids they cite; citations that open a sentence belong to the one
    before it; ids not among the passages are dropped."""
    parts = text_sentences(text)
    sentences: list[tuple[str, list[int]]] = []
    for part in parts:
        leading = _LEADING_CITATIONS.match(part)
        if leading and sentences:
            sentences[-1][1].extend(int(x) for x in _CITATION.findall(leading.group()))
            part = part[leading.end() :]
        body = strip_citations(part)
        ids = [int(x) for x in _CITATION.findall(part)]
        if body:
            sentences.append((body, ids))
        elif sentences:
            sentences[-1][1].extend(ids)
    return [CitedSentence(body, list(dict.fromkeys(i for i in ids if i in known))) for body, ids in sentences]


def strip_citations(text: str) -> str:
    """The text without ``[P3]`` markers (what metrics score)."""
    return _SPACE_BEFORE_PUNCTUATION.sub(r"\1", " ".join(_CITATION.sub("", text).split()))
