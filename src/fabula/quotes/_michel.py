"""The quotation-attribution protocol of Michel, Epure, Hennequin and Cerisara (NAACL 2025), as the paper
and the authors' released code (``process_pdnc_chunks.py``, ``incremental_pred.py``) do it.

* Every quotation part (a sub-quotation: ``"Yes," said he, "I will."`` has two) gets a global id; the
  text is marked ``|id| "…" ||id||`` (``prefix_suffix_quote_id``: around the quotation marks when they
  are there).
* Each chapter's marked text is tokenized and cut into chunks of 4096 tokens whose starts are 3072 tokens
  apart (1024 tokens of overlap), as a Hugging Face tokenizer's ``return_overflowing_tokens`` with
  ``stride=1024`` does; a chapter that fits is one chunk. Tokens are the model's own where the backend has
  a tokenizer (`fabula.llm.LLM.token_spans`), else the documented approximation.
* In each chunk, markers of quotations cut by the chunk's edge are removed (``delete_inquote``), ids are
  renumbered from 1 in order of appearance (``restart_quote_seq``), markers become ``|n|"…"|n|``
  (``sub_pipes``) and single line breaks inside sentences are joined (``clean_context``).
* The prompt is the paper's (Figure 7, the normal prompt; Figure 8, the incremental one, used for a chunk
  that shares already-predicted quotations with an earlier chunk), one user turn, no system message;
  greedy decoding, at most 2000 new tokens. The names list is ``Canonical=alias=…`` lines built as the
  authors' ``get_enhanced_char_list``/``build_aliases_text`` do (honorific-stripped aliases added when
  they name one character only).
* The answer is free text: the first ``{…}`` is read as a dict literal, else lines ``id: name``
  (``parse_answer``); a name maps to a character only when it is exactly one of the list's names (the
  paper: "we do not use any lenient metrics such as substring matching"), or with ``lenient`` as the
  released ``alias2id`` does (exact, else the first name containing the answer, case-insensitively).
* Strategies: ``normal`` (the paper's strategy 1: a quotation's first prediction is kept) and
  ``incremental`` (strategy 2, the paper's default: later chunks see the earlier predictions of the
  quotations they share and their new answer replaces the old).
"""

from __future__ import annotations

import ast
import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from fabula.book import Book, Character, Quote
from fabula.errors import BackendError, ConfigError
from fabula.llm import LLM, GenerateOptions
from fabula.prompts import load_paper_prompt
from fabula.quotes._registry import AttributionResult, attribution_method

PAPER = "Michel, Epure, Hennequin and Cerisara, NAACL 2025"
METHOD_NAME = "llm"
CHUNK_TOKENS = 4096
STRIDE_TOKENS = 1024
MAX_NEW_TOKENS = 2000
STRATEGIES = ("incremental", "normal")
NAME_MATCHING = ("exact", "lenient")
Strategy = Literal["incremental", "normal"]

# get_enhanced_char_list's honorifics: a name starting with one also stands without it
PREFIXES = [
    "Mr.",
    "Mrs.",
    "Miss.",
    "Lady",
    "Sir",
    "Mrs",
    "Mr",
    "Miss",
    "Dr.",
    "Dr",
    "Madame",
    "Madam",
    "Mademoiselle",
    "St.",
    "St",
    "Ms.",
    "Ms",
    "Count",
    "Countess",
    "The",
]
PREFIXES = PREFIXES + [p.lower() for p in PREFIXES]
_PSEUDO = ("_narr", "_group", "_unknowable")

_COMPLETE = re.compile(r"\|([\d]+)\|[^\|]+\|\|[\d]+\|\|")  # a marked quotation wholly inside a chunk
_PLACEHOLDER = re.compile(r"<INSERT (PASSAGE|PREVIOUS PREDICTIONS|CHARACTER LIST)>")


# --- prompts ----------------------------------------------------------------------------------------


def paper_prompt(strategy: str) -> str:
    """The paper's prompt for ``strategy`` (``normal``: Figure 7; ``incremental``: Figure 8), with its
    ``<INSERT …>`` placeholders; read from package data (the file's first line names the source)."""
    name = "michel2025_incremental.txt" if strategy == "incremental" else "michel2025_normal.txt"
    return load_paper_prompt(f"quote_attribution/{name}")


