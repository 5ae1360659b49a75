"""Local transformers models from a directory (optional extra ``fabula[hf]``), imported lazily.

``hf:DIR`` is a saved model folder; ``hf:FILE.gguf`` is a GGUF file that transformers reads itself
(model and tokenizer, through the ``gguf`` package), so one quantised file serves both llama.cpp and
transformers (e.g. on a GPU, where llama-cpp-python is a CPU build). Runs on the CPU unless CUDA is
available; calls are serialised with a lock. Token counts and token spans (the paper protocols' chunks)
use the model's own tokenizer. Only local paths: fabula never downloads weights.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

from fabula.errors import BackendError
from fabula.llm._base import LLM
from fabula.llm._types import ChatMessage, GenerateOptions, Generation


class HuggingFaceLLM(LLM):
    """A causal language model loaded with ``transformers`` from a local directory."""

    backend = "hf"

    def __init__(self, spec: str, path: str, **kwargs: Any) -> None:
        model_path = Path(path).expanduser()
        gguf_file: dict[str, str] = {}
        if model_path.suffix.lower() == ".gguf":
            if not model_path.is_file():
                raise BackendError("GGUF file not found", model_path)
            if importlib.util.find_spec("gguf") is None:
                raise BackendError("reading a GGUF file with transformers needs: pip install gguf", spec)
            model_dir, gguf_file = model_path.parent, {"gguf_file": model_path.name}
        elif model_path.is_dir():
            model_dir = model_path
        else:
            raise BackendError("model directory not found", model_path)
        try:
            import torch
            import transformers
        except ImportError as exc:
            raise BackendError(
                "the hf backend needs transformers and torch: pip install 'fabula[hf]'", spec
            ) from exc
        super().__init__(spec, str(model_path.resolve()), **kwargs)
        self.concurrency = 1
        self._torch = torch
        self._encoding_type = transformers.BatchEncoding
        self._device = "cuda" if torch.cuda.is_available() else "cpu"
        try:
            self._tokenizer = transformers.AutoTokenizer.from_pretrained(
                model_dir, local_files_only=True, **gguf_file
            )
            self._model = transformers.AutoModelForCausalLM.from_pretrained(
                model_dir, local_files_only=True, torch_dtype="auto", **gguf_file
            )
        except (OSError, ValueError) as exc:
            raise BackendError(f"transformers cannot load this model ({exc})", model_dir) from exc
        # moved in place through torch's typed Module.to (the call still runs the model's own override):
        # transformers 5 wraps PreTrainedModel.to with functools.wraps, which type checkers see unbound
        module: torch.nn.Module = self._model
        module.to(self._device)
        self._model.eval()
        self._model_lock = threading.Lock()

    def _complete(self, messages: list[ChatMessage], options: GenerateOptions) -> Generation:
        torch = self._torch
        chat = [m.model_dump() for m in messages]
        # return_dict=True: transformers 5 returns the encoding by default, 4.x the bare ids unless asked
        if getattr(self._tokenizer, "chat_template", None):
            encoded = self._tokenizer.apply_chat_template(
                chat, add_generation_prompt=True, return_tensors="pt", return_dict=True
            )
            if not isinstance(encoded, self._encoding_type):
                raise BackendError(
                    f"the chat template gave {type(encoded).__name__}, not token ids", self.spec
                )
        else:
            encoded = self._tokenizer("\n\n".join(m.content for m in messages), return_tensors="pt")
        input_ids = encoded["input_ids"].to(self._device)
        sampling: dict[str, Any] = (
            {"do_sample": True, "temperature": options.temperature, "top_p": options.top_p or 1.0}
            if options.temperature > 0
            else {"do_sample": False}
        )
        sampling["repetition_penalty"] = 1.0  # a model's generation_config may set one; fabula never wants it
        with self._model_lock, torch.no_grad():
            if options.seed is not None:
                torch.manual_seed(options.seed)
            # transformers 5 declares generate (under torch.no_grad) with an explicit ``self`` parameter,
            # which mypy then reads as unbound: the one call it cannot check
            output = self._model.generate(  # type: ignore[misc,unused-ignore]
                input_ids,
                max_new_tokens=options.max_tokens,
                pad_token_id=self._tokenizer.pad_token_id or self._tokenizer.eos_token_id,
                **sampling,
            )
        new_tokens = output[0, input_ids.shape[1] :]
        text = self._tokenizer.decode(new_tokens, skip_special_tokens=True)
        if not isinstance(text, str):  # one sequence decodes to one string; a list would be a bug here
            raise BackendError(f"the tokenizer decoded one answer to {type(text).__name__}", self.spec)
        finish = "length" if len(new_tokens) >= options.max_tokens else "stop"
        for stop in options.stop:
            if stop in text:
                text, finish = text[: text.index(stop)], "stop"
        return Generation(
            text=text,
            prompt_tokens=int(input_ids.shape[1]),
            completion_tokens=len(new_tokens),
            finish_reason=finish,
        )

    def _backend_token_counter(self) -> tuple[Any, str] | None:
        def count(text: str) -> int:
            return len(self._tokenizer.encode(text, add_special_tokens=False))

        return count, f"hf:{Path(self.model).name}"

    def _backend_token_spans(self, text: str) -> list[tuple[int, int]] | None:
        """The fast tokenizer's character offsets (a slow tokenizer has none: the approximation is used)."""
        if not getattr(self._tokenizer, "is_fast", False):
            return None
        encoded = self._tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        spans = [(int(start), int(end)) for start, end in encoded["offset_mapping"] if end > start]
        return spans or [(0, len(text))]

    def _prompt_logprobs(self, text: str) -> list[float] | None:
        torch = self._torch
        input_ids = self._tokenizer(text, return_tensors="pt").input_ids.to(self._device)
        with self._model_lock, torch.no_grad():
            logits = self._model(input_ids).logits[0, :-1].float()
        log_probs = torch.log_softmax(logits, dim=-1)
        targets = input_ids[0, 1:]
        return [float(v) for v in log_probs[torch.arange(len(targets)), targets].tolist()]
