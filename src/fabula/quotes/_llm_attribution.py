"""fabula's own LLM quotation attribution over chapter windows (method ``llm-windows``), after Michel,
Epure and Hennequin 2024 (seed paper 003). The paper's exact protocol is method ``llm``
(`fabula.quotes._michel`); this one keeps fabula's prompt, JSON-schema answers and paragraph-cut windows.

Each chapter is one prompt when it fits in ``window_tokens`` model tokens; a longer chapter is cut at
paragraph (or sentence) boundaries into windows of at most ``window_tokens`` that overlap by about
``stride_tokens`` (the overlap, as ``stride`` means for Hugging Face tokenizers). In each window every
quotation gets a numeric id written just before its opening mark (``[12]"Well," said...``), ids being
stable within a chapter; the cast is given as ``Canonical=alias=alias`` lines; the model answers a JSON
object ``{id: speaker}``. Answers are mapped to characters with `fabula.characters.resolve_name`; an
answer that maps to no character counts as wrong (as in the paper) and is reported.

Two strategies, as in the paper:
- ``first``: windows are independent (all asked concurrently); a quote's first answer that maps to a
  character wins.
- ``incremental``: the windows of a chapter are asked in order; a window is shown the current answers
  for the quotes it shares with the previous window and may revise them (the last answer wins).

With ``json_schema`` (the default) the answer is constrained where the backend can (llama.cpp grammar,
OpenAI structured outputs, vLLM / llama.cpp server): an object whose keys are exactly the window's ids
and whose values are canonical names of the cast. That forces one answer per quote, which small models
otherwise skip; the prompt still asks for the same object, so unconstrained backends behave as before.

Unparseable answers are asked once more with a reminder (`fabula.llm.ask_json_many`), then their quotes
count as wrong.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import RootModel

from fabula.book import Book, Character, Quote, SpanLayer
from fabula.characters import resolve_name
from fabula.errors import BackendError, ConfigError
from fabula.llm import LLM, GenerateOptions, UsageSummary, ask_json_many, require_usable_answers
from fabula.prompts import PromptTemplate, load_prompt
from fabula.quotes._registry import AttributionResult, attribute_quotes, attribution_method

Strategy = Literal["first", "incremental"]
STRATEGIES: tuple[str, ...] = ("first", "incremental")
DEFAULT_WINDOW_TOKENS = 4096
DEFAULT_STRIDE_TOKENS = 1024
METHOD_NAME = "llm-windows"

_OPENING_MARKS = "\"“‘'«„`"
_ID_IN_KEY = re.compile(r"\d+")
_NO_SPEAKER = frozenset({"", "unknown", "none", "null", "n/a", "narrator", "nobody", "?", "unknown speaker"})
_MARKER_TOKENS = 4  # "[12]" costs about this many tokens


class SpeakerAnswer(RootModel[dict[str, Any]]):
    """The expected answer: a JSON object from quote id to speaker name."""


@dataclass(slots=True)
class Window:
    """One prompt's passage: a chapter slice and the (chapter-local) ids of the quotes marked in it."""

    chapter: int  # index into the chapter list used
    start: int
    end: int
    quote_ids: list[int]  # chapter-local ids, 1-based


@dataclass(slots=True)
class LlmAttributionReport:
    """What happened, for results files: settings, prompt version, failures and unmapped answers."""

    spec: str
    strategy: str
    prompt: str  # name@version
    window_tokens: int
    stride_tokens: int
    token_counter: str
    windows: int = 0
    chapters_split: int = 0  # chapters longer than one window
    quotes: int = 0
    answered: int = 0  # quotes with an answer that maps to a character
    unmapped: int = 0  # quotes whose answer maps to no character (counted wrong)
    missing: int = 0  # quotes no window answered for (counted wrong)
    failed_windows: int = 0  # windows whose answer stayed unparseable after the retry
    retried_windows: int = 0
    revised: int = 0  # incremental: answers changed by a later window
    unmapped_names: Counter[str] = field(default_factory=Counter)
    usage: UsageSummary | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "strategy": self.strategy,
            "prompt": self.prompt,
            "window_tokens": self.window_tokens,
            "stride_tokens": self.stride_tokens,
            "token_counter": self.token_counter,
            "windows": self.windows,
            "chapters_split": self.chapters_split,
            "quotes": self.quotes,
            "answered": self.answered,
            "unmapped": self.unmapped,
            "missing": self.missing,
            "failed_windows": self.failed_windows,
            "retried_windows": self.retried_windows,
            "revised": self.revised,
            "unmapped_names": dict(self.unmapped_names.most_common(50)),
            "usage": self.usage.model_dump() if self.usage else None,
        }