def fill_prompt(strategy: str, passage: str, names: str, previous: dict[str, object] | None = None) -> str:
    """The prompt for one chunk: its passage, the names list and (incremental) the earlier predictions,
    written as the authors' code writes them (a Python dict)."""
    values = {"PASSAGE": passage, "CHARACTER LIST": names, "PREVIOUS PREDICTIONS": str(previous or {})}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], paper_prompt(strategy))


# --- the names list ---------------------------------------------------------------------------------


@dataclass(slots=True)
class AliasTable:
    """The characters the prompt names: (character id, canonical name, other names) in list order, and
    every name (canonical, alias, honorific-stripped alias) to its character id."""

    rows: list[tuple[str, str, list[str]]]
    name_to_id: dict[str, str]

    def text(self) -> str:
        """``build_aliases_text``: one line per character, ``Canonical=alias=alias``."""
        return "\n".join("=".join([name, *others]) for _, name, others in self.rows)


def alias_table(characters: list[Character], speakers: set[str] | None = None) -> AliasTable:
    """The names list as the authors build it: the characters who speak (``prune_info``; all when
    ``speakers`` is None), each with its names, plus a name without its leading honorific ("Miss Tabitha
    Wrexham" -> "Tabitha Wrexham") when no other name has it and only one character would (``get_enhanced_
    char_list``). Pseudo-speakers are left out (``build_aliases_text``)."""
    kept = [
        c
        for c in characters
        if (speakers is None or c.id in speakers) and c.name not in _PSEUDO and not c.name.startswith("_")
    ]
    name_to_id: dict[str, str] = {}
    names_of: dict[str, list[str]] = {}
    for character in kept:
        names = [character.name, *(a for a in character.aliases if a != character.name)]
        names_of[character.id] = []
        for name in names:
            name_to_id[name] = character.id
    for character in kept:  # a later character's identical alias wins, as a dict built in order
        names_of[character.id] = [
            n
            for n in dict.fromkeys([character.name, *character.aliases])
            if name_to_id.get(n) == character.id
        ]
    stripped: dict[str, set[str]] = {}
    for character in kept:
        for name in names_of[character.id]:
            words = name.split()
            if words and words[0] in PREFIXES:
                rest = " ".join(words[1:])
                if rest and rest not in name_to_id:
                    stripped.setdefault(rest, set()).add(character.id)
    for rest, ids in stripped.items():
        if len(ids) == 1:
            (cid,) = ids
            name_to_id[rest] = cid
            names_of[cid].append(rest)
    rows = []
    for character in kept:
        names = names_of[character.id]
        canonical = character.name if character.name in names else (names[0] if names else character.name)
        rows.append((character.id, canonical, [n for n in names if n != canonical]))
    return AliasTable(rows, name_to_id)


def map_name(answer: object, table: AliasTable, *, lenient: bool = False) -> str | None:
    """The character id an answered name stands for: an exact name of the list (the paper), or with
    ``lenient`` the released code's ``alias2id`` fallback (the first name containing the answer,
    case-insensitively); None when it names no one."""
    if not isinstance(answer, str):
        return None
    if answer in table.name_to_id:
        return table.name_to_id[answer]
    if lenient:
        lowered = answer.lower()
        for name, cid in table.name_to_id.items():
            if lowered in name.lower():
                return cid
    return None


# --- marking and chunking ---------------------------------------------------------------------------


def mark_quote(text: str, start: int, end: int, number: int) -> tuple[str, int]:
    """``prefix_suffix_quote_id``: ``text`` with the quotation part [start, end) (inside its marks) marked
    ``|number| … ||number||``, and how many characters were inserted before ``end``'s right side."""
    prefix, suffix = f"|{number}| ", f" ||{number}||"
    opening = start > 0 and text[start - 1] == '"'
    closing = end < len(text) and text[end] == '"'
    if opening and closing:
        return text[: start - 1] + prefix + text[start - 1 : end + 1] + suffix + text[end + 1 :], len(
            prefix + suffix
        )
    if not opening and not closing:
        marked = text[:start] + " " + prefix + text[start:end] + suffix + " " + text[end:]
        return marked, len(prefix + suffix) + 2
    if closing:  # no opening mark
        return text[:start] + prefix + text[start : end + 1] + suffix + text[end + 1 :], len(prefix + suffix)
    return text[: start - 1] + prefix + text[start - 1 : end] + suffix + text[end:], len(prefix + suffix)


