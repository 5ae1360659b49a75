"""Sentences and tokens, English and Chinese, with no model download.

English sentences: blingfire (a compiled rule-based splitter) on all paragraphs at once, then repair
passes for what it gets wrong in fiction: it splits after "?"/"!" inside dialogue
(``"Are you coming?" she asked.``), never splits before "Mr."/"Mrs."/"Dr." ("It was dry. Mr. Jukes
came."), and keeps a dash-interrupted quote together with the next sentence. On the 62 English cases
of tests/book/test_sentences.py raw blingfire gets 52 right, pysbd 51, this module 62; on a 160K-word novel this
takes 0.17 s, pysbd ~4.3 s (over the ingestion budget). Chinese sentences end at 。！？ (closing quotes
attached; "……" only before a closing quote or at the paragraph end) and a short speech tag after a
quote stays with it; Chinese words come from jieba. docs/book-model.md lists the decisions.
"""

from __future__ import annotations

import bisect
import itertools
import re
import string
from array import array
from collections.abc import Iterable
from functools import cache
from typing import Any

import numpy as np

from fabula._parallel import can_fork, fork_call
from fabula.book._model import char_classes
from fabula.book._spans import SpanLayer, trim_span

# Abbreviations after which a period does not end a sentence.
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "messrs",
        "mme",
        "mlle",
        "mm",
        "dr",
        "st",
        "sr",
        "jr",
        "prof",
        "rev",
        "hon",
        "capt",
        "col",
        "gen",
        "lt",
        "sgt",
        "maj",
        "cmdr",
        "adm",
        "gov",
        "pres",
        "sen",
        "rep",
        "esq",
        "bros",
        "co",
        "corp",
        "inc",
        "ltd",
        "vol",
        "vols",
        "ch",
        "chap",
        "pp",
        "p",
        "fig",
        "figs",
        "vs",
        "etc",
        "viz",
        "cf",
        "ed",
        "eds",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "mon",
        "tue",
        "tues",
        "wed",
        "thu",
        "thur",
        "thurs",
        "fri",
        "sat",
        "sun",
        "mt",
        "ft",
        "ave",
        "blvd",
        "rd",
        "u.s",
        "a.m",
        "p.m",
        "i.e",
        "e.g",
    ]
)
# abbreviations that end a sentence unless a number follows ("No. 10", but "No. I will not.")
_NUMBER_ABBREVIATION = re.compile(r"\b(?:no|nos)\.$", re.I)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_EN_TOKEN = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*|\S", re.U)
_ZH_CLOSING = "”’」』\"')）》"
# a sentence runs to 。！？ (or to an ellipsis that closes a quotation, or the paragraph end), closing quotes included
_ZH_SENTENCE = re.compile(
    r"(?:[^。！？!?…⋯]|[…⋯]+(?![…⋯]|[”’」』\"')）]|$))*(?:[。！？!?]+|[…⋯]+|$)[”’」』\"')）》]*"
)
# a short speech tag after a closing quote: 她问。 他喊道。 老人问道。 (not 他没有回答。)
_ZH_SPEECH_TAG = re.compile(r"^(?!.*[没不未])[^“”「」『』\"]{0,8}?(?:说|问|道|喊|叫|答|嚷)[。！!]?$")
_OPENING_QUOTE = "\"'“‘«([—-"


