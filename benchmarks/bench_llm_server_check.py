"""A running llama-cpp-python server against in-process SmolLM2-135M (issue 31): what fabula learns about
the server, its log-probability calibration (counting 1..20) both ways, and token counts of Alice.

    python -m llama_cpp.server --model SMOLLM2.gguf --model_alias smollm2 --port 8931 --n_threads 1 &
    python benchmarks/bench_llm_server_check.py http://127.0.0.1:8931/v1 SMOLLM2.gguf
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from fabula.llm import get_llm, heuristic_token_count
from fabula.llm._openai import CALIBRATION_TEXT, check_logprobs_layout, prompt_values


def main(url: str, model: str) -> None:
    server = get_llm(f"openai:smollm2@{url}", cache=False)
    local = get_llm(f"llamacpp:{model}?threads=1", cache=False)
    print("server:", server.server, "| tokens counted by", server.token_counter_name)  # type: ignore[attr-defined]
    values = local.prompt_logprobs(CALIBRATION_TEXT) or []
    tail = values[len(values) // 2 :]
    print(f"in-process calibration: {len(values)} values, second-half mean {sum(tail) / len(tail):.3f}")
    echoed, offsets, prompt_tokens = server._echo(CALIBRATION_TEXT)  # type: ignore[attr-defined]
    scored = prompt_values(CALIBRATION_TEXT, echoed, offsets, prompt_tokens)
    tail = scored[len(scored) // 2 :]
    print(f"server echo: {len(echoed)} entries for {prompt_tokens} prompt tokens, {len(scored)} prompt values, "
          f"second-half mean {sum(tail) / len(tail):.3f}")  # fmt: skip
    print(
        "check:", check_logprobs_layout(CALIBRATION_TEXT, echoed, offsets, prompt_tokens, "llama-cpp-python")
    )
    text = Path("examples/alice_in_wonderland.txt").read_text(encoding="utf-8")
    started = time.monotonic()
    served = server.count_tokens(text)
    took = time.monotonic() - started
    print(f"Alice: server {served} tokens ({took:.1f} s), in-process {local.count_tokens(text)}, "
          f"heuristic {heuristic_token_count(text)}")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