def mark_chapter(text: str, parts: list[tuple[int, int, int]]) -> str:
    """``text`` (a chapter) with each (start, end, id) part marked, parts in text order, offsets into
    ``text``."""
    shift = 0
    for start, end, number in sorted(parts):
        text, added = mark_quote(text, start + shift, end + shift, number)
        shift += added
    return text


def chunk_spans(
    token_spans: list[tuple[int, int]], max_tokens: int = CHUNK_TOKENS, stride: int = STRIDE_TOKENS
) -> list[tuple[int, int]]:
    """Character spans of the chunks: windows of ``max_tokens`` tokens starting every ``max_tokens -
    stride`` tokens until one reaches the end (a Hugging Face tokenizer's overflowing tokens)."""
    if not token_spans:
        return []
    step = max_tokens - stride
    chunks = []
    for first in range(0, len(token_spans), step):
        last = min(first + max_tokens, len(token_spans))
        chunks.append((token_spans[first][0], token_spans[last - 1][1]))
        if last == len(token_spans):
            break
    return chunks


def complete_ids(chunk: str) -> list[str]:
    """Global ids of the quotation parts wholly inside a raw chunk, in numeric order."""
    return sorted(set(_COMPLETE.findall(chunk)), key=int)


def delete_inquote(text: str) -> str:
    """The released ``delete_inquote``: drop quotations cut by the chunk's edges (from a line break to
    their opening marker's text, or from a line break to their closing marker)."""
    all_ids_1 = re.findall(r"[^\|]\|([\d]+)\|[^\|]", text)
    all_ids_2 = re.findall(r"\|\|([\d]+)\|\|", text)
    fq_ids = re.findall(r"\|([\d]+)\| [^\|]+ \|\|[\d]+\|\|", text)
    for pb in [i for i in all_ids_1 if i not in fq_ids]:
        text = re.sub(rf"[\n]+\|{pb}\|[^\|]+", "", text)
    for pb in [i for i in all_ids_2 if i not in fq_ids]:
        text = re.sub(rf"[\n]+([^\|]+\|\|{pb}\|\|)", "\n", text)
    return text


def restart_quote_seq(text: str, start_from: int = 1) -> tuple[str, dict[str, str]]:
    """The released ``restart_quote_seq``: ids renumbered from ``start_from`` in order of appearance;
    returns the text and the global -> local id map."""
    mapper: dict[str, str] = {}
    pieces: list[str] = []
    cursor = 0
    for match in re.finditer(r"(\|[\d]+\|)|(\|/[\d]+\|)", text):
        value = match.group(1) if match.group(1) is not None else match.group(2)
        number = re.findall(r"[\d]+", value)[0]
        if number not in mapper:
            mapper[number] = str(len(mapper) + start_from)
        pieces.append(text[cursor : match.start()])
        pieces.append(re.sub(r"[\d]+", mapper[number], value))
        cursor = match.end()
    pieces.append(text[cursor:])
    return "".join(pieces), mapper


def sub_pipes(text: str) -> str:
    """The released ``sub_pipes``: ``|n| "…" ||n||`` becomes ``|n|"…"|n|``."""
    text = re.sub(r"\|([\d]+)\| ", lambda m: "|" + m.group(1) + "|", text)
    return re.sub(r" \|\|([\d]+)\|\|", lambda m: "|" + m.group(1) + "|", text)


def clean_context(text: str) -> str:
    """The released ``clean_context``: a single line break between word characters becomes a space,
    underscores (italics) become spaces, three spaces become one."""
    text = re.sub(r"([\w\d\.\,\:])[\n]{1}([\w\d\.\,\:])", lambda m: m.group(1) + " " + m.group(2), text)
    text = re.sub(r"_", " ", text)
    return re.sub(r"[ ]{3}", " ", text)


def chunk_passage(chunk: str) -> tuple[str, dict[str, str]]:
    """The passage a prompt shows for a raw chunk, and the chunk's global -> local id map."""
    text, mapper = restart_quote_seq(delete_inquote(chunk), start_from=1)
    return clean_context(sub_pipes(text)), mapper


# --- answers ----------------------------------------------------------------------------------------