def detect_language(text: str) -> str:
    """ "zh" when CJK characters dominate a sample of the text, else "en"."""
    sample = text[:20000] + text[len(text) // 2 : len(text) // 2 + 20000]
    cjk = len(_CJK.findall(sample))
    letters = sum(1 for ch in sample if ch.isalpha())
    return "zh" if letters and cjk / letters > 0.3 else "en"


#: an English text at least this long (characters of paragraphs) is segmented in two halves on two cores
#: (`fabula._parallel.fork_call`): the fork and the pipe cost a few milliseconds, its half ~0.1 s per 400K
FORK_CHARACTERS = 300_000


def segment(text: str, paragraphs: SpanLayer, language: str = "en") -> tuple[SpanLayer, SpanLayer]:
    """`split_sentences` and `tokenize` of the same paragraphs: each paragraph is segmented on its own,
    so a long English book's second half of paragraphs goes to a second core (the same spans)."""
    n = len(paragraphs)
    size = int(paragraphs.ends[-1] - paragraphs.starts[0]) if n else 0
    if language == "zh" or n < 2 or size < FORK_CHARACTERS or not can_fork():
        return split_sentences(text, paragraphs, language), tokenize(text, paragraphs, language)
    cut = min(max(int(np.searchsorted(paragraphs.starts, paragraphs.starts[0] + size // 2)), 1), n - 1)
    first, second = paragraphs[:cut], paragraphs[cut:]

    def halves(part: SpanLayer) -> tuple[SpanLayer, SpanLayer]:
        return split_sentences(text, part, language), tokenize(text, part, language)

    (sentences_2, tokens_2), (sentences_1, tokens_1) = fork_call(
        lambda: halves(second), lambda: halves(first)
    )
    return _joined(sentences_1, sentences_2), _joined(tokens_1, tokens_2)


def _joined(first: SpanLayer, second: SpanLayer) -> SpanLayer:
    return SpanLayer(np.concatenate((first.starts, second.starts)), np.concatenate((first.ends, second.ends)))


def split_sentences(text: str, paragraphs: SpanLayer, language: str = "en") -> SpanLayer:
    """Sentence spans; every sentence lies inside one paragraph and paragraphs are fully covered."""
    starts = array("q")  # 8 bytes an offset, not a Python int object each (a 39 MB text has ~1M sentences)
    ends = array("q")
    pairs = paragraphs.pairs()
    if language == "zh":
        per_paragraph = [_zh_sentences(text[s:e]) for s, e in pairs]
    else:
        per_paragraph = _en_sentences([text[s:e] for s, e in pairs])
    for (p_start, _), spans in zip(pairs, per_paragraph, strict=True):
        for s, e in spans:
            starts.append(p_start + s)
            ends.append(p_start + e)
    return _layer(starts, ends)


def _layer(starts: array[int], ends: array[int]) -> SpanLayer:
    return SpanLayer(np.frombuffer(starts, dtype=np.int64).copy(), np.frombuffer(ends, dtype=np.int64).copy())


_PARAGRAPH_SEPARATOR = "\u2029"  # blingfire always ends a sentence here (it does not at "\n")


_BATCH_CHARACTERS = 1 << 20  # blingfire's buffers grow with its input: feed it ~1 MB of paragraphs at a time


def _en_sentences(paragraphs: list[str]) -> list[list[tuple[int, int]]]:
    """English sentences of each paragraph: blingfire on batches of paragraphs, then the repair passes."""
    result: list[list[tuple[int, int]]] = []
    batch: list[str] = []
    size = 0
    for paragraph in paragraphs:
        batch.append(paragraph)
        size += len(paragraph) + 1
        if size >= _BATCH_CHARACTERS:
            result.extend(_en_sentences_batch(batch))
            batch, size = [], 0
    if batch:
        result.extend(_en_sentences_batch(batch))
    return result


def _en_sentences_batch(paragraphs: list[str]) -> list[list[tuple[int, int]]]:
    """`_en_sentences` for one batch: blingfire on all its paragraphs at once."""
    flats = [p.replace("\n", " ").replace("\r", " ").replace(_PARAGRAPH_SEPARATOR, " ") for p in paragraphs]
    joined = _PARAGRAPH_SEPARATOR.join(flats)
    offsets = _blingfire_sentences(joined)
    # which paragraphs `_split_missed` must search, found over the whole batch at once; joined by a line feed
    # (no flat paragraph holds one), the text is one byte a character wherever every character is below U+0100
    # (the separator is not), and a string search over it skips ahead fastest
    lines = "\n".join(flats)
    bounds = list(itertools.accumulate((len(f) + 1 for f in flats[:-1]), initial=0))
    dashed = _paragraphs_holding(lines, bounds, _DASH_QUOTES)
    titled = _paragraphs_before_title(lines, bounds)  # perhaps a few more
    result: list[list[tuple[int, int]]] = []
    base = 0
    k = 0
    for i, (paragraph, flat) in enumerate(zip(paragraphs, flats, strict=True)):
        end_of_paragraph = base + len(flat)
        spans: list[tuple[int, int]] = []
        while k < len(offsets) and offsets[k][0] < end_of_paragraph:
            start, end = offsets[k]
            if end > base:
                spans.append((max(start, base) - base, min(end, end_of_paragraph) - base))
            if end > end_of_paragraph + 1:  # crosses into the next paragraph: look at it again there
                break
            k += 1
        spans = _split_missed(_repair(spans, flat), flat, interrupted=i in dashed, before_title=i in titled)
        result.append(_cover(spans, len(paragraph), paragraph))
        base = end_of_paragraph + len(_PARAGRAPH_SEPARATOR)
    return result


@cache
def _blingfire_library() -> Any:
    """blingfire's compiled library, loaded as its own ``__init__`` loads it, without importing that module.

    Importing ``blingfire`` finds its own folder with ``inspect.getframeinfo`` (which looks up the module of
    every loaded one) and imports ``numpy.ctypeslib``: 10-50 ms of every ``fabula`` process that reads a
    book. None when the package is not laid out as expected (the caller then uses blingfire's wrapper).
    """
    import ctypes
    import importlib.util
    import os
    import platform

    spec = importlib.util.find_spec("blingfire")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    name = {"Windows": "blingfiretokdll.dll", "Darwin": "libblingfiretokdll.dylib"}.get(
        platform.system(), "libblingfiretokdll.so"
    )
    path = os.path.join(folders[0], name) if folders else ""
    if not os.path.isfile(path):  # pragma: no cover - another layout
        return None
    return ctypes.cdll.LoadLibrary(path)


def _blingfire_sentences(text: str) -> list[tuple[int, int]]:
    """blingfire's sentence offsets (character offsets, end exclusive).

    blingfire's own Python wrapper maps UTF-8 byte offsets back to characters in a per-byte Python
    loop (~0.4 s for a novel); we call the same C function and map with numpy instead.
    """
    import ctypes

    if not text:
        return []
    function = getattr(_blingfire_library(), "TextToSentencesWithOffsets", None)
    data = text.encode("utf-8")
    size = len(data) * 2 + 16
    if function is None:  # pragma: no cover - another blingfire layout: use its wrapper
        import blingfire

        return [(int(s), int(e)) for s, e in blingfire.text_to_sentences_and_offsets(text)[1]]
    out = ctypes.create_string_buffer(size)
    byte_starts = (ctypes.c_int32 * size)()
    byte_ends = (ctypes.c_int32 * size)()
    length = function(
        ctypes.c_char_p(data),
        ctypes.c_int(len(data)),
        ctypes.byref(out),
        ctypes.byref(byte_starts),
        ctypes.byref(byte_ends),
        ctypes.c_int(size),
    )
    if length < 0 or length > size:
        return [(0, len(text))]
    count = out.value.count(b"\n") + 1
    lead = (np.frombuffer(data, dtype=np.uint8) & 0xC0) != 0x80
    char_of_byte = np.cumsum(lead) - 1
    last = len(data) - 1
    first_bytes = np.minimum(np.ctypeslib.as_array(byte_starts)[:count], last)
    last_bytes = np.minimum(np.ctypeslib.as_array(byte_ends)[:count], last)
    starts = char_of_byte[first_bytes].tolist()
    ends = (char_of_byte[last_bytes] + 1).tolist()
    return [(s, e) for s, e in zip(starts, ends, strict=True) if e > s]


# Sentence ends blingfire misses: a quotation broken off by a dash, then a new capitalised sentence
# ('"whether Mrs. Hatherley--" She stopped.'), and any sentence end before a title abbreviation
# ("It was dry. Mr. Jukes came." is one sentence to blingfire).
_INTERRUPTED = re.compile(r"(?:--|[—–])[\"”’']+(?=\s+[A-Z\"“‘'])")
_BEFORE_TITLE = re.compile(
    r"[.!?][\"”’')\]]*(?=\s+(?:Mr|Mrs|Ms|Messrs|Dr|St|Mme|Mlle|Capt|Col|Gen|Prof|Rev|Lt|Sgt|Hon)\.\s*[A-Z])"
)


#: every match of `_INTERRUPTED` holds one of these: a dash, then a closing quote
_DASH_QUOTES = tuple(dash + quote for dash in ("--", "—", "–") for quote in "\"”’'")
_TITLE_DOT = re.compile(
    r"(?:Mr|Mrs|Ms|Messrs|Dr|St|Mme|Mlle|Capt|Col|Gen|Prof|Rev|Lt|Sgt|Hon)\."
)  # in `_BEFORE_TITLE`'s


def _paragraphs_holding(joined: str, bounds: list[int], needles: Iterable[str]) -> set[int]:
    """The indices of the paragraphs of ``joined`` (paragraph ``i`` starting at ``bounds[i]``, one separator
    character between two) that hold one of ``needles`` (strings without the separator, so each lies inside
    one paragraph): one string search a needle over the batch, skipping on to the next paragraph after a
    hit, instead of one a needle and paragraph."""
    found: set[int] = set()
    for needle in needles:
        at = joined.find(needle)
        while at >= 0:
            i = bisect.bisect_right(bounds, at) - 1
            found.add(i)
            if i + 1 >= len(bounds):
                break
            at = joined.find(needle, bounds[i + 1])  # one is enough: on from the next paragraph
    return found


def _paragraphs_before_title(joined: str, bounds: list[int]) -> set[int]:
    """The indices of the paragraphs of ``joined`` (as in `_paragraphs_holding`, joined by white space) where a match
    of `_BEFORE_TITLE` starts on the whole batch: every paragraph with a match of its own, and perhaps one whose
    match looks ahead into the next paragraph (`_split_missed` then searches a paragraph for nothing). One search
    of the batch instead of `_TITLE_DOT`'s and `_BEFORE_TITLE`'s of each paragraph: about a sixth of the work."""
    return {bisect.bisect_right(bounds, m.start()) - 1 for m in _BEFORE_TITLE.finditer(joined)}


def _split_missed(
    spans: list[tuple[int, int]],
    text: str,
    *,
    interrupted: bool | None = None,
    before_title: bool | None = None,
) -> list[tuple[int, int]]:
    """Split where blingfire keeps two sentences together (see the patterns above). ``interrupted`` and
    ``before_title``, when the caller knows them: whether ``text`` holds one of `_DASH_QUOTES`, and whether it may
    hold a match of `_BEFORE_TITLE` (True where it holds one; a True without one only costs a search)."""
    # most paragraphs hold neither pattern's fixed part, and most of those with a title hold no match: then no
    # sentence of them is searched (a match inside a sentence, its lookahead included, is one in the paragraph)
    if interrupted is None:
        interrupted = any(pair in text for pair in _DASH_QUOTES)
    if before_title is None:
        before_title = _TITLE_DOT.search(text) is not None and _BEFORE_TITLE.search(text) is not None
    if not interrupted and not before_title:
        return list(spans)
    out: list[tuple[int, int]] = []
    for start, end in spans:
        cuts = [m.end() for m in _INTERRUPTED.finditer(text, start, end)] if interrupted else []
        if before_title:
            cuts += [
                m.end()
                for m in _BEFORE_TITLE.finditer(text, start, end)
                if not _after_abbreviation(text, m.start())
            ]
        for cut in sorted(set(cuts)):
            if start < cut < end:
                out.append((start, cut))
                start = cut
        out.append((start, end))
    return out


_WORD_CHARACTERS = string.ascii_letters + "."


def _after_abbreviation(text: str, period: int) -> bool:
    """Whether the "." at ``period`` closes an abbreviation or an initial ("Mr.", "J.") rather than a sentence."""
    window = text[max(0, period - 20) : period]
    if window.endswith(
        "\n"
    ):  # the pattern ``([A-Za-z][A-Za-z.]*)$`` this replaces ends before a last "\n" too
        window = window[:-1]
    # what that pattern's search found, in one pass instead of a match tried at each of 20 offsets: the last
    # run of letters and dots, from its first letter
    word = window[len(window.rstrip(_WORD_CHARACTERS)) :].lstrip(".")
    if not word:
        return False
    token = word.lower().rstrip(".")
    return token in _ABBREVIATIONS or (len(token) == 1 and word.isupper())


def _repair(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Merge a sentence into the previous one when the break is not a real sentence end."""
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and _continues(text, merged[-1], start):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


_NON_SPACE = re.compile(r"\S")
_WORD_AT = re.compile(r"\S+")
_CLOSERS_ONLY = re.compile(r"[\"'”’)\]]+")
_TAIL = 64  # characters of the previous sentence the tests below look at (abbreviations need <= 20)


def _continues(text: str, previous: tuple[int, int], start: int) -> bool:
    """Whether the sentence at ``start`` continues ``previous`` (see `_repair`).

    Looks only at the end of the previous sentence and the first word of the next one, never at the
    rest of the paragraph: copying it per sentence made one long paragraph quadratic (2 MB > 300 s).
    """
    end = previous[1]
    while end > previous[0] and text[end - 1].isspace():
        end -= 1
    before = text[max(previous[0], end - _TAIL) : end]
    found = _NON_SPACE.search(text, start)
    if found is None:
        return True
    first = found.group()
    # '"Are you coming?" she asked.' — narration continues in lower case after closing dialogue
    if first.islower() and before[-1:] in "\"'”’!?,;:—-":
        return True
    if first.islower() and before.endswith("..."):
        return False
    if first.islower():
        return True
    # "Mr." / "St." / initials: a period after an abbreviation or single capital does not end it
    if before.endswith(".") and _after_abbreviation(before, len(before) - 1):
        return True
    if first.isdigit() and _NUMBER_ABBREVIATION.search(before):  # "No. 10", but "No. I will not."
        return True
    # a closing quote or bracket that blingfire left on its own
    word = _WORD_AT.match(text, found.start())
    assert word is not None
    return bool(_CLOSERS_ONLY.fullmatch(text, start, start + len(word.group())))


def _zh_sentences(paragraph: str) -> list[tuple[int, int]]:
    """Chinese sentences: ends at 。！？ (closing quotes attached); a speech tag after a quote stays with it."""
    spans: list[tuple[int, int]] = []
    for match in _ZH_SENTENCE.finditer(paragraph):
        if match.end() > match.start():
            spans.append((match.start(), match.end()))
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        piece = paragraph[start:end].strip()
        if merged and paragraph[merged[-1][1] - 1] in _ZH_CLOSING and _ZH_SPEECH_TAG.match(piece):
            merged[-1] = (merged[-1][0], end)  # “你来了吗？”她问。
        else:
            merged.append((start, end))
    return _cover(merged, len(paragraph), paragraph)


def _cover(spans: Iterable[tuple[int, int]], length: int, text: str) -> list[tuple[int, int]]:
    """Make sentence spans tile the paragraph: trim white space, attach gaps to their neighbours."""
    out: list[tuple[int, int]] = []
    position = 0
    for start, end in sorted(spans):
        start = max(start, position)
        end = min(end, length)
        if end <= start:
            continue
        if out and text[position:start].strip():
            out[-1] = (out[-1][0], start)  # keep skipped non-space text with the previous sentence
        elif not out and text[:start].strip():
            start = 0
        start, end = trim_span(text, start, end)
        if end > start:
            out.append((start, end))
            position = end
    if not out:
        stripped_start = len(text) - len(text.lstrip())
        stripped_end = len(text.rstrip())
        return [(stripped_start, stripped_end)] if stripped_end > stripped_start else []
    if text[position:].strip():
        tail_end = len(text.rstrip())
        out[-1] = (out[-1][0], tail_end)
    return out


def tokenize(text: str, paragraphs: SpanLayer, language: str = "en") -> SpanLayer:
    """Token spans inside paragraphs: words (with inner hyphens/apostrophes) and punctuation marks.

    Offsets are collected in typed arrays (8 bytes each): as Python int lists a 39 MB text's ~9M
    tokens took over a gigabyte while loading.
    """
    starts = array("q")
    ends = array("q")
    if language == "zh":
        import jieba

        jieba.setLogLevel(60)
        for p_start, p_end in paragraphs.pairs():
            for word, s, e in jieba.tokenize(text[p_start:p_end]):
                if not word.isspace():
                    starts.append(p_start + s)
                    ends.append(p_start + e)
        return _layer(starts, ends)
    return _en_tokens(text, paragraphs)


_TOKEN_CHUNK = 1 << 20  # characters of paragraphs classified at a time (bounds the arrays of a 40 MB text)
_WORD, _JOINER, _SPACE = 1, 2, 4  # character classes of `_EN_TOKEN`: [^\W_], [-'’], \s


def _en_tokens(text: str, paragraphs: SpanLayer) -> SpanLayer:
    r"""``_EN_TOKEN.finditer`` over every paragraph, as arrays: each character is classed once (a word
    character is one for which ``str.isalnum()`` holds, which is re's ``[^\W_]``; white space is
    ``str.isspace()``, re's ``\s``), and a character continues the token before it when it is a word
    character after a word character or an inner joiner, or is itself a joiner between two word
    characters (never across a paragraph's edge). 5-10x faster than a Python loop over the matches,
    with the same spans (tested against the pattern)."""
    p_starts, p_ends = paragraphs.starts, paragraphs.ends
    out_starts: list[np.ndarray] = []
    out_ends: list[np.ndarray] = []
    i, n = 0, len(p_starts)
    while i < n:
        lo = int(p_starts[i])
        j = max(i + 1, int(np.searchsorted(p_ends, lo + _TOKEN_CHUNK, side="right")))
        hi = int(p_ends[j - 1])
        size = hi - lo
        if size > 0:
            starts, ends = _chunk_tokens(text[lo:hi], p_starts[i:j] - lo, p_ends[i:j] - lo)
            out_starts.append(starts + lo)
            out_ends.append(ends + lo)
        i = j
    if not out_starts:
        return SpanLayer(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    return SpanLayer(np.concatenate(out_starts), np.concatenate(out_ends))


def _chunk_tokens(chunk: str, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Token starts and ends (offsets into ``chunk``) inside the paragraphs ``starts``/``ends`` of it."""
    size = len(chunk)
    classes = char_classes(chunk, _char_class)
    edges = np.zeros(size + 1, dtype=np.int32)
    np.add.at(edges, starts, 1)
    np.add.at(edges, ends, -1)
    inside = np.cumsum(edges[:size]) > 0
    opening = np.zeros(size + 1, dtype=bool)  # a paragraph starts here: no token continues into it
    opening[starts] = True
    word = ((classes & _WORD) != 0) & inside
    token = ((classes & _SPACE) == 0) & inside
    after_word = np.zeros(size, dtype=bool)  # the character before is a word character of this paragraph
    after_word[1:] = word[:-1] & ~opening[1:size]
    before_word = np.zeros(size, dtype=bool)  # the character after is one
    before_word[:-1] = word[1:] & ~opening[1:size]
    joined = ((classes & _JOINER) != 0) & inside & after_word & before_word
    after_joined = np.zeros(size, dtype=bool)
    after_joined[1:] = joined[:-1]
    continues = (word & (after_word | after_joined)) | joined
    first = np.flatnonzero(token & ~continues)
    next_continues = np.zeros(size, dtype=bool)
    next_continues[:-1] = continues[1:]
    last = np.flatnonzero(token & ~next_continues)
    return first.astype(np.int64), last.astype(np.int64) + 1


def _char_class(char: str) -> int:
    """`_WORD` | `_JOINER` | `_SPACE` flags of one character (`char_classes` tests each distinct one once)."""
    return (
        (_WORD if char.isalnum() else 0)
        | (_JOINER if char in "-'’" else 0)
        | (_SPACE if char.isspace() else 0)
    )
