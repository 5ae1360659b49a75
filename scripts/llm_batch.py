"""Run a fabula command's LLM calls in batches on a GPU: record the requests, generate them at once, replay.

fabula's LLM methods send one request at a time through `LLM.generate`. A small local model on this CPU
answers a few tokens per second, so RECIDENT's pairwise method on the recap gold set (3,840 calls of up to
512 answer tokens) would take days. When a command's requests do not depend on earlier answers they can be

1. **recorded** (``record``): the command runs against a loopback server that imitates llama-cpp-python's
   (``/v1/models`` owned by ``me``; ``/extras/tokenize`` with the model's own tokenizer when ``--gguf`` is
   given, so token counts are the model's) and answers every chat request with a placeholder, writing
   each distinct request to REQUESTS.jsonl;
2. **generated** (``generate``, on a machine with ``torch`` and ``transformers``, a GPU if there is one):
   the model answers every request in padded batches with llama-cpp-python's semantics: the GGUF's chat
   template, greedy decoding at temperature 0 (other temperatures are refused), a context window of
   ``--n-ctx`` tokens (a prompt that does not fit is an HTTP 400 error, as llama-cpp-python raises it;
   ``max_tokens`` is cut to what fits), stop strings cut the answer;
3. **replayed** (``replay``): the same command runs against a loopback server that answers from
   ANSWERS.jsonl. A request that was not generated gets HTTP 400 (no retry) and is counted: a command whose requests
   depend on earlier answers needs another record/generate round, and the replay says so.

In the command, ``{llm}`` stands for the ``--llm`` spec of the loopback server. Batched greedy decoding in
padded batches is not bit-identical to one request at a time (the sums run in another order), so a result
is "the model's answers generated in batches", which any write-up should say.

Why not llama-cpp-python's server on the GPU machine: it must be compiled there with CUDA (minutes of a
short lease, with no network), while torch and transformers are already installed; transformers reads the
same GGUF file (``pip install gguf``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PLACEHOLDER = "(recorded)"
KEY_FIELDS = ("messages", "max_tokens", "temperature", "top_p", "stop", "seed", "response_format")


def request_key(body: dict[str, Any]) -> str:
    """What decides an answer: the messages and the decoding options (not the model name)."""
    fields = {name: body.get(name) for name in KEY_FIELDS}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


class Tokenizer:
    """The model's own tokenizer through llama.cpp (vocabulary only), as llama-cpp-python's server uses it."""

    def __init__(self, gguf: Path) -> None:
        import llama_cpp

        self._llama = llama_cpp.Llama(model_path=str(gguf), vocab_only=True, verbose=False)

    def tokenize(self, text: str) -> list[int]:
        return list(self._llama.tokenize(text.encode("utf-8"), special=True))

    def detokenize(self, tokens: list[int]) -> str:
        return bytes(self._llama.detokenize(tokens)).decode("utf-8", errors="replace")


class LoopbackServer:
    """An OpenAI chat-completions server on 127.0.0.1 imitating llama-cpp-python; ``answer(body)`` gives
    ``(status, payload)``. Use as a context manager."""

    def __init__(
        self, answer: Callable[[dict[str, Any]], tuple[int, dict[str, Any]]], tokenizer: Tokenizer | None
    ) -> None:
        self.answer = answer
        self.tokenizer = tokenizer
        self.lock = threading.Lock()
        handler = self._handler()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def llm_spec(self) -> str:
        host, port = self._server.server_address[:2]
        return f"openai:replay@http://{host!s}:{port}/v1"

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *args: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/v1/models"):
                    model = {"id": "replay", "object": "model", "owned_by": "me", "permissions": []}
                    self._send(200, {"object": "list", "data": [model]})
                else:
                    self._send(404, {"detail": "Not Found"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                tokenizer = server.tokenizer
                if self.path == "/extras/tokenize" and tokenizer is not None:
                    self._send(200, {"tokens": tokenizer.tokenize(str(body.get("input", "")))})
                elif self.path == "/extras/detokenize" and tokenizer is not None:
                    self._send(200, {"text": tokenizer.detokenize(list(body.get("tokens", [])))})
                elif self.path.endswith("/chat/completions"):
                    self._send(*server.answer(body))
                else:
                    self._send(404, {"detail": "Not Found"})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def chat_payload(text: str, prompt_tokens: int, completion_tokens: int, finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-replay",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "replay",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def run_command(command: list[str], spec: str) -> int:
    if not command:
        sys.exit("llm_batch: no command after --")
    return subprocess.call([part.replace("{llm}", spec) for part in command])


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        sys.exit(f"llm_batch: {path}: {exc}")


def record(out: Path, tokenizer: Tokenizer | None, command: list[str]) -> int:
    """Run the command against the placeholder server; append its distinct requests to ``out``."""
    seen = {row["key"] for row in read_jsonl(out)} if out.exists() else set()
    new: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        key = request_key(body)
        with server.lock:
            if key not in seen:
                seen.add(key)
                new.append({"key": key, **{name: body.get(name) for name in KEY_FIELDS}})
        return 200, chat_payload(PLACEHOLDER, 0, 0, "stop")

    with LoopbackServer(answer, tokenizer) as server:
        status = run_command(command, server.llm_spec)
    with out.open("a", encoding="utf-8") as handle:
        for row in new:
            handle.write(json.dumps(row) + "\n")
    print(f"llm_batch record: {len(new)} new requests ({len(seen)} in {out}); the command exited {status}")
    return status


def replay(answers_path: Path, tokenizer: Tokenizer | None, command: list[str]) -> int:
    """Run the command against the server that answers from ``answers_path``."""
    answers = {row["key"]: row for row in read_jsonl(answers_path)}
    counts = {"answered": 0, "errors": 0, "missing": 0}

    def answer(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        row = answers.get(request_key(body))
        with server.lock:
            counts["missing" if row is None else "errors" if "error" in row else "answered"] += 1
        if row is None:
            message = "llm_batch: this request was not generated"  # 400: not worth a retry
            return 400, {"error": {"message": message, "type": "invalid_request_error"}}
        if "error" in row:
            return 400, {"error": {"message": row["error"], "type": "invalid_request_error"}}
        return 200, chat_payload(
            row["text"], row["prompt_tokens"], row["completion_tokens"], row["finish_reason"]
        )

    with LoopbackServer(answer, tokenizer) as server:
        status = run_command(command, server.llm_spec)
    print(
        f"llm_batch replay: {counts['answered']} answered, {counts['errors']} errors as generated, "
        f"{counts['missing']} not generated; the command exited {status}"
    )
    return status if counts["missing"] == 0 else (status or 3)


def batches(
    order: list[int], lengths: list[int], limits: list[int], budget: int, most: int
) -> Iterable[list[int]]:
    """Consecutive runs of ``order`` (sorted by length) whose padded size stays inside ``budget`` tokens."""
    batch: list[int] = []
    for index in order:
        trial = [*batch, index]
        longest = max(lengths[i] + limits[i] for i in trial)
        if batch and (len(trial) * longest > budget or len(trial) > most):
            yield batch
            batch = [index]
        else:
            batch = trial
    if batch:
        yield batch


def generate(requests_path: Path, out: Path, gguf: Path, n_ctx: int, budget: int, most: int) -> int:
    """Answer every request not yet in ``out`` with the GGUF model through transformers."""
    import torch
    import transformers

    requests = read_jsonl(requests_path)
    done = {row["key"] for row in read_jsonl(out)} if out.exists() else set()
    todo = [r for r in requests if r["key"] not in done]
    refused = [r for r in todo if (r.get("temperature") or 0.0) != 0.0 or r.get("response_format")]
    if refused:
        sys.exit(
            f"llm_batch: {requests_path}: {len(refused)} requests sample or ask for a format (greedy only)"
        )
    transformers.utils.logging.disable_progress_bar()  # one bar per tensor while a GGUF is read
    device = "cuda" if torch.cuda.is_available() else "cpu"
    started = time.perf_counter()
    tokenizer = transformers.AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, dtype=torch.float32
    ).to(device)
    model.eval()
    eos = tokenizer.eos_token_id
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos
    print(
        f"llm_batch generate: {len(todo)} requests on {device}; model loaded in {time.perf_counter() - started:.1f} s"
    )
    prompts: list[list[int]] = []
    for row in todo:
        encoded = tokenizer.apply_chat_template(row["messages"], add_generation_prompt=True, return_dict=True)
        prompts.append(list(encoded["input_ids"]))
    lengths = [len(p) for p in prompts]
    # llama-cpp-python: a prompt of n_ctx tokens or more is refused; max_tokens is cut to what fits
    limits = [min(int(r.get("max_tokens") or n_ctx), n_ctx - n) for r, n in zip(todo, lengths, strict=True)]
    written = 0
    with out.open("a", encoding="utf-8") as handle:
        for index, row in enumerate(todo):
            if lengths[index] >= n_ctx:
                message = f"Requested tokens ({lengths[index]}) exceed context window of {n_ctx}"
                handle.write(json.dumps({"key": row["key"], "error": message}) + "\n")
                written += 1
        order = sorted((i for i in range(len(todo)) if lengths[i] < n_ctx), key=lambda i: lengths[i])

        def answer(batch: list[int]) -> None:
            """Generate one padded batch and append its answers; a batch the GPU cannot hold is halved."""
            nonlocal written
            try:
                output, width = run_batch(batch)
            except torch.OutOfMemoryError:
                if len(batch) == 1:
                    raise
                torch.cuda.empty_cache()
                print(f"  out of memory at {len(batch)} requests: halving the batch", flush=True)
                answer(batch[: len(batch) // 2])
                answer(batch[len(batch) // 2 :])
                return
            for row_index, i in enumerate(batch):
                new = output[row_index, width:].tolist()[: limits[i]]
                finish = "length"
                if eos in new:
                    new, finish = new[: new.index(eos)], "stop"
                text = tokenizer.decode(new, skip_special_tokens=True)
                for stop in todo[i].get("stop") or []:
                    if stop in text:
                        text, finish = text[: text.index(stop)], "stop"
                row = {
                    "key": todo[i]["key"],
                    "text": text,
                    "prompt_tokens": lengths[i],
                    "completion_tokens": len(new),
                    "finish_reason": finish,
                }
                handle.write(json.dumps(row) + "\n")
                written += 1
            handle.flush()
            print(
                f"  {written}/{len(todo)} answered ({len(batch)} x {width} prompt tokens, "
                f"{time.perf_counter() - started:.0f} s)",
                flush=True,
            )

        def run_batch(batch: list[int]) -> tuple[Any, int]:
            width = max(lengths[i] for i in batch)
            ids = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for row_index, i in enumerate(batch):  # left padding: every prompt ends where generation starts
                ids[row_index, width - lengths[i] :] = torch.tensor(prompts[i])
                mask[row_index, width - lengths[i] :] = 1
            with torch.no_grad():
                output = model.generate(
                    input_ids=ids.to(device),
                    attention_mask=mask.to(device),
                    max_new_tokens=max(limits[i] for i in batch),
                    do_sample=False,
                    repetition_penalty=1.0,
                    eos_token_id=eos,
                    pad_token_id=pad,
                )
            return output, width

        for batch in batches(order, lengths, limits, budget, most):
            answer(batch)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], usage="%(prog)s {record,replay} PATH [--gguf F] -- COMMAND"
    )
    verbs = parser.add_subparsers(dest="verb", required=True)
    for verb, path_help in (
        ("record", "REQUESTS.jsonl to append to"),
        ("replay", "ANSWERS.jsonl to answer from"),
    ):
        sub = verbs.add_parser(verb, help=f"run a fabula command ({{llm}} in it) with {path_help}")
        sub.add_argument("path", type=Path, help=path_help)
        sub.add_argument("--gguf", type=Path, help="the model file: its tokenizer for /extras/tokenize")
    gen = verbs.add_parser("generate", help="answer REQUESTS.jsonl into ANSWERS.jsonl (resumes)")
    gen.add_argument("requests", type=Path)
    gen.add_argument("answers", type=Path)
    gen.add_argument("--gguf", type=Path, required=True)
    gen.add_argument("--n-ctx", type=int, default=8192, help="the context window (fabula's llamacpp default)")
    gen.add_argument("--batch-tokens", type=int, default=400_000, help="padded tokens per batch at most")
    gen.add_argument("--batch-size", type=int, default=256, help="requests per batch at most")
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    if args.verb == "generate":
        return generate(
            args.requests, args.answers, args.gguf, args.n_ctx, args.batch_tokens, args.batch_size
        )
    tokenizer = Tokenizer(args.gguf) if args.gguf else None
    if args.verb == "record":
        return record(args.path, tokenizer, command)
    return replay(args.path, tokenizer, command)


if __name__ == "__main__":
    raise SystemExit(main())