def _names_an_id(local_to_global: dict[str, str], answer: str) -> bool:
    return bool(parse_answer(answer, local_to_global))


def parse_answer(answer: str, local_to_global: dict[str, str]) -> dict[str, object]:
    """The released ``parse_answer``: the first ``{…}`` block (followed by a line break, or the end of the
    answer, where the authors' decoded output had the end-of-turn token), ``|`` and ``quote_`` removed,
    read as a Python/JSON literal dict; else lines ``id: name``; ids mapped back to global ids. An answer
    neither way reads gives ``{}``. (The code's third fallback, ``parse_with_reg``, unpacks a one-group
    match and yields nothing usable; it is left out.)"""
    found = re.findall(r"[\n]?([\{]{1}[^\}]+[\}]{1})[\n<]+", answer + "\n")
    if found:
        body = re.sub(r"quote_", "", re.sub(r"\|", "", found[0]))
        try:
            value = ast.literal_eval(body)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            value = None
        if isinstance(value, dict):
            return {local_to_global[str(k)]: v for k, v in value.items() if str(k) in local_to_global}
    return _parse_lines(answer, local_to_global)


def _parse_lines(answer: str, local_to_global: dict[str, str]) -> dict[str, object]:
    """``parse_with_splits``: ``id: name`` per line; any id not in the chunk voids the whole answer."""
    out: dict[str, object] = {}
    text = re.sub(r"\|", "", re.sub(r"quote_", "", answer))
    for line in text.split("\n"):
        if ":" not in line:
            continue
        qid = line.split(":")[0].strip()
        if qid[:1] in ("'", '"'):
            try:
                qid = str(ast.literal_eval(qid))
            except (ValueError, SyntaxError):
                return {}
        try:
            int(qid)
        except ValueError:
            continue
        pred = line.split(":")[1].strip()
        if pred:
            if pred[-1] == ",":
                pred = pred[:-1]
            if pred[:1] in ('"', "'"):
                pred = pred[1:-1]
        if qid not in local_to_global:
            return {}
        out[local_to_global[qid]] = pred
    return out


# --- the run ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class PaperChunk:
    """One chunk: its chapter, character span in the marked chapter, global ids wholly inside it (all,
    and those to predict) and the passage the prompt shows."""

    chapter: int
    start: int
    end: int
    ids: list[str]
    to_predict: list[str]
    passage: str
    local: dict[str, str]  # global id -> id shown
    raw: str = ""  # the marked chunk before cleaning (what the authors' chunking produces)


@dataclass(slots=True)
class PaperAttributionReport:
    """A run's account: settings, counts, and each quotation part's prediction."""

    spec: str
    strategy: str
    name_matching: str
    tokenizer: str
    chunk_tokens: int = CHUNK_TOKENS
    stride_tokens: int = STRIDE_TOKENS
    chunks: int = 0
    prompts: int = 0
    incremental_prompts: int = 0
    parts: int = 0
    predicted: int = 0  # parts with a prediction that names a listed character
    unmapped: int = 0  # parts answered with a name that is not on the list
    missing: int = 0  # target parts no answer covered
    unparsed_answers: int = 0
    failed_prompts: int = 0
    unmapped_names: Counter[str] = field(default_factory=Counter)
    predictions: dict[int, str | None] = field(default_factory=dict)  # part index -> character id

    def to_dict(self) -> dict[str, Any]:
        return {
            "protocol": PAPER,
            "spec": self.spec,
            "strategy": self.strategy,
            "name_matching": self.name_matching,
            "tokenizer": self.tokenizer,
            "chunk_tokens": self.chunk_tokens,
            "stride_tokens": self.stride_tokens,
            "chunks": self.chunks,
            "prompts": self.prompts,
            "incremental_prompts": self.incremental_prompts,
            "parts": self.parts,
            "predicted": self.predicted,
            "unmapped": self.unmapped,
            "missing": self.missing,
            "unparsed_answers": self.unparsed_answers,
            "failed_prompts": self.failed_prompts,
            "unmapped_names": dict(self.unmapped_names.most_common(50)),
        }


def quote_parts(quotes: list[Quote]) -> list[tuple[int, int, int, int]]:
    """(start, end, quote index, part index) of every sub-quotation, in text order: the unit the
    protocol marks, predicts and scores."""
    parts = [(s.start, s.end, qi, pi) for qi, q in enumerate(quotes) for pi, s in enumerate(q.spans)]
    return sorted(parts)


