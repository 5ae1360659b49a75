"""Strict parsing of structured answers from untrusted model output. Never ``eval``.

Accepts what models commonly produce around a JSON value: Markdown code fences, prose before and after,
Python-style single quotes, trailing commas, ``True/False/None``, smart quotes. Anything else raises
`ParseError`, which callers record as a failure (and may retry once with a reminder).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_SMART = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})


class ParseError(ValueError):
    """The answer holds no JSON value we can read (or it does not fit the schema)."""

    def __init__(self, problem: str, text: str) -> None:
        self.problem = problem
        self.text = text
        snippet = " ".join(text.split())[:120]
        super().__init__(f"{problem}: {snippet!r}")


@overload
def parse_json_answer(text: str, schema: None = None) -> Any: ...
@overload
def parse_json_answer(text: str, schema: type[ModelT]) -> ModelT: ...
def parse_json_answer(text: str, schema: type[BaseModel] | None = None) -> Any:
    """The JSON object or array in a model answer, validated by ``schema`` when given."""
    if not text or not text.strip():
        raise ParseError("empty answer", text or "")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    value: Any = None
    found = False
    for candidate in candidates:
        for fragment in _balanced_fragments(candidate):
            try:
                value = _loads_lenient(fragment)
            except ValueError:
                continue
            found = True
            break
        if found:
            break
    if not found:
        raise ParseError("no JSON object in the answer", text)
    if schema is None:
        return value
    from pydantic import ValidationError  # loaded already: ``schema`` is a pydantic model

    try:
        return schema.model_validate(value)
    except ValidationError as exc:
        raise ParseError(f"answer does not fit {schema.__name__} ({exc.error_count()} errors)", text) from exc


def _balanced_fragments(text: str) -> list[str]:
    """Substrings that start at a ``{`` or ``[`` and end at its matching bracket (strings respected)."""
    fragments: list[str] = []
    start = 0
    while True:
        positions = [p for p in (text.find("{", start), text.find("[", start)) if p >= 0]
        if not positions:
            return fragments
        begin = min(positions)
        end = _matching_end(text, begin)
        if end is None:
            start = begin + 1
            continue
        fragments.append(text[begin : end + 1])
        start = end + 1


def _matching_end(text: str, begin: int) -> int | None:
    depth = 0
    quote: str | None = None
    escaped = False
    for index in range(begin, len(text)):
        char = text[index]
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
            continue
        if char in "\"'":
            # an apostrophe inside a bare word (don't) is not a string delimiter
            if char == "'" and index > 0 and text[index - 1].isalnum():
                continue
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index
    return None


def _loads_lenient(fragment: str) -> Any:
    try:
        return json.loads(fragment)
    except ValueError:
        pass
    repaired = _TRAILING_COMMA.sub(r"\1", fragment.translate(_SMART))
    repaired = _single_to_double_quotes(repaired)
    repaired = re.sub(r"\bTrue\b", "true", repaired)
    repaired = re.sub(r"\bFalse\b", "false", repaired)
    repaired = re.sub(r"\bNone\b", "null", repaired)
    # unquoted numeric keys: {1: "x"} -> {"1": "x"}
    repaired = re.sub(r"([{,]\s*)(-?\d+)(\s*:)", r'\1"\2"\3', repaired)
    return json.loads(repaired)


def _single_to_double_quotes(text: str) -> str:
    """Rewrite single-quoted strings as JSON strings, leaving double-quoted ones alone."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == '"':
            end = index + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[index : end + 1])
            index = end + 1
        elif char == "'" and not (index > 0 and text[index - 1].isalnum()):
            end = index + 1
            while end < len(text) and not (
                text[end] == "'" and (end + 1 == len(text) or not text[end + 1].isalnum())
            ):
                end += 2 if text[end] == "\\" else 1
            inner = text[index + 1 : end].replace("\\'", "'")
            out.append(json.dumps(inner))
            index = end + 1
        else:
            out.append(char)
            index += 1
    return "".join(out)
