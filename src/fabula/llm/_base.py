"""The one LLM interface. Backends implement `_complete`; this class adds the cache, retries with
backoff, bounded concurrency, a progress bar and usage counters, so every backend behaves the same.
"""

from __future__ import annotations

import abc
import contextlib
import contextvars
import logging
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

from fabula.errors import BackendError
from fabula.llm._cache import ResponseCache, request_key
from fabula.llm._record import note_call
from fabula.llm._settings import STRUCTURED_MODES
from fabula.llm._tokens import (
    APPROXIMATE_TOKENIZER,
    TokenSpans,
    approximate_token_spans,
    default_token_counter,
)
from fabula.llm._types import ChatMessage, GenerateOptions, Generation, Prompt, UsageSummary, to_messages

DEFAULT_OPTIONS = GenerateOptions()
MAX_TIMEOUT_RETRIES = 1  # a server that timed out twice in a row is not answering; don't wait 6x as long

T = TypeVar("T")

log = logging.getLogger("fabula.llm")

# Credentials a user may write into an endpoint: ``//user:password@host`` and ``?api_key=...``.
_URL_USERINFO = re.compile(r"//[^/@\s]+@")
_URL_SECRET_PARAMETER = re.compile(r"(?i)([?&](?:api[_-]?key|key|token|access[_-]?token)=)[^&\s]+")

Validator = Callable[[str], bool]  # True when an answer text is usable (only usable answers are cached)


def redact_credentials(text: str) -> str:
    """``text`` (a spec, URL or message) with credentials written into URLs removed, safe to store or print."""
    return _URL_SECRET_PARAMETER.sub(r"\1***", _URL_USERINFO.sub("//", text))


class TransientError(Exception):
    """A failure worth retrying (timeout, connection reset, HTTP 429 or 5xx)."""

    def __init__(self, message: str, retry_after: float | None = None, *, timeout: bool = False) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.timeout = timeout  # the request ran out of time (retried at most MAX_TIMEOUT_RETRIES times)


class RequestError(Exception):
    """This one request cannot succeed (e.g. HTTP 400: prompt too long); others may. Not retried."""


class _Slots:
    """How many requests may be in flight now: ``capacity()`` (the model's `LLM.concurrency`) at first,
    one once the server is seen to queue them."""

    def __init__(self, capacity: Callable[[], int]) -> None:
        self.capacity = capacity
        self.one_at_a_time = False
        self.in_flight = 0
        self._condition = threading.Condition()

    @property
    def limit(self) -> int:
        return 1 if self.one_at_a_time else max(1, self.capacity())

    @contextlib.contextmanager
    def hold(self) -> Iterator[int]:
        """Wait for a free slot; yields how many other requests were in flight when this one was sent."""
        with self._condition:
            while self.in_flight >= self.limit:
                self._condition.wait()
            self.in_flight += 1
            others = self.in_flight - 1
        try:
            yield others
        finally:
            with self._condition:
                self.in_flight -= 1
                self._condition.notify_all()

    def reduce_to_one(self) -> bool:
        """Send one request at a time from now on; False when that was already so."""
        with self._condition:
            if self.one_at_a_time:
                return False
            self.one_at_a_time = True
            return True