def paper_chunks(
    book: Book,
    llm: LLM,
    parts: list[tuple[int, int]],
    targets: set[int] | None = None,
    *,
    chunk_tokens: int = CHUNK_TOKENS,
    stride_tokens: int = STRIDE_TOKENS,
) -> tuple[list[PaperChunk], str]:
    """The chunks of every chapter holding a part (``parts``: (start, end) in text order, id = index),
    and the tokenizer's name. ``targets``: part indices to predict (default all)."""
    chapters = [(c.start, c.end) for c in book.chapters if c.end > c.start] or [
        (book.body.start, book.body.end)
    ]
    by_chapter: list[list[tuple[int, int, int]]] = [[] for _ in chapters]
    starts = [s for s, _ in chapters]
    import bisect

    for index, (start, end) in enumerate(parts):
        chapter = max(0, bisect.bisect_right(starts, start) - 1)
        by_chapter[chapter].append((start - chapters[chapter][0], end - chapters[chapter][0], index))
    chunks: list[PaperChunk] = []
    tokenizer = ""
    for chapter, ((cstart, cend), chapter_parts) in enumerate(zip(chapters, by_chapter, strict=True)):
        if not chapter_parts:
            continue
        marked = mark_chapter(book.text[cstart:cend], chapter_parts)
        spans, tokenizer = llm.token_spans(marked)
        for start, end in chunk_spans(spans, chunk_tokens, stride_tokens):
            raw = marked[start:end]
            ids = complete_ids(raw)
            wanted = [i for i in ids if targets is None or int(i) in targets]
            passage, local = chunk_passage(raw)
            chunks.append(PaperChunk(chapter, start, end, ids, wanted, passage, local, raw))
    return chunks, tokenizer


def attribute_parts(
    book: Book,
    llm: LLM,
    parts: list[tuple[int, int]],
    characters: list[Character],
    *,
    targets: set[int] | None = None,
    speakers: set[str] | None = None,
    strategy: Strategy | str = "incremental",
    name_matching: str = "exact",
    chunk_tokens: int = CHUNK_TOKENS,
    stride_tokens: int = STRIDE_TOKENS,
    max_new_tokens: int = MAX_NEW_TOKENS,
    progress: str | None = None,
) -> PaperAttributionReport:
    """Predict the speaker of each quotation part (``parts``: (start, end) inside the marks, in text
    order) with the paper's protocol; ``characters`` with ``speakers`` (ids; default all) make the names
    list. Returns the report with ``predictions`` (part index -> character id, None when the answer named
    no one on the list); ``targets`` (part indices, default all) are the parts predicted and kept."""
    strategy = "normal" if strategy == "first" else strategy  # the paper's strategy 1: first prediction wins
    if strategy not in STRATEGIES:
        raise ConfigError(
            f"unknown strategy {strategy!r} for the paper protocol; use one of {', '.join(STRATEGIES)}"
        )
    if name_matching not in NAME_MATCHING:
        raise ConfigError(f"unknown name matching {name_matching!r}; use one of {', '.join(NAME_MATCHING)}")
    table = alias_table(characters, speakers)
    if not table.rows:
        raise ConfigError("the paper protocol needs a character list (gold, or fabula's predicted cast)")
    names = table.text()
    chunks, tokenizer = paper_chunks(
        book, llm, parts, targets, chunk_tokens=chunk_tokens, stride_tokens=stride_tokens
    )
    report = PaperAttributionReport(
        llm.spec,
        strategy,
        name_matching,
        tokenizer,
        chunk_tokens,
        stride_tokens,
        chunks=len(chunks),
        parts=len(parts),
    )
    options = GenerateOptions(max_tokens=max_new_tokens, temperature=0.0)
    lenient = name_matching == "lenient"
    raw_past: dict[
        str, object
    ] = {}  # global id -> answered name, in answer order (the code's raw_past_preds)
    past: dict[str, str | None] = {}  # global id -> character id (past_preds)
    # overlapping chunks are those of one chapter, so the n-th chunks of all chapters are asked together
    per_chapter: dict[int, list[PaperChunk]] = {}
    for chunk in chunks:
        per_chapter.setdefault(chunk.chapter, []).append(chunk)
    rounds = max((len(c) for c in per_chapter.values()), default=0)
    for round_index in range(rounds):
        todo = [
            c[round_index] for c in per_chapter.values() if len(c) > round_index and c[round_index].to_predict
        ]
        prompts = []
        for chunk in todo:
            overlap = {k: v for k, v in raw_past.items() if k in chunk.to_predict}
            if overlap and strategy == "incremental":
                shown: dict[str, object] = {chunk.local[k]: v for k, v in overlap.items() if k in chunk.local}
                prompts.append(fill_prompt("incremental", chunk.passage, names, shown))
                report.incremental_prompts += 1
            else:
                prompts.append(fill_prompt("normal", chunk.passage, names))
        label = progress and (f"{progress} ({round_index + 1}/{rounds})" if rounds > 1 else progress)
        # an answer with no id of its chunk (e.g. "{}") attributes nothing: it is not cached, a re-run asks again
        readable = [functools.partial(_names_an_id, {v: k for k, v in chunk.local.items()}) for chunk in todo]
        generations = llm.generate_many(prompts, options, progress=label, validate=readable)
        report.prompts += len(prompts)
        for chunk, generation in zip(todo, generations, strict=True):
            if generation.error is not None:
                report.failed_prompts += 1
                continue
            inverse = {v: k for k, v in chunk.local.items()}
            answered = parse_answer(generation.text, inverse)
            if not answered:
                report.unparsed_answers += 1
            raw_past.update(answered)
            for gid, name in answered.items():
                if gid not in chunk.to_predict:
                    continue
                if strategy == "normal" and gid in past:
                    continue
                past[gid] = map_name(name, table, lenient=lenient)
                if past[gid] is None:
                    report.unmapped_names[str(name)] += 1
    if report.prompts and report.failed_prompts + report.unparsed_answers == report.prompts:
        errors = "all requests failed" if report.failed_prompts == report.prompts else "no answer had an id"
        raise BackendError(
            f"none of the {report.prompts} chunks' answers could be used ({errors}); nothing was scored",
            llm.spec,
        )
    wanted = set(range(len(parts))) if targets is None else targets
    for index in sorted(wanted):
        if str(index) not in past:
            report.missing += 1
            continue
        report.predictions[index] = past[str(index)]
        if past[str(index)] is None:
            report.unmapped += 1
        else:
            report.predicted += 1
    return report


