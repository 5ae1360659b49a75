"""Ask for JSON and get a parsed value or a recorded failure — never an exception for a bad answer.

The rule every LLM method in fabula follows: an answer that cannot be parsed is retried once with a
reminder of the expected format; if that fails too the item carries ``error`` and callers count it wrong.
An unparseable answer is never cached (a re-run asks again) and is counted in ``usage.invalid``. A run in
which no answer at all could be used is not a result: `require_usable_answers` turns it into an error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from fabula.errors import BackendError
from fabula.llm._base import LLM
from fabula.llm._parse import ParseError, parse_json_answer
from fabula.llm._types import ChatMessage, GenerateOptions, Generation, Prompt, to_messages

DEFAULT_REMINDER = (
    "Your answer could not be read as JSON ({problem}). Answer again with only the JSON object, "
    "no other text."
)


@dataclass(slots=True)
class JsonAnswer:
    """A parsed answer (``value``), or why there is none (``error``), with every generation it took."""

    value: Any = None
    error: str | None = None
    generations: list[Generation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def attempts(self) -> int:
        return len(self.generations)


def ask_json_many(
    llm: LLM,
    prompts: Sequence[Prompt],
    schema: type[BaseModel] | None = None,
    options: GenerateOptions | Sequence[GenerateOptions] | None = None,
    *,
    reminder: str = DEFAULT_REMINDER,
    progress: str | None = None,
    cacheable: Callable[[int, Any], bool] | None = None,
) -> list[JsonAnswer]:
    """Answers for many prompts in order; unparseable ones are asked once more with ``reminder``.

    ``options`` is one set for all prompts or one per prompt (e.g. a JSON schema per prompt).
    ``cacheable(index, value)``: whether the parsed answer to prompt ``index`` is worth keeping (e.g. it
    names at least one of the items asked about); one that parses but is not is returned as it is, but
    not cached, so a re-run asks again.
    """
    per_prompt = _options_per_prompt(options, len(prompts))
    conversations = [to_messages(p) for p in prompts]
    answers = [JsonAnswer() for _ in prompts]

    def validator(index: int) -> Callable[[str], bool]:
        def usable(text: str) -> bool:
            try:
                value = parse_json_answer(text, schema)
            except ParseError:
                return False
            return cacheable is None or cacheable(index, value)

        return usable

    validators = [validator(i) for i in range(len(prompts))]
    first = llm.generate_many(conversations, per_prompt, progress=progress, validate=validators)
    retry_indices: list[int] = []
    retry_prompts: list[list[ChatMessage]] = []
    for index, generation in enumerate(first):
        answer = answers[index]
        answer.generations.append(generation)
        problem = _try_parse(answer, generation, schema)
        if problem is not None and generation.ok:
            retry_indices.append(index)
            retry_prompts.append(
                [
                    *conversations[index],
                    ChatMessage(role="assistant", content=generation.text),
                    ChatMessage(role="user", content=reminder.format(problem=problem)),
                ]
            )
    if retry_prompts:
        label = f"{progress} (retries)" if progress else None
        for index, generation in zip(
            retry_indices,
            llm.generate_many(
                retry_prompts,
                [per_prompt[i] for i in retry_indices],
                progress=label,
                validate=[validators[i] for i in retry_indices],
            ),
            strict=True,
        ):
            answers[index].generations.append(generation)
            _try_parse(answers[index], generation, schema)
    return answers


def require_usable_answers(llm: LLM, answers: Sequence[JsonAnswer], what: str = "answers") -> None:
    """Raise `BackendError` when ``answers`` is not empty and not one of them could be used.

    A run whose every request failed (server down, HTTP 500 throughout) or whose every answer was
    unparseable has produced nothing: the caller must stop before writing or replacing any output.
    """
    if not answers or any(a.ok for a in answers):
        return
    errors = [a.error for a in answers if a.error]
    example = errors[0] if errors else "no answer"
    raise BackendError(
        f"none of the {len(answers)} {what} could be used (e.g. {example}); nothing was written",
        llm.spec,
    )


def _options_per_prompt(
    options: GenerateOptions | Sequence[GenerateOptions] | None, count: int
) -> list[GenerateOptions | None]:
    if options is None or isinstance(options, GenerateOptions):
        return [options] * count
    if len(options) != count:
        raise ValueError(f"got {len(options)} option sets for {count} prompts")
    return list(options)


def ask_json(
    llm: LLM, prompt: Prompt, schema: type[BaseModel] | None = None, options: GenerateOptions | None = None
) -> JsonAnswer:
    """One prompt's parsed answer (see `ask_json_many`)."""
    return ask_json_many(llm, [prompt], schema, options)[0]


def _try_parse(answer: JsonAnswer, generation: Generation, schema: type[BaseModel] | None) -> str | None:
    """Fill ``answer`` from ``generation``; the parse problem, if any."""
    if generation.error is not None:
        answer.value, answer.error = None, f"request failed: {generation.error}"
        return answer.error
    try:
        answer.value, answer.error = parse_json_answer(generation.text, schema), None
        return None
    except ParseError as exc:
        answer.value, answer.error = None, f"unparseable answer: {exc.problem}"
        return exc.problem
