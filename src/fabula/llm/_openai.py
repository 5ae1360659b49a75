"""The OpenAI-compatible backend (official ``openai`` SDK): OpenAI, vLLM, llama.cpp's server, Ollama, ...

The SDK's own retries are switched off so that retries, backoff and their counting live in one place
(`fabula.llm._base`). The API key comes from ``FABULA_API_KEY`` or ``OPENAI_API_KEY``; servers given
with an explicit ``@URL`` need none. The key is never part of a request dict, so never cached or logged.

What differs between servers is handled here, per endpoint and once per run (docs/llm.md has the table):

* ``--timeout`` is a deadline for the whole request: a timer closes the connection's socket when it
  passes, so a server that trickles its answer byte by byte cannot hold a request longer.
* A refused connection before anything answered is a `BackendError` at once (nothing to retry).
* Structured output: the strongest ``response_format`` first; a rejection that names the request (HTTP
  4xx, or a 5xx whose body is a validation error) falls back once to the next weaker mode
  (``json_schema`` -> ``json_object`` with the schema -> none), which is remembered and said once.
* Sampling is sent explicitly (``top_p``, penalties, and ``repeat_penalty`` for llama.cpp-family servers,
  whose default is 1.1), so temperature 0 is greedy decoding on every server.
* The server is identified from ``/v1/models`` (llama-cpp-python, llama.cpp's server, vLLM): its own
  tokenizer endpoint counts tokens, and llama-cpp-python's one-request-at-a-time server gets one request
  at a time.
* Prompt log-probabilities (``/v1/completions`` with ``echo``) are calibrated before first use and refused
  with a one-line reason when they fail (see `check_logprobs_layout`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import logging
import os
import re
import socket
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from fabula.errors import BackendError
from fabula.llm._base import LLM, RequestError, TransientError, redact_credentials
from fabula.llm._settings import DEFAULT_TIMEOUT
from fabula.llm._tokens import default_token_counter
from fabula.llm._types import ChatMessage, GenerateOptions, Generation

API_KEY_VARIABLES = ("FABULA_API_KEY", "OPENAI_API_KEY")
log = logging.getLogger("fabula.llm")

# the ladder of structured-output modes, strongest first (see `_response_format`)
_LADDER = ("schema", "json", "off")
# a 5xx whose message says the request itself is invalid (pydantic/FastAPI validation, as
# llama-cpp-python's server answers an unknown response_format type with HTTP 500)
_VALIDATION = re.compile(
    r"(?i)validation error|input should be|literal_error|extra_forbidden|extra inputs are not permitted|"
    r"field required|missing required|unrecognized request argument|not supported|unsupported|invalid"
)
_PYDANTIC_ERROR = re.compile(r"""'loc':\s*\(([^)]*)\),\s*'msg':\s*(?:"([^"]*)"|'([^']*)')""")

# prompt log-probabilities are checked with a text whose every token after the first few is predictable
# by any language model (counting); the mean over its second half must be at least this
CALIBRATION_TEXT = ", ".join(str(n) for n in range(1, 21))
CALIBRATION_MIN_MEAN = -1.5
LOGPROBS_CHECKED = 2  # part of the log-probability cache key: values from before the check are not reused


def server_root(base_url: str) -> str:
    """The server's root URL (``http://host:8080`` for ``http://host:8080/v1``): tokenizer endpoints live there."""
    return re.sub(r"/v1/?$", "", base_url.rstrip("/"))


class _Deadline:
    """One request's deadline: when it passes, the sockets the request opened are shut down."""

    def __init__(self) -> None:
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if not self.expired:
                return
        _shut(sock)

    def expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


_ACTIVE = threading.local()  # the _Deadline of the request this thread is making


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[_Deadline]:
    """Run a request under a deadline of ``seconds`` for everything (connect, send, every byte read)."""
    deadline = _Deadline()
    timer = threading.Timer(seconds, deadline.expire)
    timer.daemon = True
    _ACTIVE.deadline = deadline
    timer.start()
    try:
        yield deadline
    finally:
        timer.cancel()
        _ACTIVE.deadline = None