def attribute_with_paper_protocol(
    book: Book,
    *,
    llm: LLM | None = None,
    strategy: Strategy | str = "incremental",
    name_matching: str = "exact",
    progress: str | None = "LLM attribution (Michel et al. 2025)",
    **_other: Any,
) -> AttributionResult:
    """``attribute_quotes(book, method="llm", llm=MODEL)``: the paper's protocol on ``book.quotes`` with
    ``book.characters`` as the names list. A quote's speaker is its first part's prediction (each part
    is predicted on its own, as in the paper); the report holds every part's prediction."""
    if llm is None or not isinstance(llm, LLM):
        raise ConfigError(
            "the llm attribution method needs a model: give --llm SPEC "
            "(e.g. --llm openai:MODEL@http://127.0.0.1:8080/v1, or llamacpp:/path/model.gguf)",
            "--llm",
        )
    parts = quote_parts(book.quotes)
    report = attribute_parts(
        book,
        llm,
        [(s, e) for s, e, _, _ in parts],
        book.characters,
        strategy=strategy,
        name_matching=name_matching,
        progress=progress,
    )
    known = {c.id for c in book.characters}
    first_part: dict[int, int] = {}
    for index, (_, _, qi, _) in enumerate(parts):
        first_part.setdefault(qi, index)
    for qi, quote in enumerate(book.quotes):
        speaker = report.predictions.get(first_part.get(qi, -1))
        quote.method = METHOD_NAME
        quote.mention = None
        quote.speaker_id = speaker if speaker in known else None
        quote.confidence = 1.0 if quote.speaker_id else 0.0
    out = report.to_dict()
    out["part_predictions"] = [[qi, pi, report.predictions.get(i)] for i, (_, _, qi, pi) in enumerate(parts)]
    return AttributionResult(book.quotes, out)


attribution_method(METHOD_NAME)(attribute_with_paper_protocol)
