"""The data that goes in and out of every LLM backend: messages, options, generations, usage.

Frozen pydantic models so requests hash and serialise the same way everywhere (the cache key is built
from them) and results can go straight into JSON reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from fabula._words import counted

Role = Literal["system", "user", "assistant"]


class ChatMessage(BaseModel):
    """One chat turn."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str


class GenerateOptions(BaseModel):
    """How to generate. Every field is part of the cache key; ``None`` means the backend's default."""

    model_config = ConfigDict(frozen=True)

    max_tokens: int = Field(default=512, ge=1)
    temperature: float = Field(default=0.0, ge=0.0)
    seed: int | None = 0
    stop: tuple[str, ...] = ()
    json_mode: bool = False  # ask for a JSON object where the backend can enforce it
    # a JSON Schema the answer must follow, where the backend can enforce it (llama.cpp grammar, OpenAI
    # structured outputs, vLLM / llama.cpp server guided decoding); implies json_mode; ignored by hf
    json_schema: dict[str, Any] | None = None
    top_p: float | None = None


class Generation(BaseModel):
    """What a backend answered (or why it could not): text, token counts, time, finish reason."""

    text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0  # model time of the original call (0 would hide cost on a cache hit)
    finish_reason: str | None = None  # "stop", "length", ... as the backend says
    cached: bool = False
    error: str | None = None  # set when the request failed after retries; text is then empty

    @property
    def ok(self) -> bool:
        return self.error is None


class UsageSummary(BaseModel):
    """Counters for one LLM object over a run: printed at the end of CLI runs, stored in reports."""

    spec: str = ""
    token_counter: str = ""
    calls: int = 0  # requests that reached the model (not cache hits)
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0  # requests that failed after retries
    invalid: int = 0  # answers that arrived but could not be used (e.g. unparseable); never cached
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0  # summed time of model calls (concurrent calls overlap)

    def line(self) -> str:
        """A one-line human summary, e.g. for the end of a CLI run."""
        return (
            f"LLM {self.spec}: {counted(self.calls, 'call')}, {counted(self.cache_hits, 'cache hit')}, "
            f"{counted(self.retries, 'retry', 'retries')}, {counted(self.failures, 'failure')}, "
            f"{counted(self.invalid, 'unusable answer')}, {self.prompt_tokens:,} prompt + "
            f"{counted(self.completion_tokens, 'completion token')}, {self.model_seconds:.1f} s model time "
            f"(tokens counted by {self.token_counter})"
        )


Prompt = str | Sequence[ChatMessage | dict[str, str]]


def to_messages(prompt: Prompt) -> list[ChatMessage]:
    """Normalise a plain prompt (one user turn) or a list of messages/dicts to ChatMessages."""
    if isinstance(prompt, str):
        return [ChatMessage(role="user", content=prompt)]
    messages = [m if isinstance(m, ChatMessage) else ChatMessage.model_validate(m) for m in prompt]
    if not messages:
        raise ValueError("a prompt needs at least one message")
    return messages