def _http_library(openai: Any) -> Any:
    """The HTTP library the installed openai SDK is built on (``httpx``; ``httpx2`` from openai 3)."""
    client_class = next(c for c in openai.DefaultHttpxClient.__mro__[1:] if c.__name__ == "Client")
    return importlib.import_module(client_class.__module__.split(".")[0])


def _transport(httpx: Any, max_connections: int) -> Any:
    """An ``httpx`` transport that hands the socket of every new connection to the current `_deadline`.

    Connections are not kept alive, so every request opens (and owns) its socket; on a local server
    that costs well under a millisecond."""

    class DeadlineTransport(httpx.HTTPTransport):  # type: ignore[misc,unused-ignore]
        def handle_request(self, request: Any) -> Any:
            deadline: _Deadline | None = getattr(_ACTIVE, "deadline", None)
            if deadline is not None:

                def trace(event: str, info: dict[str, Any]) -> None:
                    if event == "connection.connect_tcp.complete":
                        stream = info.get("return_value")
                        sock = stream.get_extra_info("socket") if stream is not None else None
                        if isinstance(sock, socket.socket):
                            deadline.add(sock)

                request.extensions = {**request.extensions, "trace": trace}
            return super().handle_request(request)

    return DeadlineTransport(
        limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=0)
    )


