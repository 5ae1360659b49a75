"""A real OpenAI-compatible HTTP server on 127.0.0.1 with scripted answers, for tests and benchmarks.

Speaks ``POST /v1/chat/completions`` (and ``/v1/completions`` with ``echo`` for prompt log-probabilities,
one per whitespace-separated word, scripted by ``logprobs(words)`` when given) well enough for the
official SDK. Counts requests, and can inject failures: a list of HTTP statuses to
answer first (``fail_with=[429, 500]``; with ``retry_after=S`` a 429 or 503 asks the client to retry in S
seconds, as the ``Retry-After`` header does), or errors after K successful requests.

It can also imitate what real servers were measured to do (docs/llm.md, "Servers"):

* ``owned_by="me"`` answers ``GET /v1/models`` as llama-cpp-python's server does (``"llamacpp"``: llama.cpp's
  server, ``"vllm"``: vLLM); ``tokenize=True`` then offers that server's tokenizer endpoint (one token per
  word, plus a BOS token for llama-cpp-python, which adds one);
* ``reject_formats={"json_schema"}`` answers a ``response_format`` of those types with HTTP 500 and a
  pydantic validation body, as llama-cpp-python 0.3 does;
* ``echo_layout``: ``"prompt+generated"`` (vLLM: the prompt's values, the first None, then the generated
  token), ``"prompt-only"`` (llama-cpp-python with echo: no generated entry), ``"shifted"`` (prompt-only,
  and each value is the one of the token before: llama-cpp-python with a model without BOS), ``"none"``
  (no echo: the generated token only, as llama.cpp's server);
* ``one_at_a_time=True`` answers one request at a time, the others wait (llama-cpp-python's lock);
* ``trickle=S`` sends the answer's body one byte every S seconds;
* ``token_limit=True`` stops a chat answer at the request's ``max_tokens`` as a model does (one token
  per word here, as ``usage`` counts them): the answer is cut there and ``finish_reason`` is ``"length"``.

>>> with ScriptedOpenAIServer(lambda messages: '{"1": "Alice"}') as server:  # doctest: +SKIP
...     llm = get_llm(f"openai:test@{server.url}")
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answerer = Callable[[list[dict[str, str]]], str]
BOS_ID = 1_000_000  # the imitated llama-cpp-python tokenizer's BOS token


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
        owned_by: str | None = None,
        tokenize: bool = False,
        reject_formats: set[str] | frozenset[str] = frozenset(),
        echo_layout: str = "prompt+generated",
        one_at_a_time: bool = False,
        trickle: float = 0.0,
        token_limit: bool = False,
    ) -> None:
        self.answer: Answerer = (lambda _messages: answer) if isinstance(answer, str) else answer
        # prompt words -> one log-probability per word after the first (the /v1/completions echo answer)
        self.logprobs = logprobs
        self.fail_with = list(fail_with or [])
        self.retry_after = retry_after
        self.fail_after = fail_after  # answer 500 to every request after this many successes
        self.delay = delay  # seconds before each answer; cut short when the server stops
        self.required_key = required_key
        self.owned_by = owned_by
        self.tokenize = tokenize
        self.reject_formats = set(reject_formats)
        if echo_layout not in ("prompt+generated", "prompt-only", "shifted", "none"):
            raise ValueError(f"unknown echo layout {echo_layout!r}")
        self.echo_layout = echo_layout
        self.one_at_a_time = one_at_a_time
        self.trickle = trickle
        self.token_limit = token_limit
        self.peak_in_flight = 0  # most model requests in flight at once (answered or waiting)
        self._in_flight = 0
        self._one_lock = threading.Lock()
        self.gets: list[str] = []  # paths of GET requests (GET /v1/models)
        self.tokenized = 0  # tokenizer endpoint calls (not counted in `requests`)
        self._vocabulary: dict[str, int] = {}  # the imitated tokenizer's pieces and their ids
        self._pieces: list[str] = []
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

            def do_GET(self) -> None:
                with server._lock:
                    server.gets.append(self.path)
                if self.path.rstrip("/").endswith("/v1/models") and server.owned_by is not None:
                    model = {
                        "id": "scripted",
                        "object": "model",
                        "owned_by": server.owned_by,
                        "permissions": [],
                    }
                    self._send(200, {"object": "list", "data": [model]})
                    return
                self._send(404, {"detail": "Not Found"})

            def _tokenize(self, body: dict[str, Any]) -> bool:
                """Answer a tokenizer endpoint of the imitated server; False when this is none. Tokens are
                words with the whitespace before them (ids from a vocabulary made as they come)."""
                owner = server.owned_by or ""
                paths = {"me": "/extras/tokenize", "llamacpp": "/tokenize", "vllm": "/tokenize"}
                if server.tokenize and owner == "me" and self.path == "/extras/detokenize":
                    pieces = [server._pieces[i] for i in body.get("tokens", [])]
                    self._send(200, {"text": "".join(pieces)})
                    return True
                if not server.tokenize or self.path != paths.get(owner):
                    return False
                text = str(body.get({"me": "input", "llamacpp": "content", "vllm": "prompt"}[owner], ""))
                pieces = re.findall(r"\s*\S+|\s+", text)
                with server._lock:
                    server.tokenized += 1
                    for piece in pieces:
                        if piece not in server._vocabulary:
                            server._vocabulary[piece] = len(server._pieces)
                            server._pieces.append(piece)
                    ids = [server._vocabulary[piece] for piece in pieces]
                tokens: list[Any] = ids
                if owner == "me":
                    tokens = [BOS_ID, *ids]  # llama-cpp-python's /extras/tokenize adds the BOS token
                elif owner == "llamacpp" and body.get("with_pieces"):
                    tokens = [{"id": i, "piece": piece} for i, piece in zip(ids, pieces, strict=True)]
                payload: dict[str, Any] = {"tokens": tokens}
                if owner == "vllm":
                    payload["count"] = len(tokens)
                self._send(200, payload)
                return True

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self._tokenize(body):
                    return
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
                kind = (body.get("response_format") or {}).get("type")
                if kind in server.reject_formats:
                    message = str(
                        [
                            {
                                "type": "literal_error",
                                "loc": ("body", "response_format", "type"),
                                "msg": "Input should be 'text' or 'json_object'",
                                "input": kind,
                            }
                        ]
                    )
                    self._send(500, {"error": {"message": message, "type": "internal_server_error"}})
                    return
                with server._lock:  # counted on arrival: requests waiting in the queue are in flight too
                    server._in_flight += 1
                    server.peak_in_flight = max(server.peak_in_flight, server._in_flight)
                try:
                    with server._one_lock if server.one_at_a_time else contextlib.nullcontext():
                        payload = self._answer(body)
                finally:
                    with server._lock:
                        server._in_flight -= 1
                if payload is None:
                    self._send(404, {"error": {"message": "no such route"}})
                    return
                with server._lock:
                    server.successes += 1
                self._send(200, payload)

            def _answer(self, body: dict[str, Any]) -> dict[str, Any] | None:
                if server.delay:
                    server._stopping.wait(server.delay)
                if self.path.endswith("/chat/completions"):
                    messages = body.get("messages", [])
                    text = server.answer(messages)
                    limit = body.get("max_tokens") or body.get("max_completion_tokens")
                    if server.token_limit and limit and len(text.split()) > int(limit):
                        cut = " ".join(text.split()[: int(limit)])
                        return _chat_response(body.get("model", "scripted"), messages, cut, "length")
                    return _chat_response(body.get("model", "scripted"), messages, text)
                if self.path.endswith("/completions"):
                    return _echo_response(
                        body.get("model", "scripted"),
                        str(body.get("prompt", "")),
                        server.logprobs,
                        server.echo_layout if body.get("echo") else "none",
                    )
                return None

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status in (429, 503) and server.retry_after is not None:
                    self.send_header("Retry-After", str(server.retry_after))
                self.end_headers()
                if server.trickle and status == 200:
                    for index in range(len(data)):
                        if server._stopping.wait(server.trickle):
                            return
                        self.wfile.write(data[index : index + 1])
                        self.wfile.flush()
                    return
                self.wfile.write(data)

        return Handler


class _QuietHTTPServer(ThreadingHTTPServer):
    """A client that hangs up (a cancelled or interrupted run) is normal here, not a traceback on stderr."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _chat_response(
    model: str, messages: list[dict[str, str]], text: str, finish_reason: str = "stop"
) -> dict[str, Any]:
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
                "finish_reason": finish_reason,
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
    model: str,
    prompt: str,
    logprobs: Callable[[list[str]], list[float]] | None = None,
    layout: str = "prompt+generated",
) -> dict[str, Any]:
    """A completions answer with one token per word of ``prompt`` (a space before every word but the
    first), laid out as ``layout`` (see the module docstring); values from ``logprobs(words)``."""
    from fabula.llm._openai import CALIBRATION_TEXT

    words = prompt.split()
    if prompt == CALIBRATION_TEXT:  # fabula's check of the values: counting, which any model finds easy
        scripted = [-0.1] * (len(words) - 1)
    elif logprobs is not None:
        scripted = logprobs(words)
    else:
        scripted = [-1.0 - (i % 3) for i in range(1, len(words))]
    values: list[float | None]
    pieces = [w if i == 0 else f" {w}" for i, w in enumerate(words)]
    offsets = [sum(len(p) for p in pieces[:i]) for i in range(len(pieces))]
    if layout == "none":
        tokens, values, text_offsets = [" x"], [-0.5], [len(prompt)]
    elif layout == "prompt+generated":
        tokens, values, text_offsets = [*pieces, " x"], [None, *scripted, -0.5], [*offsets, len(prompt)]
    elif layout == "prompt-only":
        tokens, values, text_offsets = pieces, [None, *scripted], offsets
    else:  # shifted: each listed value is the one of the token before (the first None), the last is lost
        shifted = [-9.0 - (i % 2) for i in range(len(words))]  # P(token i | tokens before and itself)
        tokens, values, text_offsets = pieces, [None, *shifted[1:]], offsets
    token_logprobs = values
    return {
        "id": "cmpl-scripted",
        "object": "text_completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "text": (prompt if layout != "none" else "") + " x",
                "finish_reason": "length",
                "logprobs": {
                    "tokens": tokens,
                    "token_logprobs": token_logprobs,
                    "top_logprobs": None,
                    "text_offset": text_offsets,
                },
            }
        ],
        "usage": {"prompt_tokens": len(words), "completion_tokens": 1, "total_tokens": len(words) + 1},
    }