@dataclass(slots=True)
class _Answer:
    name: str
    character_id: str | None


def attribute_quotes_with_llm(
    book: Book,
    llm: LLM,
    *,
    quotes: list[Quote] | None = None,
    characters: list[Character] | None = None,
    strategy: Strategy | str = "first",
    window_tokens: int = DEFAULT_WINDOW_TOKENS,
    stride_tokens: int = DEFAULT_STRIDE_TOKENS,
    max_answer_tokens: int | None = None,
    json_mode: bool = True,
    json_schema: bool = True,
    progress: str | None = None,
) -> LlmAttributionReport:
    """Set ``speaker_id`` of each quote (``book.quotes`` by default) from an LLM's answers.

    ``characters`` defaults to ``book.characters`` (a gold list, or fabula's predicted cast). Quotes the
    model leaves unanswered or answers with an unknown name get ``speaker_id=None`` and a flag.
    """
    if strategy not in STRATEGIES:
        raise ConfigError(
            f"unknown LLM attribution strategy {strategy!r}; use one of {', '.join(STRATEGIES)}"
        )
    if window_tokens < 64 or not 0 <= stride_tokens < window_tokens:
        raise ConfigError("need window_tokens >= 64 and 0 <= stride_tokens < window_tokens")
    model = _model_for(llm)
    # JSON mode lets servers and llama.cpp constrain the answer to a JSON object (small models ramble)
    quotes = book.quotes if quotes is None else quotes
    cast = book.characters if characters is None else characters
    if not cast:
        raise ConfigError(
            "LLM attribution needs a character list (find characters first, or give a gold list)"
        )
    template = _template(strategy)
    report = LlmAttributionReport(
        spec=model.spec,
        strategy=strategy,
        prompt=template.id,
        window_tokens=window_tokens,
        stride_tokens=stride_tokens,
        token_counter=model.token_counter_name,
        quotes=len(quotes),
    )
    chapters = _chapter_spans(book)
    by_chapter = _quotes_by_chapter(quotes, chapters)
    windows_per_chapter: list[list[Window]] = []
    for index, (start, end) in enumerate(chapters):
        chapter_quotes = by_chapter[index]
        if not chapter_quotes:
            windows_per_chapter.append([])
            continue
        windows = _windows(book, model, index, start, end, chapter_quotes, window_tokens, stride_tokens)
        report.chapters_split += len(windows) > 1
        windows_per_chapter.append(windows)
    report.windows = sum(len(w) for w in windows_per_chapter)

    cast_lines = "\n".join(_alias_line(c) for c in cast)
    context = _PromptContext(
        book,
        template,
        cast,
        cast_lines,
        by_chapter,
        max_answer_tokens,
        json_mode,
        json_schema,
        max(model.count_tokens(c.name) for c in cast),
    )
    answers: dict[tuple[int, int], _Answer] = {}  # (chapter, local id) -> answer
    if strategy == "first":
        jobs = [w for ws in windows_per_chapter for w in ws]
        for window, result in zip(jobs, _ask(model, context, jobs, {}, report, progress), strict=True):
            for local_id, answer in result.items():
                key = (window.chapter, local_id)
                previous = answers.get(key)
                if previous is None or (previous.character_id is None and answer.character_id is not None):
                    answers[key] = answer
    else:
        rounds = max((len(ws) for ws in windows_per_chapter), default=0)
        for round_index in range(rounds):
            jobs = [ws[round_index] for ws in windows_per_chapter if len(ws) > round_index]
            results = _ask(
                model, context, jobs, answers, report, progress and f"{progress} ({round_index + 1})"
            )
            for window, result in zip(jobs, results, strict=True):
                for local_id, answer in result.items():
                    key = (window.chapter, local_id)
                    previous = answers.get(key)
                    if previous is not None and previous.character_id != answer.character_id:
                        report.revised += 1
                    answers[key] = answer

    if not answers and any(by_chapter):
        # every window answered, and not one answer named a speaker for any of its quotations ("{}" each
        # time): that is no attribution, not a book where nobody speaks; stop before any quote changes
        raise BackendError(
            f"the model named no speaker for any quotation in any of the {report.windows} windows (e.g. an "
            "empty {} each time); nothing was attributed",
            model.spec,
        )
    for index, chapter_quotes in enumerate(by_chapter):
        for local_id, quote in enumerate(chapter_quotes, start=1):
            final = answers.get((index, local_id))
            quote.method = METHOD_NAME
            quote.mention = None
            quote.flags = [f for f in quote.flags if not f.startswith("llm-")]
            if final is None:
                quote.speaker_id, quote.confidence = None, 0.0
                quote.flags.append("llm-missing")
                report.missing += 1
            elif final.character_id is None:
                quote.speaker_id, quote.confidence = None, 0.0
                quote.flags.append("llm-unmapped")
                report.unmapped += 1
                report.unmapped_names[final.name] += 1
            else:
                quote.speaker_id, quote.confidence = final.character_id, 1.0
                report.answered += 1
    report.usage = model.usage
    return report