class _Rejected(Exception):
    """The server refused this request as invalid (HTTP 4xx, or a 5xx validation error)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"request rejected (HTTP {status}): {message}")
        self.status = status
        self.message = message


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
        self._httpx = httpx = _http_library(openai)
        self._base_url = base_url
        self._api_key = api_key
        self._http = httpx.Client(transport=_transport(httpx, max(64, 4 * self.concurrency)))
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout, http_client=self._http
        )
        # the weakest structured-output mode this endpoint has needed so far (index into _LADDER)
        self._format_level = 0 if self.structured in ("auto", "schema") else _LADDER.index(self.structured)
        # fields only llama.cpp-family servers know (OpenAI itself rejects unknown fields)
        self._send_llama_fields = base_url is not None
        self._server: str | None = None  # what /v1/models says the server is ("" when unknown)
        self._server_lock = threading.Lock()
        self._added: list[Any] | None = None  # see _added_tokens
        self._pieces: dict[int, str | None] = {}  # token id -> its text (see _piece)
        self._logprobs_checked = False
        self._logprobs_refusal: str | None = None
        self._logprobs_lock = threading.Lock()

    # --- the server ----------------------------------------------------------------------------
    @property
    def server(self) -> str:
        """The server software behind the endpoint, from ``/v1/models``: ``llama-cpp-python``,
        ``llama.cpp``, ``vllm``, ``openai``, or ``""`` when it does not say (asked once)."""
        with self._server_lock:
            if self._server is None:
                self._server = self._identify_server()
                if self._server == "llama-cpp-python" and self._slots.reduce_to_one():
                    log.warning(
                        "%s: llama-cpp-python's server answers one request at a time (the others wait in "
                        "its queue, and their time counts against --timeout): sending one at a time",
                        self.spec,
                    )
            return self._server

    def _identify_server(self) -> str:
        if self._base_url is None:
            return "openai"
        try:
            response = self._get_json("/v1/models")
        except (RequestError, TransientError):
            return ""
        owners = {str(m.get("owned_by", "")) for m in response.get("data", []) if isinstance(m, dict)}
        if "me" in owners:  # llama-cpp-python's server answers owned_by "me"
            return "llama-cpp-python"
        if "llamacpp" in owners:
            return "llama.cpp"
        if "vllm" in owners:
            return "vllm"
        return ""

    def _http_call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """A JSON request to the server's root (not under /v1), under the request deadline."""
        httpx = self._httpx
        assert self._base_url is not None
        url = server_root(self._base_url) + path
        headers = {"Authorization": f"Bearer {self._api_key}"}
        with _deadline(self.timeout) as deadline:
            try:
                response = self._http.request(method, url, json=body, headers=headers, timeout=self.timeout)
            except httpx.HTTPError as exc:
                if deadline.expired or isinstance(exc, httpx.TimeoutException):
                    raise TransientError(
                        f"no answer within {self.timeout:g} s (--timeout)", timeout=True
                    ) from exc
                raise TransientError(f"cannot reach the server: {exc}") from exc
        if response.status_code >= 400:
            raise RequestError(f"HTTP {response.status_code} from {path}")
        try:
            return response.json()
        except ValueError as exc:
            raise RequestError(f"{path} answered something other than JSON") from exc

    def _get_json(self, path: str) -> dict[str, Any]:
        value = self._http_call("GET", path)
        if not isinstance(value, dict):
            raise RequestError(f"{path} answered {type(value).__name__}, not an object")
        return value

    # --- token counting ------------------------------------------------------------------------
    def _tokenizer_endpoint(self) -> tuple[str, Any, str] | None:
        """(path, request body for a text, label) of the server's tokenizer endpoint, if it has one."""
        kind = self.server
        if kind == "llama-cpp-python":
            return "/extras/tokenize", (lambda text: {"input": text}), "llama-cpp-python"
        if kind == "llama.cpp":
            return (
                "/tokenize",
                (lambda text: {"content": text, "add_special": False, "with_pieces": True}),
                "llama.cpp server",
            )
        if kind == "vllm":
            return (
                "/tokenize",
                (lambda text: {"model": self.model, "prompt": text, "add_special_tokens": False}),
                "vLLM",
            )
        return None

    def _server_tokens(self, text: str) -> list[Any] | int:
        """The server's tokens of ``text`` (ids, or llama.cpp's ``{"id", "piece"}`` objects), or only
        their number where the endpoint gives just a count."""
        endpoint = self._tokenizer_endpoint()
        assert endpoint is not None
        path, make_body, _label = endpoint
        try:
            answer = self._retrying(lambda: self._http_call("POST", path, make_body(text)))
        except RequestError as exc:
            raise BackendError(f"counting tokens with the server's {path} failed: {exc}", self.spec) from exc
        if isinstance(answer, dict) and isinstance(answer.get("tokens"), list):
            return list(answer["tokens"])
        if isinstance(answer, dict) and isinstance(answer.get("count"), int):
            return int(answer["count"])
        raise BackendError(f"the server's {path} answered without tokens", self.spec)

    def _added_tokens(self) -> list[Any]:
        """Special tokens the tokenizer endpoint adds by itself (llama-cpp-python adds BOS), asked once."""
        with self._server_lock:
            added = self._added
        if added is None:
            tokens = self._server_tokens("")
            added = tokens if isinstance(tokens, list) else [None] * tokens
            with self._server_lock:
                self._added = added
        return added

    def _backend_token_counter(self) -> tuple[Any, str] | None:
        """The server's own tokenizer (llama-cpp-python ``/extras/tokenize``, llama.cpp and vLLM
        ``/tokenize``); an estimate, labelled so, when the server offers none."""
        endpoint = self._tokenizer_endpoint()
        if endpoint is None:
            counter, name = default_token_counter(self.model)
            note = (
                "the server offers no tokenizer"
                if self.server != "openai"
                else "OpenAI has no tokenizer endpoint"
            )
            return counter, f"{name} ({note})"
        path, _body, label = endpoint
        try:
            added = len(self._added_tokens())
        except BackendError:
            counter, name = default_token_counter(self.model)
            return counter, f"{name} (the server's {path} failed)"
        counts: OrderedDict[bytes, int] = OrderedDict()  # chunking counts the same paragraphs repeatedly
        counts_lock = threading.Lock()

        def count(text: str) -> int:
            key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
            with counts_lock:
                if key in counts:
                    counts.move_to_end(key)
                    return counts[key]
            tokens = self._server_tokens(text)
            value = max(0, (len(tokens) if isinstance(tokens, list) else tokens) - added)
            with counts_lock:
                counts[key] = value
                while len(counts) > 65536:
                    counts.popitem(last=False)
            return value

        return count, f"server:{path} ({label})"

    def _backend_token_spans(self, text: str) -> list[tuple[int, int]] | None:
        """``text``'s tokens as character spans by the server's tokenizer: llama.cpp's ``/tokenize`` with
        pieces, llama-cpp-python's ``/extras/tokenize`` with each token's text from ``/extras/detokenize``
        (asked once per token id). None (the approximation) where the server cannot say, or where its
        pieces do not spell the text exactly (a token that is part of a UTF-8 character)."""
        if self.server not in ("llama-cpp-python", "llama.cpp") or not self.token_counter_name.startswith(
            "server:"
        ):
            return None
        tokens = self._server_tokens(text)
        if not isinstance(tokens, list):
            return None
        added = self._added_tokens()
        if added and tokens[: len(added)] == added:
            tokens = tokens[len(added) :]
        pieces: list[str | None]
        if self.server == "llama.cpp":
            pieces = [
                t.get("piece") if isinstance(t, dict) and isinstance(t.get("piece"), str) else None
                for t in tokens
            ]
        else:
            pieces = [self._piece(int(t)) for t in tokens]
        if any(p is None for p in pieces) or "".join(p or "" for p in pieces) != text:
            return None
        spans: list[tuple[int, int]] = []
        offset = 0
        for piece in pieces:
            start, offset = offset, offset + len(piece or "")
            if offset > start:
                spans.append((start, offset))
        return spans or [(0, len(text))]

    def _piece(self, token: int) -> str | None:
        """The text of one token id by llama-cpp-python's ``/extras/detokenize`` (None: not whole characters)."""
        with self._server_lock:
            if token in self._pieces:
                return self._pieces[token]
        try:
            answer = self._retrying(
                lambda: self._http_call("POST", "/extras/detokenize", {"tokens": [token]})
            )
        except RequestError:  # its UTF-8 decoding fails on a token that is part of a character: HTTP 500
            piece = None
        else:
            piece = (
                answer.get("text")
                if isinstance(answer, dict) and isinstance(answer.get("text"), str)
                else None
            )
        with self._server_lock:
            self._pieces[token] = piece
        return piece

    # --- generation ----------------------------------------------------------------------------
    def _prepare(self) -> None:
        self.server  # noqa: B018  (identified once, before the first requests take their slots)

    def _complete(self, messages: list[ChatMessage], options: GenerateOptions) -> Generation:
        arguments: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in messages],
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            # explicit, so that temperature 0 is greedy decoding on every server
            "top_p": options.top_p if options.top_p is not None else 1.0,
            "frequency_penalty": 0.0,
            "presence_penalty": 0.0,
        }
        if options.seed is not None:
            arguments["seed"] = options.seed
        if options.stop:
            arguments["stop"] = list(options.stop)
        if self._send_llama_fields:
            # llama-cpp-python's server applies repeat_penalty 1.1 unless told; vLLM and others ignore it
            arguments["extra_body"] = {"repeat_penalty": 1.0}
        level = self._format_level
        first: _Rejected | None = None
        while True:
            response_format = _response_format(options, _LADDER[level])
            if response_format is not None:
                arguments["response_format"] = response_format
            else:
                arguments.pop("response_format", None)
            try:
                generation = self._create(arguments)
            except _Rejected as exc:
                first = first or exc
                weaker = self._weaker_level(options, level)
                if response_format is None or weaker is None:
                    raise RequestError(str(first)) from exc
                level = weaker
                continue
            if level > self._format_level:
                self._fall_back_to(level, first)
            return generation

    def _weaker_level(self, options: GenerateOptions, level: int) -> int | None:
        """The next weaker structured mode that asks differently, if fallback is allowed (``auto``)."""
        if self.structured != "auto":
            return None
        current = _response_format(options, _LADDER[level])
        for weaker in range(level + 1, len(_LADDER)):
            if _response_format(options, _LADDER[weaker]) != current:
                return weaker
        return None

    def _fall_back_to(self, level: int, reason: _Rejected | None) -> None:
        with self._lock:
            if level <= self._format_level:
                return
            self._format_level = level
        what = {"json": "a JSON object (json_object with the schema)", "off": "plain text, parsed strictly"}
        log.warning(
            "%s: the server rejected the structured-output request (%s); asking for %s from now on "
            "(--structured to choose)",
            self.spec,
            reason.message if reason is not None else "rejected",
            what[_LADDER[level]],
        )

    def _create(self, arguments: dict[str, Any]) -> Generation:
        with self._errors():
            response = self._client.chat.completions.create(**arguments)
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

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Run one SDK call under the request deadline and turn its errors into fabula's kinds."""
        httpx = self._httpx
        openai = self._openai
        with _deadline(self.timeout) as deadline:
            try:
                yield
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise BackendError(
                    f"authentication failed (HTTP {exc.status_code}); check FABULA_API_KEY / OPENAI_API_KEY",
                    self.spec,
                ) from exc
            except openai.NotFoundError as exc:
                raise BackendError(
                    f"model {self.model!r} not found at this endpoint (HTTP 404): {_message(exc)}", self.spec
                ) from exc
            except openai.RateLimitError as exc:
                raise TransientError("rate limited (HTTP 429)", _retry_after(exc)) from exc
            except openai.APIStatusError as exc:
                message = _message(exc)
                if exc.status_code == 408 or (exc.status_code >= 500 and not _VALIDATION.search(message)):
                    raise TransientError(
                        f"server error (HTTP {exc.status_code}): {message}", _retry_after(exc)
                    ) from exc
                raise _Rejected(exc.status_code, message) from exc
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                if deadline.expired or isinstance(exc, openai.APITimeoutError):
                    raise TransientError(
                        f"no answer within {self.timeout:g} s (--timeout)", timeout=True
                    ) from exc
                cause = exc.__cause__ or exc
                with self._lock:
                    answered = self._answered
                if isinstance(cause, httpx.ConnectError) and not answered:
                    # nothing has answered yet and nothing listens there: retrying cannot help
                    raise BackendError(
                        f"cannot reach the server ({cause}); is it running at that address?", self.spec
                    ) from exc
                raise TransientError(f"cannot reach the server: {cause}") from exc

    # --- prompt log-probabilities --------------------------------------------------------------
    def _logprobs_key(self) -> dict[str, Any]:
        return {"checked": LOGPROBS_CHECKED}

    def _echo(self, text: str) -> tuple[list[float | None], list[int] | None, int]:
        """The completions endpoint's echo of ``text``: listed values, their text offsets, and how many
        tokens the server says the prompt has."""
        arguments: dict[str, Any] = {
            "model": self.model,
            "prompt": text,
            "max_tokens": 1,
            "echo": True,
            "logprobs": 0,
            "temperature": 0.0,
        }
        if self._send_llama_fields:
            arguments["extra_body"] = {"repeat_penalty": 1.0}
        try:
            with self._errors():
                response = self._client.completions.create(**arguments)
        except _Rejected as exc:
            raise RequestError(str(exc)) from exc
        if not response.choices or response.choices[0].logprobs is None:
            return [], None, 0
        logprobs = response.choices[0].logprobs
        values = list(logprobs.token_logprobs or [])
        offsets = list(logprobs.text_offset) if logprobs.text_offset is not None else None
        prompt_tokens = response.usage.prompt_tokens if response.usage else 0
        return values, offsets, prompt_tokens

    def _prompt_logprobs(self, text: str) -> list[float] | None:
        """Prompt log-probabilities via ``/v1/completions`` with ``echo``, after the calibration check."""
        self._check_logprobs()
        values, offsets, prompt_tokens = self._echo(text)
        return prompt_values(text, values, offsets, prompt_tokens)

    def _check_logprobs(self) -> None:
        """Calibrate once per run; raise `BackendError` with the reason when the numbers cannot be used."""
        with self._logprobs_lock:
            if not self._logprobs_checked:  # a transient failure here is retried with the whole request
                values, offsets, prompt_tokens = self._echo(CALIBRATION_TEXT)
                self._logprobs_refusal = check_logprobs_layout(
                    CALIBRATION_TEXT, values, offsets, prompt_tokens, self.server
                )
                self._logprobs_checked = True
        if self._logprobs_refusal is not None:
            raise BackendError(self._logprobs_refusal, self.spec)

    def _release(self) -> None:
        self._client.close()
        self._http.close()


