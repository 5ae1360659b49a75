"""llama.cpp threads: time real pairwise recap questions to a GGUF model with 1 and with 2 threads.

On a machine shared with other jobs, llama.cpp's threads wait for each other at every layer, so more
threads can be slower (the `llamacpp:PATH?threads=N` spec option). Each question is a different
candidate of the first gold recap target (the model keeps no state between them that could help), the
thread counts alternate in blocks, and nothing is cached. Prints one row per question: wall and CPU
seconds of this process, prompt tokens, the answer, and the load average.

    python benchmarks/bench_llamacpp_threads.py PATH.gguf [--per-block 3] [--blocks 4]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from fabula.llm import GenerateOptions, get_llm
from fabula.prompts import load_prompt

GOLD = Path(__file__).resolve().parent.parent / "data" / "recap" / "gold.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gguf")
    parser.add_argument("--per-block", type=int, default=3, help="questions per block")
    parser.add_argument("--blocks", type=int, default=4, help="blocks, alternating 1 and 2 threads")
    args = parser.parse_args()
    row = json.loads(GOLD.read_text(encoding="utf-8").splitlines()[0])
    text = (GOLD.parent / row["book"]).read_text(encoding="utf-8")
    target = text[slice(*row["target"])]
    prompt = load_prompt("recap/pairwise")
    options = GenerateOptions(max_tokens=16)
    candidate = len(row["candidates"])
    print("| threads | candidate | wall s | CPU s | prompt tokens | answer | load |")
    print("|---:|---:|---:|---:|---:|---|---:|")
    for block in range(args.blocks):
        threads = 1 + block % 2
        llm = get_llm(f"llamacpp:{args.gguf}?threads={threads}", cache=False)
        for _ in range(args.per_block):
            candidate -= 1
            messages = prompt.messages(candidate=text[slice(*row["candidates"][candidate])], target=target)
            wall, cpu = time.perf_counter(), time.process_time()
            answer = llm.generate(messages, options)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            print(
                f"| {threads} | {candidate} | {wall:.1f} | {cpu:.2f} | {answer.prompt_tokens} | "
                f"`{answer.text}` | {os.getloadavg()[0]:.1f} |",
                flush=True,
            )
        llm.close()


if __name__ == "__main__":
    main()
