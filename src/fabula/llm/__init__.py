"""The LLM layer: every LLM method in fabula goes through one interface, cached, concurrent and robust.

>>> llm = get_llm("openai:my-model@http://127.0.0.1:8080/v1")      # doctest: +SKIP
>>> llm.generate("Who says 'Elementary'?", GenerateOptions(max_tokens=20)).text  # doctest: +SKIP
"""

from fabula.llm._base import (
    DEFAULT_TIMEOUT,
    LLM,
    STRUCTURED_MODES,
    RequestError,
    TransientError,
    redact_credentials,
)
from fabula.llm._cache import CACHE_FILE_NAME, ResponseCache, default_cache_dir
from fabula.llm._parse import ParseError, parse_json_answer
from fabula.llm._record import CallRecord, CallRecorder, record_calls
from fabula.llm._scripted import ScriptedLLM, ScriptExhaustedError
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