def _template(strategy: str) -> PromptTemplate:
    return load_prompt(f"quote_attribution/{'incremental' if strategy == 'incremental' else 'chunk'}")


def llm_prompt_id(strategy: str = "first") -> str:
    """``name@version`` of the prompt the LLM method uses with ``strategy`` (recorded in report settings)."""
    return _template(strategy).id


# --- windows -------------------------------------------------------------------------------------


def _chapter_spans(book: Book) -> list[tuple[int, int]]:
    spans = [(c.start, c.end) for c in book.chapters if c.end > c.start]
    return spans or [(book.body.start, book.body.end)]


def _quotes_by_chapter(quotes: list[Quote], chapters: list[tuple[int, int]]) -> list[list[Quote]]:
    grouped: list[list[Quote]] = [[] for _ in chapters]
    starts = [s for s, _ in chapters]

    for quote in sorted(quotes, key=lambda q: q.start):
        index = max(0, bisect.bisect_right(starts, quote.start) - 1)
        grouped[index].append(quote)
    return grouped


def _units(book: Book, start: int, end: int) -> list[tuple[int, int]]:
    """Paragraph spans covering [start, end) (gaps included), the cut points windows may use."""
    paragraphs = [
        (max(s, start), min(e, end))
        for s, e in _slice(book.paragraphs, book.paragraphs.overlapping(start, end))
    ]
    if not paragraphs:
        return [(start, end)]
    units: list[tuple[int, int]] = []
    cursor = start
    for _start, e in paragraphs:
        units.append((cursor, e))  # each unit runs from the end of the previous one
        cursor = e
    if cursor < end:
        units.append((cursor, end))
    return [u for u in units if u[1] > u[0]]


def _slice(layer: SpanLayer, indices: range) -> list[tuple[int, int]]:
    return layer[indices.start : indices.stop].pairs()


def _split_long_unit(book: Book, start: int, end: int) -> list[tuple[int, int]]:
    sentences = [
        (max(s, start), min(e, end))
        for s, e in _slice(book.sentences, book.sentences.overlapping(start, end))
    ]
    if len(sentences) <= 1:
        return [(start, end)]
    cuts = [start] + [s for s, _ in sentences[1:]] + [end]
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


def _windows(
    book: Book,
    model: LLM,
    chapter: int,
    start: int,
    end: int,
    chapter_quotes: list[Quote],
    window_tokens: int,
    stride_tokens: int,
) -> list[Window]:
    quote_starts = [q.start for q in chapter_quotes]

    def quote_ids_in(a: int, b: int) -> list[int]:
        return [i + 1 for i, s in enumerate(quote_starts) if a <= s < b]

    def cost(a: int, b: int) -> int:
        return model.count_tokens(book.text[a:b]) + _MARKER_TOKENS * len(quote_ids_in(a, b))

    if cost(start, end) <= window_tokens:
        return [Window(chapter, start, end, quote_ids_in(start, end))]
    units: list[tuple[int, int, int]] = []
    for a, b in _units(book, start, end):
        pieces = [(a, b)] if cost(a, b) <= window_tokens else _split_long_unit(book, a, b)
        units.extend((x, y, cost(x, y)) for x, y in pieces)
    windows: list[Window] = []
    first = 0
    while first < len(units):
        last, total = first, units[first][2]
        while last + 1 < len(units) and total + units[last + 1][2] <= window_tokens:
            last += 1
            total += units[last][2]
        a, b = units[first][0], units[last][1]
        windows.append(Window(chapter, a, b, quote_ids_in(a, b)))
        if last + 1 >= len(units):
            break
        # next window starts so that it shares about stride_tokens with this one
        next_first, overlap = last + 1, 0
        while next_first - 1 > first and overlap + units[next_first - 1][2] <= stride_tokens:
            next_first -= 1
            overlap += units[next_first][2]
        first = next_first
    return [w for w in windows if w.quote_ids]


