"""Errors fabula reports to users as one line: the file (or thing) and the problem.

Library code raises these; the CLI prints ``fabula: error: <where>: <problem>`` and exits non-zero,
never with a traceback.
"""

from __future__ import annotations

from pathlib import Path


class FabulaError(Exception):
    """Base class for errors that are the user's input, not a bug in fabula."""

    exit_code = 2

    def __init__(self, problem: str, where: str | Path | None = None) -> None:
        self.problem = problem
        self.where = str(where) if where is not None else None
        super().__init__(self.one_line())

    def one_line(self) -> str:
        text = f"{self.where}: {self.problem}" if self.where else self.problem
        return " ".join(text.split())


class InputError(FabulaError):
    """A file the user gave cannot be read as what it should be (book, character list, data set)."""


class OutputError(FabulaError):
    """An output path cannot be written (a read-only folder, a file where a folder should be)."""


class ConfigError(FabulaError):
    """An option or specification (e.g. an LLM spec string) is malformed or inconsistent."""


class CacheError(ConfigError):
    """The LLM response cache failed (a damaged file, a full disk) while a command used it: the user's
    file, not the request. The one line gives ``advice`` for a one-shot command; a long-running server
    gives ``failure`` with its own ``server_advice`` (`fabula serve` has no ``--no-cache``)."""

    def __init__(self, failure: str, where: str | Path | None, *, advice: str, server_advice: str) -> None:
        self.failure = failure
        self.server_advice = server_advice
        super().__init__(f"{failure}: {advice}", where)


def unused_model(method: str, llm_methods: list[str] | tuple[str, ...], option: str = "--llm") -> ConfigError:
    """The error for a model (``--llm``, or an LLM-only option) given to a method that takes none: said,
    not ignored (an evaluation's report would name a model that answered nothing)."""
    return ConfigError(
        f"the {method} method uses no model; {option} is for --method {', '.join(llm_methods)}", option
    )


class BackendError(FabulaError):
    """A model backend failed in a way retries cannot fix (auth error, missing model, missing extra)."""

    exit_code = 3
