"""Strict parsing of untrusted answers, and the shipped prompt templates."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from fabula.errors import ConfigError
from fabula.llm import ParseError, parse_json_answer
from fabula.prompts import list_prompts, load_prompt


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"1": "Alice"}', {"1": "Alice"}),
        ('```json\n{"1": "Alice"}\n```', {"1": "Alice"}),
        ('```\n{"1": "Alice"}\n```\nHope this helps!', {"1": "Alice"}),
        ('Here are the speakers: {"1": "Alice", "2": "Bob"} — done.', {"1": "Alice", "2": "Bob"}),
        ("{'1': 'Alice', '2': \"O'Hara\"}", {"1": "Alice", "2": "O'Hara"}),
        ('{"1": "Alice", "2": "Bob",}', {"1": "Alice", "2": "Bob"}),
        ("{1: 'Alice'}", {"1": "Alice"}),
        ('{"a": True, "b": None}', {"a": True, "b": None}),
        ("“1”: no", None),
        ("[1, 2, 3,]", [1, 2, 3]),
        ("It's {'x': 'don\\'t'}", {"x": "don't"}),
    ],
)
def test_parse_json_answer_accepts_common_near_json(text: str, expected: object) -> None:
    if expected is None:
        with pytest.raises(ParseError):
            parse_json_answer(text)
    else:
        assert parse_json_answer(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "I don't know.", "{unclosed", "__import__('os').system('x')"])
def test_parse_json_answer_rejects_non_json(text: str) -> None:
    with pytest.raises(ParseError):
        parse_json_answer(text)


class Pick(BaseModel):
    answer: str


def test_schema_validation_failure_is_a_parse_error() -> None:
    assert parse_json_answer('{"answer": "B"}', Pick).answer == "B"
    with pytest.raises(ParseError, match="Pick"):
        parse_json_answer('{"choice": "B"}', Pick)


@given(st.text(max_size=200))
def test_parse_json_answer_never_raises_anything_but_parse_error(text: str) -> None:
    with contextlib.suppress(ParseError):
        parse_json_answer(text)


def test_shipped_prompts_load_with_versions() -> None:
    names = list_prompts()
    assert {"quote_attribution/chunk", "quote_attribution/incremental"} <= set(names)
    for name in names:
        template = load_prompt(name)
        assert template.version and template.text
        assert template.id == f"{name}@{template.version}"


def test_render_inserts_book_text_verbatim_and_requires_every_value() -> None:
    template = load_prompt("quote_attribution/chunk")
    values = {
        "title_clause": "",
        "characters": "Alice=Miss Alice",
        "passage": 'He said "${passage} {0} $x" loudly.',
        "quote_ids": "1",
        "example_id": 1,
        "example_name": "Alice",
    }
    messages = template.messages(**values)
    assert messages[0].role == "system" and messages[1].role == "user"
    assert 'He said "${passage} {0} $x" loudly.' in messages[1].content
    del values["characters"]
    with pytest.raises(ConfigError, match="characters"):
        template.render(**values)


@pytest.mark.parametrize("name", ["../secrets", "nope/missing", "Quote_Attribution/chunk"])
def test_bad_prompt_names_are_config_errors(name: str) -> None:
    with pytest.raises(ConfigError):
        load_prompt(name)