class LLM(abc.ABC):
    """A language model behind one spec string (``openai:MODEL``, ``llamacpp:/path.gguf``, ...).

    Backends raise `TransientError` for retryable failures, `RequestError` for a failed request that
    should be recorded and `fabula.errors.BackendError` for failures no retry can fix (auth, missing
    model, missing extra); the latter stops a run. So does a model that never answered: when a request
    gives up after its retries before any request of this object has succeeded, the server is taken to be
    down (connection refused, HTTP 500 every time) and a `BackendError` ends the run at once instead of
    every remaining request waiting out its own retries.

    ``spec`` and ``endpoint`` are stored with credentials removed (`redact_credentials`): they appear in
    cache keys, usage lines, reports and error messages.
    """

    backend: str = "base"

    def __init__(
        self,
        spec: str,
        model: str,
        *,
        cache: ResponseCache | None = None,
        concurrency: int = 4,
        max_retries: int = 5,
        retry_base_delay: float = 1.0,
        retry_max_delay: float = 60.0,
        endpoint: str | None = None,
        structured: str = "auto",
    ) -> None:
        if structured not in STRUCTURED_MODES:
            raise ValueError(f"structured must be one of {', '.join(STRUCTURED_MODES)}, not {structured!r}")
        self.spec = redact_credentials(spec)
        self.model = model
        # part of the cache key (the same model name on two servers differs), never with credentials
        self.endpoint = redact_credentials(endpoint) if endpoint is not None else None
        self.cache = cache
        self.concurrency = max(1, concurrency)
        self.structured = structured
        self._slots = _Slots(lambda: self.concurrency)  # requests in flight (see `_retrying`)
        self.max_retries = max(0, max_retries)
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self._lock = threading.Lock()
        self._usage = UsageSummary(spec=self.spec)
        self._counter: Any = None
        self._counter_name = ""
        self._counter_lock = threading.Lock()
        self._answered = False  # any request of this object succeeded (see the class docstring)
        self._closed = threading.Event()  # set by `close`: requests still in flight are not retried

    # --- what backends implement ---------------------------------------------------------------
    @abc.abstractmethod
    def _complete(self, messages: list[ChatMessage], options: GenerateOptions) -> Generation:
        """One uncached model call."""

    def _prompt_logprobs(self, text: str) -> list[float] | None:
        """Log-probabilities of each prompt token after the first; None where unsupported.

        May raise `TransientError` (retried) or `RequestError` (this text cannot be scored)."""
        return None

    def _prepare(self) -> None:  # noqa: B027  (optional hook: most backends need nothing)
        """Called before each request takes a slot (e.g. to learn once what the server is)."""

    def _logprobs_key(self) -> dict[str, Any]:
        """Extra fields of a log-probability cache key (a backend whose scoring changed adds a version)."""
        return {}

    def _backend_token_counter(self) -> tuple[Any, str] | None:
        """The backend's own tokenizer as (count function, name), if it has one."""
        return None

    def _backend_token_spans(self, text: str) -> TokenSpans | None:
        """Character spans of ``text``'s tokens by the backend's own tokenizer, if it has one."""
        return None

    # --- public API ----------------------------------------------------------------------------
    @property
    def usage(self) -> UsageSummary:
        with self._lock:
            summary = self._usage.model_copy()
        summary.token_counter = self.token_counter_name
        return summary

    @property
    def token_counter_name(self) -> str:
        self._ensure_counter()
        return self._counter_name

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` by the best counter available (see `token_counter_name`)."""
        self._ensure_counter()
        return int(self._counter(text))

    def token_spans(self, text: str) -> tuple[TokenSpans, str]:
        """``text`` cut into tokens, as (start, end) character offsets covering it, and the tokenizer's
        name: the model's own tokenizer where the backend has one (llama.cpp), else the documented
        approximation `fabula.llm.approximate_token_spans` (for chunking a text by token counts, e.g. the
        4096-token chunks of a paper protocol)."""
        own = self._backend_token_spans(text)
        if own is not None:
            return own, self.token_counter_name
        return approximate_token_spans(text), APPROXIMATE_TOKENIZER

    def _ensure_counter(self) -> None:
        with self._counter_lock:  # a server's tokenizer is looked up once, not by every thread at once
            if self._counter is None:
                own = self._backend_token_counter()
                self._counter, self._counter_name = (
                    own if own is not None else default_token_counter(self.model)
                )

    def request_dict(self, messages: list[ChatMessage], options: GenerateOptions) -> dict[str, Any]:
        """Everything that determines the answer (the cache key). Never holds credentials."""
        request = {
            "backend": self.backend,
            "endpoint": self.endpoint,
            "model": self.model,
            "messages": [m.model_dump() for m in messages],
            "options": options.model_dump(mode="json"),
        }
        if self.structured != "auto" and (options.json_mode or options.json_schema is not None):
            request["structured"] = self.structured  # auto keeps the keys of earlier versions
        return request

    def generate(
        self, prompt: Prompt, options: GenerateOptions | None = None, *, validate: Validator | None = None
    ) -> Generation:
        """Answer one prompt (a string is one user turn). Cached; failures come back with ``error`` set.

        ``validate`` says whether an answer is usable (e.g. parses as the JSON asked for): an unusable
        answer is returned but never cached, so a re-run asks again instead of repeating it, and it is
        counted in ``usage.invalid``.
        """
        messages = to_messages(prompt)
        options = options or DEFAULT_OPTIONS
        request = self.request_dict(messages, options)
        key = request_key(request)
        if self.cache is not None:
            stored = self.cache.get(key)
            if stored is not None:
                with self._lock:
                    self._usage.cache_hits += 1
                cached = Generation.model_validate({**stored, "cached": True})
                note_call(key, cached.text, cache_hit=True, seconds=0.0, error=None)
                return cached
        generation = self._call_with_retries(messages, options)
        note_call(key, generation.text, cache_hit=False, seconds=generation.seconds, error=generation.error)
        with self._lock:
            if generation.error is None:
                self._usage.calls += 1
                self._usage.prompt_tokens += generation.prompt_tokens
                self._usage.completion_tokens += generation.completion_tokens
                self._usage.model_seconds += generation.seconds
            else:
                self._usage.failures += 1
        usable = generation.error is None and (validate is None or validate(generation.text))
        if generation.error is None and not usable:
            with self._lock:
                self._usage.invalid += 1
        if self.cache is not None and usable:
            self.cache.put(key, request, generation.model_dump(exclude={"cached", "error"}))
        return generation

    def generate_many(
        self,
        prompts: Sequence[Prompt],
        options: GenerateOptions | Sequence[GenerateOptions | None] | None = None,
        *,
        progress: str | None = None,
        validate: Validator | Sequence[Validator | None] | None = None,
    ) -> list[Generation]:
        """Answer many prompts, at most `concurrency` at a time; results in the order of ``prompts``.

        ``options`` is one set for all prompts or one per prompt; ``validate`` as in `generate`, one for
        all prompts or one per prompt (what is usable may depend on what the prompt asked).

        A `BackendError` (auth, missing model, a server that never answers) stops the run and is
        raised; other failures are returned as generations with ``error`` set. ``progress`` is the
        label of a progress bar. An interrupt (Ctrl-C) cancels every request not yet sent at once;
        the answers that arrived are in the cache, so a re-run does not ask for them again.
        """
        results: list[Generation | None] = [None] * len(prompts)
        if not prompts:
            return []
        if options is None or isinstance(options, GenerateOptions):
            per_prompt: list[GenerateOptions | None] = [options] * len(prompts)
        elif len(options) == len(prompts):
            per_prompt = list(options)
        else:
            raise ValueError(f"got {len(options)} option sets for {len(prompts)} prompts")
        if validate is None or callable(validate):
            validators: list[Validator | None] = [validate] * len(prompts)
        elif len(validate) == len(prompts):
            validators = list(validate)
        else:
            raise ValueError(f"got {len(validate)} validators for {len(prompts)} prompts")
        bar = _progress_bar(progress, len(prompts))
        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        try:
            with bar or contextlib.nullcontext():
                task = bar.add_task(progress or "", total=len(prompts)) if bar else None

                # set by the worker whose request raised, before its thread can take the next prompt:
                # waiting for this thread to see the error and cancel would let idle workers send more
                stopped = threading.Event()

                def run(index: int) -> None:
                    if stopped.is_set():
                        return
                    try:
                        results[index] = self.generate(
                            prompts[index], per_prompt[index], validate=validators[index]
                        )
                    except BaseException:
                        stopped.set()
                        raise
                    if bar is not None and task is not None:
                        bar.advance(task)

                # each worker runs in a copy of the caller's context, so `record_calls` sees its calls
                futures: list[Future[None]] = [
                    pool.submit(contextvars.copy_context().run, run, i) for i in range(len(prompts))
                ]
                done, _pending = wait(futures, return_when=FIRST_EXCEPTION)
                for future in done:
                    if (error := future.exception()) is not None:
                        raise error
        finally:
            # on success nothing is pending; on an error or Ctrl-C, requests not yet sent are dropped
            # and only those already in flight (at most `concurrency`) run to their end
            pool.shutdown(wait=False, cancel_futures=True)
        return [r if r is not None else Generation(error="not run") for r in results]

    def prompt_logprobs(self, text: str) -> list[float] | None:
        """Log-probabilities of the tokens of ``text`` (for Min-K% probes); None where unsupported.

        Transient failures are retried as for `generate`; a request that still fails, or that the server
        rejects, raises `BackendError` with the server's reason (a log-probability missing from a sum
        would change the result, so it is never skipped).
        """
        request = {
            "backend": self.backend,
            "endpoint": self.endpoint,
            "model": self.model,
            "logprobs": text,
            **self._logprobs_key(),
        }
        key = request_key(request)
        if self.cache is not None:
            stored = self.cache.get(key)
            if stored is not None:
                with self._lock:
                    self._usage.cache_hits += 1
                return list(stored)
        try:
            values = self._retrying(lambda: self._prompt_logprobs(text))
        except RequestError as exc:
            raise BackendError(f"log-probability request failed: {exc}", self.spec) from exc
        if values is not None:
            with self._lock:
                self._usage.calls += 1
            if self.cache is not None:
                self.cache.put(key, request, values)
        return values

    # --- retries ---------------------------------------------------------------------------------
    def _call_with_retries(self, messages: list[ChatMessage], options: GenerateOptions) -> Generation:
        started = time.perf_counter()
        try:
            generation = self._retrying(lambda: self._complete(messages, options))
        except RequestError as exc:
            return Generation(error=redact_credentials(str(exc)))
        if not generation.seconds:
            generation.seconds = time.perf_counter() - started
        return generation

    def _retrying(self, call: Callable[[], T]) -> T:
        """``call()``, in a free slot, retried on `TransientError` with backoff.

        Raises `RequestError` when the request cannot succeed or runs out of retries (a `BackendError`
        when nothing of this object has ever answered: see the class docstring). A request that timed
        out while others were in flight was most likely waiting in the server's queue: from then on
        requests go one at a time (said once on stderr) and that timeout is not counted against it.
        """
        self._prepare()
        attempt = 0
        timeouts = 0
        while True:
            with self._slots.hold() as others:
                try:
                    result = call()
                except TransientError as error:
                    failure: TransientError | None = error
                    others = max(others, self._slots.in_flight - 1)  # sent alone, but others came
                else:
                    failure = None
            if failure is None:
                with self._lock:
                    self._answered = True
                return result
            exc = failure
            if self._closed.is_set():  # the run was stopped (Ctrl-C, an error elsewhere): no retry
                raise RequestError(f"stopped: {redact_credentials(str(exc))}")
            queued = exc.timeout and others > 0
            if queued and self._slots.reduce_to_one():
                log.warning(
                    "%s: a request ran out of time while %d others were in flight: the server seems to "
                    "answer one request at a time; sending one at a time from now on",
                    self.spec,
                    others,
                )
            timeouts += exc.timeout and not queued
            if attempt >= self.max_retries or timeouts > MAX_TIMEOUT_RETRIES:
                raise RequestError(self._give_up(attempt + 1, exc))
            delay = self._backoff(attempt, exc.retry_after)
            attempt += 1
            with self._lock:
                self._usage.retries += 1
            log.warning(
                "%s: %s (attempt %d of %d); retrying in %.1f s",
                self.spec,
                redact_credentials(str(exc)),
                attempt,
                self.max_retries + 1,
                delay,
            )
            time.sleep(delay)

    def _give_up(self, attempts: int, exc: TransientError) -> str:
        """Why a request out of retries failed; a `BackendError` if nothing ever answered."""
        message = f"gave up after {attempts} attempts: {redact_credentials(str(exc))}"
        with self._lock:
            answered = self._answered
        if not answered:
            raise BackendError(f"the model is not answering ({message})", self.spec)
        return message

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.retry_max_delay)
        delay = self.retry_base_delay * (2**attempt)
        return min(delay * (0.5 + random.random() / 2), self.retry_max_delay)

    def close(self) -> None:
        """End the run: requests in flight are not retried, and the backend's resources are released."""
        self._closed.set()
        self._release()

    def _release(self) -> None:  # noqa: B027  (optional hook: most backends hold nothing)
        """Release the backend's resources (sockets, model memory)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"


def _progress_bar(label: str | None, total: int) -> Any:
    """A rich progress bar on stderr, or None when no label is given or stderr is not a terminal."""
    if label is None:
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        return None
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