def _response_format(options: GenerateOptions, mode: str) -> dict[str, Any] | None:
    """The ``response_format`` for a request in structured mode ``mode`` (None: ask in the prompt only)."""
    if mode == "off" or not (options.json_mode or options.json_schema is not None):
        return None
    if options.json_schema is None:
        return {"type": "json_object"}
    if mode == "schema":  # OpenAI structured outputs; vLLM and llama.cpp's server too
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": options.json_schema}}
    # llama-cpp-python turns the schema into a grammar; servers that do not know the field ignore it
    return {"type": "json_object", "schema": options.json_schema}


def prompt_values(
    text: str, values: list[float | None], offsets: list[int] | None, prompt_tokens: int
) -> list[float]:
    """The log-probabilities of the prompt's tokens after the first, from an echo answer.

    Servers list the prompt tokens and then the generated one (vLLM, llama-cpp-python with a model that
    has a BOS token), or the prompt tokens only (llama-cpp-python without BOS); a leading BOS or the
    first token has no value (None). Which entries belong to the prompt is read off their text offsets
    (an entry at or past the prompt's end is generated); without offsets, off the server's prompt token
    count. Never "drop the last value" blindly: that loses a prompt token on a prompt-only layout.
    """
    if offsets is not None and len(offsets) == len(values):
        length = len(text)
        listed = [v for v, offset in zip(values, offsets, strict=True) if offset < length]
    elif prompt_tokens and len(values) > prompt_tokens:
        listed = values[:prompt_tokens]
    else:
        raise RequestError(
            f"cannot tell the prompt's log-probabilities from the generated one's ({len(values)} values, "
            f"{prompt_tokens} prompt tokens, no text offsets)"
        )
    return [float(v) for v in listed if v is not None]