# --- prompting -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _PromptContext:
    book: Book
    template: PromptTemplate
    cast: list[Character]
    cast_lines: str
    by_chapter: list[list[Quote]]
    max_answer_tokens: int | None
    json_mode: bool
    json_schema: bool
    longest_name_tokens: int


def _alias_line(character: Character) -> str:
    others = sorted(
        (a for a in character.aliases if a != character.name), key=lambda a: -character.aliases[a]
    )
    names = [character.name, *others]
    return "=".join(n.replace("=", " ").replace("\n", " ") for n in names)


def _marked_passage(book: Book, window: Window, chapter_quotes: list[Quote]) -> str:
    inserts: list[tuple[int, str]] = []
    for local_id in window.quote_ids:
        quote = chapter_quotes[local_id - 1]
        at = quote.start
        if at > window.start and book.text[at - 1] in _OPENING_MARKS:
            at -= 1
        inserts.append((at, f"[{local_id}]"))
    pieces: list[str] = []
    cursor = window.start
    for at, marker in sorted(inserts):
        pieces.append(book.text[cursor:at])
        pieces.append(marker)
        cursor = at
    pieces.append(book.text[cursor : window.end])
    return "".join(pieces).strip("\n")


def _ask(
    model: LLM,
    context: _PromptContext,
    windows: list[Window],
    answers: dict[tuple[int, int], _Answer],
    report: LlmAttributionReport,
    progress: str | None,
) -> list[dict[int, _Answer]]:
    title = context.book.meta.title
    prompts = []
    for window in windows:
        chapter_quotes = context.by_chapter[window.chapter]
        variables: dict[str, object] = {
            "title_clause": f' "{title}"' if title else "",
            "characters": context.cast_lines,
            "passage": _marked_passage(context.book, window, chapter_quotes),
            "quote_ids": ", ".join(str(i) for i in window.quote_ids),
        }
        if "previous" in context.template.placeholders:
            shown = {
                str(i): answers[(window.chapter, i)].name
                for i in window.quote_ids
                if (window.chapter, i) in answers
            }
            variables["previous"] = _json_object(shown) if shown else "(none)"
        prompts.append(context.template.messages(**variables))
    # a '"12": "Canonical Name", ' entry costs the name plus about 8 tokens
    per_entry = context.longest_name_tokens + 8
    names = sorted({c.name for c in context.cast})
    generate_options = [
        GenerateOptions(
            max_tokens=context.max_answer_tokens or per_entry * len(window.quote_ids) + 32,
            temperature=0.0,
            json_mode=context.json_mode,
            json_schema=_answer_schema(window.quote_ids, names) if context.json_schema else None,
        )
        for window in windows
    ]

    def names_a_quote(index: int, value: Any) -> bool:
        """An answer that names none of its window's quotations ("{}") attributes nothing: not cached."""
        allowed = set(windows[index].quote_ids)
        keys = value.root if isinstance(value, SpeakerAnswer) else {}
        return any((m := _ID_IN_KEY.search(str(k))) is not None and int(m.group()) in allowed for k in keys)

    results = ask_json_many(
        model, prompts, SpeakerAnswer, generate_options, progress=progress, cacheable=names_a_quote
    )
    require_usable_answers(model, results, "windows' answers")  # a run with no usable answer is no result
    mapped: list[dict[int, _Answer]] = []
    cast = context.cast
    for window, result in zip(windows, results, strict=True):
        report.retried_windows += result.attempts > 1
        if not result.ok:
            report.failed_windows += 1
            mapped.append({})
            continue
        assert isinstance(result.value, SpeakerAnswer)
        allowed = set(window.quote_ids)
        window_answers: dict[int, _Answer] = {}
        for key, value in result.value.root.items():
            match = _ID_IN_KEY.search(str(key))
            if match is None or int(match.group()) not in allowed:
                continue
            name = _answer_name(value)
            character = None if name.lower() in _NO_SPEAKER else resolve_name(cast, name)
            window_answers[int(match.group())] = _Answer(name, character.id if character else None)
        mapped.append(window_answers)
    return mapped


