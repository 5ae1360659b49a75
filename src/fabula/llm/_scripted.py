"""A scripted in-process model for tests and dry runs (like inspect_ai's ``mockllm``).

``mock`` or ``mock:TEXT`` answers TEXT (default ``{}``) to everything; in Python, `ScriptedLLM` takes a
function from messages to answer text, or a list of answers given in turn (one request more than the
list holds is an error, not a silent repeat: a test that asks more than it scripted should fail).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from fabula.llm._base import LLM
from fabula.llm._tokens import heuristic_token_count
from fabula.llm._types import ChatMessage, GenerateOptions, Generation

Responder = Callable[[list[ChatMessage]], str]


class ScriptExhaustedError(RuntimeError):
    """A `ScriptedLLM` given a list of answers was asked once more than the list holds."""


class ScriptedLLM(LLM):
    """Answers from a script instead of a model; counts tokens with the heuristic counter."""

    backend = "scripted"

    def __init__(
        self, answers: Responder | Sequence[str] | str = "{}", spec: str = "mock", **kwargs: Any
    ) -> None:
        super().__init__(spec, "scripted", **kwargs)
        self._answers = answers
        self._turn = 0
        self._turn_lock = threading.Lock()
        self.requests: list[list[ChatMessage]] = []

    def _complete(self, messages: list[ChatMessage], options: GenerateOptions) -> Generation:
        with self._turn_lock:
            self.requests.append(messages)
            turn = self._turn
            self._turn += 1
        if isinstance(self._answers, str):
            text = self._answers
        elif callable(self._answers):
            text = self._answers(messages)
        elif turn < len(self._answers):
            text = self._answers[turn]
        else:
            raise ScriptExhaustedError(
                f"the scripted model was asked {turn + 1} times but holds {len(self._answers)} answers"
            )
        prompt_tokens = sum(heuristic_token_count(m.content) for m in messages)
        return Generation(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=heuristic_token_count(text),
            finish_reason="stop",
        )

    def _backend_token_counter(self) -> tuple[Any, str] | None:
        return heuristic_token_count, "heuristic(words*1.2)"
