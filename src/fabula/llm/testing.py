"""A real OpenAI-compatible HTTP server on 127.0.0.1 with scripted answers, for tests and benchmarks.

Speaks ``POST /v1/chat/completions`` (and ``/v1/completions`` with ``echo`` for prompt log-probabilities,
one per whitespace-separated word, scripted by ``logprobs(words)`` when given) well enough for the
official SDK. Counts requests, and can inject failures: a list of HTTP statuses to
answer first (``fail_with=[429, 500]`` with ``retry_after``), or errors after K successful requests.

>>> with ScriptedOpenAIServer(lambda messages: '{"1": "Alice"}') as server:  # doctest: +SKIP
...     llm = get_llm(f"openai:test@{server.url}")
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answerer = Callable[[list[dict[str, str]]], str]


class ScriptedOpenAIServer:
    """An OpenAI chat-completions server answering with ``answer(messages)``; use as a context manager."""

    def __init__(
        self,
        answer: Answerer | str = "{}",
        *,
        fail_with: list[int] | None = None,
        retry_after: float | None = None,
        fail_after: int | None = None,
        delay: float = 0.0,
        required_key: str | None = None,
        logprobs: Callable[[list[str]], list[float]] | None = None,
    ) -> None:
        self.answer: Answerer = (lambda _messages: answer) if isinstance(answer, str) else answer
        # prompt words -> one log-probability per word after the first (the /v1/completions echo answer)
        self.logprobs = logprobs
        self.fail_with = list(fail_with or [])
        self.retry_after = retry_after
        self.fail_after = fail_after  # answer 500 to every request after this many successes
        self.delay = delay  # seconds before each answer; cut short when the server stops
        self.required_key = required_key
        self.requests = 0  # every HTTP request received
        self.successes = 0
        self.bodies: list[dict[str, Any]] = []
        self.authorizations: list[str] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = _QuietHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> ScriptedOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *args: object) -> None:
        self._stopping.set()  # a long ``delay`` ends now: no handler outlives the test that used it
        self._server.shutdown()
        self._server.server_close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in separate writes

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests += 1
                    server.bodies.append(body)
                    server.authorizations.append(self.headers.get("Authorization", ""))
                    status = server.fail_with.pop(0) if server.fail_with else None
                    if (
                        status is None
                        and server.fail_after is not None
                        and server.successes >= server.fail_after
                    ):
                        status = 500
                if server.required_key is not None and self.headers.get("Authorization") != (
                    f"Bearer {server.required_key}"
                ):
                    status = 401
                if status is not None:
                    self._send(status, {"error": {"message": f"scripted HTTP {status}", "type": "scripted"}})
                    return
                if server.delay:
                    server._stopping.wait(server.delay)
                if self.path.endswith("/chat/completions"):
                    messages = body.get("messages", [])
                    text = server.answer(messages)
                    payload = _chat_response(body.get("model", "scripted"), messages, text)
                elif self.path.endswith("/completions"):
                    payload = _echo_response(
                        body.get("model", "scripted"), str(body.get("prompt", "")), server.logprobs
                    )
                else:
                    self._send(404, {"error": {"message": "no such route"}})
                    return
                with server._lock:
                    server.successes += 1
                self._send(200, payload)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 429 and server.retry_after is not None:
                    self.send_header("Retry-After", str(server.retry_after))
                self.end_headers()
                self.wfile.write(data)

        return Handler


class _QuietHTTPServer(ThreadingHTTPServer):
    """A client that hangs up (a cancelled or interrupted run) is normal here, not a traceback on stderr."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _chat_response(model: str, messages: list[dict[str, str]], text: str) -> dict[str, Any]:
    prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": len(text.split()),
            "total_tokens": prompt_tokens + len(text.split()),
        },
    }


def _echo_response(
    model: str, prompt: str, logprobs: Callable[[list[str]], list[float]] | None = None
) -> dict[str, Any]:
    words = prompt.split()
    scripted = logprobs(words) if logprobs is not None else [-1.0 - (i % 3) for i in range(1, len(words))]
    token_logprobs: list[float | None] = [None, *scripted, -0.5]
    return {
        "id": "cmpl-scripted",
        "object": "text_completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "text": prompt + " x",
                "finish_reason": "length",
                "logprobs": {
                    "tokens": [*words, "x"],
                    "token_logprobs": token_logprobs,
                    "top_logprobs": None,
                    "text_offset": list(range(len(words) + 1)),
                },
            }
        ],
        "usage": {"prompt_tokens": len(words), "completion_tokens": 1, "total_tokens": len(words) + 1},
    }
