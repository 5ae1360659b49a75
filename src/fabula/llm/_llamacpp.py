"""Local GGUF models through llama-cpp-python (optional extra ``fabula[llamacpp]``), imported lazily.

One model instance is not thread-safe, so calls are serialised with a lock (concurrency buys nothing on
one CPU model anyway). Token counts use the model's own tokenizer.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from fabula.errors import BackendError
from fabula.llm._base import LLM, RequestError
from fabula.llm._types import ChatMessage, GenerateOptions, Generation


class LlamaCppLLM(LLM):
    """A GGUF model file run in-process by llama.cpp."""

    backend = "llamacpp"

    def __init__(
        self, spec: str, path: str, *, n_ctx: int = 8192, n_threads: int | None = None, **kwargs: Any
    ) -> None:
        model_path = Path(path).expanduser()
        if not model_path.is_file():
            raise BackendError("GGUF model file not found", model_path)
        try:
            import llama_cpp
        except ImportError as exc:
            raise BackendError(
                "the llamacpp backend needs llama-cpp-python: pip install 'fabula[llamacpp]'", spec
            ) from exc
        # the file name identifies the model in the cache; its size guards against a replaced file
        super().__init__(spec, f"{model_path.name}:{model_path.stat().st_size}", **kwargs)
        self.concurrency = 1
        self._llama_cpp = llama_cpp
        self._path = model_path
        self._n_ctx = n_ctx
        # llama-cpp-python defaults to half the cores; fabula runs one model at a time, so use them all
        self._n_threads = n_threads or os.cpu_count() or 1
        self._model_lock = threading.Lock()
        try:
            self._llama = llama_cpp.Llama(
                model_path=str(model_path), n_ctx=n_ctx, n_threads=self._n_threads, verbose=False
            )
        except (ValueError, RuntimeError) as exc:
            raise BackendError(f"llama.cpp cannot load this model ({exc})", model_path) from exc
        self._scoring_llama: Any = None
        self._scored_values: list[float] = []  # the last text's log-probabilities (see _prompt_logprobs)

    @property
    def context_size(self) -> int:
        return self._n_ctx

    def _complete(self, messages: list[ChatMessage], options: GenerateOptions) -> Generation:
        arguments: dict[str, Any] = {
            "messages": [m.model_dump() for m in messages],
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            "stop": list(options.stop) or None,
            # explicit, as the OpenAI backend sends them: temperature 0 is then greedy decoding
            "top_p": options.top_p if options.top_p is not None else 1.0,
            "repeat_penalty": 1.0,
            "frequency_penalty": 0.0,
            "presence_penalty": 0.0,
        }
        if options.seed is not None:
            arguments["seed"] = options.seed
        if self.structured == "off":  # the prompt asks for JSON; the answer is parsed strictly
            pass
        elif options.json_schema is not None:  # llama-cpp-python turns the schema into a grammar
            arguments["response_format"] = {"type": "json_object", "schema": options.json_schema}
        elif options.json_mode:
            arguments["response_format"] = {"type": "json_object"}
        with self._model_lock:
            try:
                response: Any = self._llama.create_chat_completion(**arguments)
            except ValueError as exc:  # e.g. the prompt does not fit the context window
                raise RequestError(str(exc)) from exc
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        return Generation(
            text=choice["message"].get("content") or "",
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            finish_reason=choice.get("finish_reason"),
        )

    def _backend_token_counter(self) -> tuple[Any, str] | None:
        def count(text: str) -> int:
            return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

        return count, f"llama.cpp:{self._path.name}"

    def _backend_token_spans(self, text: str) -> list[tuple[int, int]] | None:
        data = text.encode("utf-8")
        with self._model_lock:
            tokens = self._llama.tokenize(data, add_bos=False, special=False)
            pieces = [self._llama.detokenize([token]) for token in tokens]
        if b"".join(pieces) != data:  # a tokenizer that rewrites the text (e.g. a leading space): no spans
            return None
        # byte offset -> character offset
        char_at = [0] * (len(data) + 1)
        chars = 0
        for position, byte in enumerate(data):
            char_at[position] = chars  # a continuation byte: the next character's index (rounds up)
            chars += (byte & 0xC0) != 0x80
        char_at[len(data)] = len(text)
        spans: list[tuple[int, int]] = []
        offset = 0
        for piece in pieces:
            start, offset = offset, offset + len(piece)
            spans.append((char_at[start], char_at[offset]))
        return [s for s in spans if s[1] > s[0]] or [(0, len(text))]

    def _prompt_logprobs(self, text: str) -> list[float] | None:
        import numpy as np

        with self._model_lock:
            if self._scoring_llama is None:
                self._scoring_llama = self._llama_cpp.Llama(
                    model_path=str(self._path),
                    n_ctx=self._n_ctx,
                    n_threads=self._n_threads,
                    logits_all=True,
                    verbose=False,
                )
            llama = self._scoring_llama
            tokens = llama.tokenize(text.encode("utf-8"), add_bos=True, special=False)[: self._n_ctx]
            # keep the evaluated tokens this text starts with (their KV cache and logits rows stay valid:
            # attention is causal), so scoring ten endings after one long prefix evaluates it once, and
            # the log-probabilities of the shared tokens are taken over instead of computed again
            kept = _shared_prefix_length(llama.input_ids[: llama.n_tokens].tolist(), tokens)
            previous, self._scored_values = self._scored_values, []
            llama.n_tokens = min(kept, len(tokens) - 1)
            llama.eval(tokens[llama.n_tokens :])
            # previous[i] scored tokens[i + 1] after tokens[: i + 1]: still right below kept - 1
            start = min(max(kept - 1, 0), len(previous))
            # logits at position i predict token i+1
            logits = np.asarray(llama.scores[start : len(tokens) - 1], dtype=np.float64)
            shifted = logits - logits.max(axis=1, keepdims=True)
            log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
            targets = np.asarray(tokens[start + 1 :], dtype=np.intp)  # empty when all were scored
            values = previous[:start] + [float(v) for v in log_probs[np.arange(len(targets)), targets]]
            self._scored_values = values
        return values

    def _release(self) -> None:
        for llama in (self._llama, self._scoring_llama):
            if llama is not None and hasattr(llama, "close"):
                llama.close()


def _shared_prefix_length(first: list[int], second: list[int]) -> int:
    """How many leading tokens two token lists share."""
    length = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        length += 1
    return length
