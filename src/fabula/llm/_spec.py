"""One spec string chooses a backend everywhere (CLI ``--llm``, Python API).

``openai:MODEL``                      OpenAI (key from FABULA_API_KEY or OPENAI_API_KEY)
``openai:MODEL@http://host:port/v1``  any OpenAI-compatible server (vLLM, llama.cpp server, Ollama, ...)
``llamacpp:/path/model.gguf``         llama-cpp-python in-process (extra ``fabula[llamacpp]``)
``llamacpp:/path/model.gguf?threads=N``  the same with N CPU threads (default: every core; on a
                                      machine shared with other jobs, fewer threads can be faster)
``hf:/path/to/model``                 transformers in-process (extra ``fabula[hf]``)
``mock`` / ``mock:TEXT``              a scripted model answering TEXT (tests, dry runs)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fabula.errors import ConfigError
from fabula.llm._base import LLM, redact_credentials
from fabula.llm._cache import CACHE_FILE_NAME, ResponseCache, default_cache_dir
from fabula.llm._settings import DEFAULT_TIMEOUT, STRUCTURED_MODES

_URL_SUFFIX = re.compile(r"^(?P<model>.+?)@(?P<url>https?://\S+)$")
_THREADS_SUFFIX = re.compile(r"^(?P<model>.+?)\?threads=(?P<threads>\S*)$")
BACKENDS = ("openai", "llamacpp", "hf", "mock")


def open_cache(cache: bool | str | Path) -> ResponseCache | None:
    """The response cache a ``cache=`` argument asks for: True = default file, a path, or off."""
    if cache is False or cache is None:
        return None
    if cache is True:
        return ResponseCache(default_cache_dir() / CACHE_FILE_NAME)
    return ResponseCache(Path(cache))


@dataclass(frozen=True, slots=True)
class LLMConfig:
    """A parsed ``--llm`` spec and the options to open it with: what a caller hands to code that opens its
    own model (a worker process, one model per book), so that only the CLI ever parses spec strings.

    Plain data, so it pickles; `open` makes the `LLM`. ``options`` holds backend keyword arguments.
    """

    spec: str
    backend: str
    model: str
    base_url: str | None = None
    cache: bool | str | Path = True
    concurrency: int = 4
    max_retries: int = 5
    retry_base_delay: float = 1.0
    timeout: float = DEFAULT_TIMEOUT
    structured: str = "auto"
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def name(self) -> str:
        """The spec safe to record in settings and logs: credentials in a server URL removed."""
        return redact_credentials(self.spec)

    def open(self) -> LLM:
        """The model, with its response cache and concurrency limit."""
        common: dict[str, Any] = {
            "cache": open_cache(self.cache),
            "concurrency": self.concurrency,
            "max_retries": self.max_retries,
            "retry_base_delay": self.retry_base_delay,
            "structured": self.structured,
        }
        extra = dict(self.options)
        if self.backend == "mock":
            from fabula.llm._scripted import ScriptedLLM

            return ScriptedLLM(self.model or "{}", spec=self.spec, **common)
        if self.backend == "openai":
            from fabula.llm._openai import OpenAILLM

            return OpenAILLM(self.spec, self.model, self.base_url, timeout=self.timeout, **common, **extra)
        if self.backend == "llamacpp":
            from fabula.llm._llamacpp import LlamaCppLLM

            return LlamaCppLLM(self.spec, self.model, **common, **extra)
        from fabula.llm._hf import HuggingFaceLLM

        return HuggingFaceLLM(self.spec, self.model, **common, **extra)


def parse_llm_spec(
    spec: str,
    *,
    cache: bool | str | Path = True,
    concurrency: int = 4,
    max_retries: int = 5,
    retry_base_delay: float = 1.0,
    timeout: float = DEFAULT_TIMEOUT,
    structured: str = "auto",
    **backend_options: Any,
) -> LLMConfig:
    """Check and split a spec string (see the module docstring) without opening anything."""
    spec = spec.strip()
    backend, _, rest = spec.partition(":")
    backend = backend.lower()
    base_url: str | None = None
    if structured not in STRUCTURED_MODES:
        raise ConfigError(
            f"unknown structured-output mode {structured!r}; use one of {', '.join(STRUCTURED_MODES)}"
        )
    if backend != "mock" and not rest:
        raise ConfigError(
            f"malformed LLM spec: expected BACKEND:MODEL with BACKEND one of {', '.join(BACKENDS)}",
            redact_credentials(spec),
        )
    if backend not in BACKENDS:
        raise ConfigError(
            f"unknown LLM backend {backend!r}; use one of {', '.join(BACKENDS)}", redact_credentials(spec)
        )
    if backend == "openai" and (match := _URL_SUFFIX.match(rest)):
        rest, base_url = match["model"], match["url"].rstrip("/")
    if backend == "llamacpp" and (match := _THREADS_SUFFIX.match(rest)):
        rest, threads = match["model"], match["threads"]
        if not threads.isdigit() or int(threads) < 1:
            raise ConfigError(f"threads must be a whole number >= 1, not {threads!r}", spec)
        if backend_options.get("n_threads", int(threads)) != int(threads):
            raise ConfigError("threads given twice with different values (spec and n_threads)", spec)
        backend_options["n_threads"] = int(threads)
    return LLMConfig(
        spec=spec,
        backend=backend,
        model=rest,
        base_url=base_url,
        cache=cache,
        concurrency=concurrency,
        max_retries=max_retries,
        retry_base_delay=retry_base_delay,
        timeout=timeout,
        structured=structured,
        options=tuple(sorted(backend_options.items())),
    )


def get_llm(
    spec: str,
    *,
    cache: bool | str | Path = True,
    concurrency: int = 4,
    max_retries: int = 5,
    retry_base_delay: float = 1.0,
    timeout: float = DEFAULT_TIMEOUT,
    structured: str = "auto",
    **backend_options: Any,
) -> LLM:
    """The model a spec string names (see the module docstring), with cache and concurrency limit.

    ``timeout`` is the seconds one request may take, all of it (OpenAI-compatible servers); a request
    that runs out of time is retried once, with a message on stderr for every retry. ``structured``
    is how JSON answers are asked for: ``auto`` (the strongest mode the endpoint accepts), ``schema``,
    ``json`` or ``off`` (docs/llm.md).
    """
    return parse_llm_spec(
        spec,
        cache=cache,
        concurrency=concurrency,
        max_retries=max_retries,
        retry_base_delay=retry_base_delay,
        timeout=timeout,
        structured=structured,
        **backend_options,
    ).open()
