"""The OpenAI-compatible backend (official ``openai`` SDK): OpenAI, vLLM, llama.cpp's server, Ollama, ...

The SDK's own retries are switched off so that retries, backoff and their counting live in one place
(`fabula.llm._base`). The API key comes from ``FABULA_API_KEY`` or ``OPENAI_API_KEY``; servers given
with an explicit ``@URL`` need none. The key is never part of a request dict, so never cached or logged.
"""

from __future__ import annotations

import os
from typing import Any

from fabula.errors import BackendError
from fabula.llm._base import DEFAULT_TIMEOUT, LLM, RequestError, TransientError
from fabula.llm._types import ChatMessage, GenerateOptions, Generation

API_KEY_VARIABLES = ("FABULA_API_KEY", "OPENAI_API_KEY")


class OpenAILLM(LLM):
    """Chat completions over the OpenAI HTTP API."""

    backend = "openai"

    def __init__(
        self,
        spec: str,
        model: str,
        base_url: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        **kwargs: Any,
    ) -> None:
        super().__init__(spec, model, endpoint=base_url, **kwargs)
        self.timeout = timeout
        try:
            import openai
        except ImportError as exc:
            raise BackendError(
                "the openai backend needs the 'openai' package: pip install 'fabula[llm]'", spec
            ) from exc
        api_key = next((os.environ[v] for v in API_KEY_VARIABLES if os.environ.get(v)), None)
        if api_key is None:
            if base_url is None:
                raise BackendError(
                    "no API key: set FABULA_API_KEY or OPENAI_API_KEY (or give a local server as MODEL@URL)",
                    spec,
                )
            api_key = "not-needed"  # local OpenAI-compatible servers ignore the key
        self._openai = openai
        self._client = openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout)

    def _complete(self, messages: list[ChatMessage], options: GenerateOptions) -> Generation:
        openai = self._openai
        arguments: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in messages],
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
        }
        if options.seed is not None:
            arguments["seed"] = options.seed
        if options.stop:
            arguments["stop"] = list(options.stop)
        if options.top_p is not None:
            arguments["top_p"] = options.top_p
        if options.json_schema is not None:  # OpenAI structured outputs; vLLM and llama.cpp's server too
            arguments["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": options.json_schema},
            }
        elif options.json_mode:
            arguments["response_format"] = {"type": "json_object"}
        try:
            response = self._client.chat.completions.create(**arguments)
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise BackendError(
                f"authentication failed (HTTP {exc.status_code}); check FABULA_API_KEY / OPENAI_API_KEY",
                self.spec,
            ) from exc
        except openai.NotFoundError as exc:
            raise BackendError(
                f"model {self.model!r} not found at this endpoint (HTTP 404)", self.spec
            ) from exc
        except openai.RateLimitError as exc:
            raise TransientError("rate limited (HTTP 429)", _retry_after(exc)) from exc
        except openai.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code == 408:
                raise TransientError(f"server error (HTTP {exc.status_code})", _retry_after(exc)) from exc
            raise RequestError(f"request rejected (HTTP {exc.status_code}): {_message(exc)}") from exc
        except openai.APITimeoutError as exc:
            raise TransientError(f"no answer within {self.timeout:g} s (--timeout)", timeout=True) from exc
        except openai.APIConnectionError as exc:
            raise TransientError(f"cannot reach the server: {exc.__cause__ or exc}") from exc
        if not response.choices:
            raise TransientError("the server answered with no choices")
        choice = response.choices[0]
        usage = response.usage
        return Generation(
            text=choice.message.content or "",
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            finish_reason=choice.finish_reason,
        )

    def _prompt_logprobs(self, text: str) -> list[float] | None:
        """Prompt log-probabilities via the completions endpoint with ``echo`` (vLLM and similar servers)."""
        try:
            response = self._client.completions.create(
                model=self.model, prompt=text, max_tokens=1, echo=True, logprobs=0, temperature=0.0
            )
        except self._openai.OpenAIError:
            return None
        if not response.choices or response.choices[0].logprobs is None:
            return None
        values = response.choices[0].logprobs.token_logprobs or []
        # echo returns the prompt tokens then the one generated token; the first prompt token has no value
        prompt_values = [v for v in values[:-1] if v is not None]
        return [float(v) for v in prompt_values] or None

    def _release(self) -> None:
        self._client.close()


def _retry_after(exc: Any) -> float | None:
    """Seconds to wait from a ``Retry-After`` (or ``retry-after-ms``) header, if the server sent one."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    try:
        if (ms := headers.get("retry-after-ms")) is not None:
            return float(ms) / 1000.0
        if (seconds := headers.get("retry-after")) is not None:
            return float(seconds)
    except ValueError:
        return None  # an HTTP date: fall back to exponential backoff
    return None


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:200]
    return str(exc)[:200]