def _answer_schema(quote_ids: list[int], names: list[str]) -> dict[str, Any]:
    """JSON Schema of one window's answer: exactly its ids as keys, each a canonical cast name."""
    speaker = {"type": "string", "enum": names}
    return {
        "type": "object",
        "properties": {str(i): speaker for i in quote_ids},
        "required": [str(i) for i in quote_ids],
        "additionalProperties": False,
    }


def _answer_name(value: Any) -> str:
    """The speaker name in one answer value (a string, or {"speaker": ...} some models produce)."""
    if isinstance(value, dict):
        value = value.get("speaker") or value.get("name") or ""
    if isinstance(value, list) and value:
        value = value[0]
    return " ".join(str(value if value is not None else "").split())


def _json_object(mapping: dict[str, str]) -> str:
    return json.dumps(mapping, ensure_ascii=False)


# --- registration with fabula.quotes.attribute_quotes ----------------------------------------------


def attribute_with_llm(
    book: Book,
    *,
    llm: LLM | None = None,
    strategy: Strategy | str = "first",
    window_tokens: int = DEFAULT_WINDOW_TOKENS,
    stride_tokens: int = DEFAULT_STRIDE_TOKENS,
    progress: str | None = "LLM attribution",
    **_other: Any,
) -> AttributionResult:
    """``attribute_quotes(book, method="llm-windows", llm=MODEL)``: every quote of ``book`` attributed by the LLM.

    The result's ``report`` is the run's `LlmAttributionReport` as a dict (failures, unmapped names,
    prompt version, usage).
    """
    report = attribute_quotes_with_llm(
        book,
        _model_for(llm, "llm-windows"),
        strategy=strategy,
        window_tokens=window_tokens,
        stride_tokens=stride_tokens,
        progress=progress,
    )
    return AttributionResult(book.quotes, report.to_dict())


def attribute_hybrid(
    book: Book,
    *,
    llm: LLM | None = None,
    rules_method: str = "rules",
    strategy: Strategy | str = "first",
    window_tokens: int = DEFAULT_WINDOW_TOKENS,
    stride_tokens: int = DEFAULT_STRIDE_TOKENS,
    progress: str | None = "LLM attribution",
    **options: Any,
) -> AttributionResult:
    """Rules for explicit quotes (a speech verb next to a name), the LLM for all others."""
    model = _model_for(llm, "hybrid")  # checked before any work is done
    attribute_quotes(book, method=rules_method, **options)
    rest = [q for q in book.quotes if not (q.type == "explicit" and q.speaker_id is not None)]
    report = attribute_quotes_with_llm(
        book,
        model,
        quotes=rest,
        strategy=strategy,
        window_tokens=window_tokens,
        stride_tokens=stride_tokens,
        progress=progress,
    )
    return AttributionResult(book.quotes, {**report.to_dict(), "rules_method": rules_method})


def _model_for(llm: object, method: str = "llm") -> LLM:
    """The model an LLM method was given: an `LLM` object (only the command line parses spec strings)."""
    if llm is None:
        raise ConfigError(
            f"the {method} attribution method needs a model: give --llm SPEC "
            "(e.g. --llm openai:MODEL@http://127.0.0.1:8080/v1, or llamacpp:/path/model.gguf)",
            "--llm",
        )
    if not isinstance(llm, LLM):
        raise ConfigError(
            f"the {method} attribution method takes an LLM object, not {type(llm).__name__} "
            "(open one with fabula.llm.get_llm(SPEC))"
        )
    return llm


attribution_method("llm-windows")(attribute_with_llm)
attribution_method("hybrid")(attribute_hybrid)