def check_logprobs_layout(
    text: str, values: list[float | None], offsets: list[int] | None, prompt_tokens: int, server: str
) -> str | None:
    """Why a server's prompt log-probabilities cannot be used (one line), or None when they pass.

    ``text`` is `CALIBRATION_TEXT` (counting from 1 to 20): after the first numbers every token is
    predictable, so correct log-probabilities of its second half average near 0 (SmolLM2-135M: about
    -0.2). llama-cpp-python's server with a model without a BOS token scores every prompt token with the
    distribution of the position before it (a known bug of its echo); on counting that averages below -5.
    """
    name = server or "the server"
    refusal = (
        f"{name} gives no prompt log-probabilities (/v1/completions with echo and logprobs); "
        "use --method generate or a llamacpp: model"
    )
    if not values:
        return refusal
    try:
        scored = prompt_values(text, values, offsets, prompt_tokens)
    except RequestError as exc:
        return f"{name}'s prompt log-probabilities have a layout fabula does not know: {exc}"
    if not scored:
        return refusal
    expected = prompt_tokens - 1 if prompt_tokens else None
    if expected is not None and not expected - 1 <= len(scored) <= expected + 1:
        return (
            f"{name} listed {len(scored)} prompt log-probabilities for a prompt of {prompt_tokens} tokens, "
            "a layout fabula does not know"
        )
    if any(v > 1e-6 for v in scored):
        return f"{name} gives log-probabilities above 0, which are not log-probabilities"
    tail = scored[len(scored) // 2 :]
    mean = sum(tail) / len(tail)
    if mean < CALIBRATION_MIN_MEAN:
        return (
            f"{name}'s prompt log-probabilities fail fabula's check: counting 1..20 scores {mean:.2f} per "
            f"token over its second half where a correct scorer gives about 0 (values shifted by one "
            "token?); refused rather than used: use a llamacpp: model, vLLM, or --method generate"
        )
    return None


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
    """The server's own message, one line (a pydantic error list shortened to its field: message pairs)."""
    body = getattr(exc, "body", None)
    text = str(exc)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            text = str(error["message"])
        elif isinstance(error, str):
            text = error
        elif isinstance(body.get("detail"), (str, list)):
            text = str(body["detail"])
    found = _PYDANTIC_ERROR.findall(text)
    if found:
        parts = []
        for loc, double, single in found:
            field = ".".join(
                p.strip(" '\"") for p in loc.split(",") if p.strip(" '\"") and p.strip() != "'body'"
            )
            parts.append(f"{field}: {double or single}" if field else (double or single))
        text = "; ".join(dict.fromkeys(parts))
    return redact_credentials(" ".join(text.split()))[:300]
