"""The LLM layer: every LLM method in fabula goes through one interface, cached, concurrent and robust.

>>> llm = get_llm("openai:my-model@http://127.0.0.1:8080/v1")      # doctest: +SKIP
>>> llm.generate("Who says 'Elementary'?", GenerateOptions(max_tokens=20)).text  # doctest: +SKIP

The names are loaded on first use (PEP 562), each from its own module: a command that never opens a model
(``fabula analyze`` without ``--llm``) reads `DEFAULT_TIMEOUT` without importing the backends and pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabula._lazy import lazy_exports

if TYPE_CHECKING:
    from fabula.llm._base import (
        LLM,
        RequestError,
        TransientError,
        redact_credentials,
    )
    from fabula.llm._cache import CACHE_FILE_NAME, ResponseCache, default_cache_dir
    from fabula.llm._parse import ParseError, parse_json_answer
    from fabula.llm._record import CallRecord, CallRecorder, record_calls
    from fabula.llm._scripted import ScriptedLLM, ScriptExhaustedError
    from fabula.llm._settings import DEFAULT_TIMEOUT, STRUCTURED_MODES
    from fabula.llm._spec import BACKENDS, LLMConfig, get_llm, open_cache, parse_llm_spec
    from fabula.llm._structured import JsonAnswer, ask_json, ask_json_many, require_usable_answers
    from fabula.llm._tokens import (
        APPROXIMATE_TOKENIZER,
        TokenSpans,
        approximate_token_spans,
        default_token_counter,
        heuristic_token_count,
    )
    from fabula.llm._types import ChatMessage, GenerateOptions, Generation, Prompt, UsageSummary, to_messages

_EXPORTS = {
    "DEFAULT_TIMEOUT": "fabula.llm._settings",
    "LLM": "fabula.llm._base",
    "STRUCTURED_MODES": "fabula.llm._settings",
    "RequestError": "fabula.llm._base",
    "TransientError": "fabula.llm._base",
    "redact_credentials": "fabula.llm._base",
    "CACHE_FILE_NAME": "fabula.llm._cache",
    "ResponseCache": "fabula.llm._cache",
    "default_cache_dir": "fabula.llm._cache",
    "ParseError": "fabula.llm._parse",
    "parse_json_answer": "fabula.llm._parse",
    "CallRecord": "fabula.llm._record",
    "CallRecorder": "fabula.llm._record",
    "record_calls": "fabula.llm._record",
    "ScriptedLLM": "fabula.llm._scripted",
    "ScriptExhaustedError": "fabula.llm._scripted",
    "BACKENDS": "fabula.llm._spec",
    "LLMConfig": "fabula.llm._spec",
    "get_llm": "fabula.llm._spec",
    "open_cache": "fabula.llm._spec",
    "parse_llm_spec": "fabula.llm._spec",
    "JsonAnswer": "fabula.llm._structured",
    "ask_json": "fabula.llm._structured",
    "ask_json_many": "fabula.llm._structured",
    "require_usable_answers": "fabula.llm._structured",
    "APPROXIMATE_TOKENIZER": "fabula.llm._tokens",
    "TokenSpans": "fabula.llm._tokens",
    "approximate_token_spans": "fabula.llm._tokens",
    "default_token_counter": "fabula.llm._tokens",
    "heuristic_token_count": "fabula.llm._tokens",
    "ChatMessage": "fabula.llm._types",
    "GenerateOptions": "fabula.llm._types",
    "Generation": "fabula.llm._types",
    "Prompt": "fabula.llm._types",
    "UsageSummary": "fabula.llm._types",
    "to_messages": "fabula.llm._types",
}


__getattr__, __dir__ = lazy_exports("fabula.llm", _EXPORTS, globals())


__all__ = [
    "APPROXIMATE_TOKENIZER",
    "BACKENDS",
    "CACHE_FILE_NAME",
    "DEFAULT_TIMEOUT",
    "LLM",
    "STRUCTURED_MODES",
    "CallRecord",
    "CallRecorder",
    "ChatMessage",
    "GenerateOptions",
    "Generation",
    "JsonAnswer",
    "LLMConfig",
    "ParseError",
    "Prompt",
    "RequestError",
    "ResponseCache",
    "ScriptExhaustedError",
    "ScriptedLLM",
    "TokenSpans",
    "TransientError",
    "UsageSummary",
    "approximate_token_spans",
    "ask_json",
    "ask_json_many",
    "default_cache_dir",
    "default_token_counter",
    "get_llm",
    "heuristic_token_count",
    "open_cache",
    "parse_json_answer",
    "parse_llm_spec",
    "record_calls",
    "redact_credentials",
    "require_usable_answers",
    "to_messages",
]
