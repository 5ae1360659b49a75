"""One spec string chooses a backend everywhere (CLI ``--llm``, Python API).

``openai:MODEL``                      OpenAI (key from FABULA_API_KEY or OPENAI_API_KEY)
``openai:MODEL@http://host:port/v1``  any OpenAI-compatible server (vLLM, llama.cpp server, Ollama, ...)
``llamacpp:/path/model.gguf``         llama-cpp-python in-process (extra ``fabula[llamacpp]``)
``hf:/path/to/model``                 transformers in-process (extra ``fabula[hf]``)
``mock`` / ``mock:TEXT``              a scripted model answering TEXT (tests, dry runs)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fabula.errors import ConfigError
from fabula.llm._base import LLM
from fabula.llm._cache import CACHE_FILE_NAME, ResponseCache, default_cache_dir

_URL_SUFFIX = re.compile(r"^(?P<model>.+?)@(?P<url>https?://\S+)$")
BACKENDS = ("openai", "llamacpp", "hf", "mock")


def open_cache(cache: bool | str | Path) -> ResponseCache | None:
    """The response cache a ``cache=`` argument asks for: True = default file, a path, or off."""
    if cache is False or cache is None:
        return None
    if cache is True:
        return ResponseCache(default_cache_dir() / CACHE_FILE_NAME)
    return ResponseCache(Path(cache))


def get_llm(
    spec: str,
    *,
    cache: bool | str | Path = True,
    concurrency: int = 4,
    max_retries: int = 5,
    retry_base_delay: float = 1.0,
    timeout: float = 300.0,
    **backend_options: Any,
) -> LLM:
    """The model a spec string names (see the module docstring), with cache and concurrency limit."""
    spec = spec.strip()
    backend, _, rest = spec.partition(":")
    backend = backend.lower()
    common: dict[str, Any] = {
        "cache": open_cache(cache),
        "concurrency": concurrency,
        "max_retries": max_retries,
        "retry_base_delay": retry_base_delay,
    }
    if backend == "mock":
        from fabula.llm._scripted import ScriptedLLM

        return ScriptedLLM(rest or "{}", spec=spec, **common)
    if not rest:
        raise ConfigError(
            f"malformed LLM spec: expected BACKEND:MODEL with BACKEND one of {', '.join(BACKENDS)}", spec
        )
    if backend == "openai":
        from fabula.llm._openai import OpenAILLM

        match = _URL_SUFFIX.match(rest)
        model, base_url = (match["model"], match["url"].rstrip("/")) if match else (rest, None)
        return OpenAILLM(spec, model, base_url, timeout=timeout, **common, **backend_options)
    if backend == "llamacpp":
        from fabula.llm._llamacpp import LlamaCppLLM

        return LlamaCppLLM(spec, rest, **common, **backend_options)
    if backend == "hf":
        from fabula.llm._hf import HuggingFaceLLM

        return HuggingFaceLLM(spec, rest, **common, **backend_options)
    raise ConfigError(f"unknown LLM backend {backend!r}; use one of {', '.join(BACKENDS)}", spec)
