"""Overhead of fabula's LLM layer against a local scripted OpenAI server (no model time at all).

Measures requests/s through `LLM.generate_many` (concurrency 1 and 8) next to the bare openai SDK at the
same concurrency, and the latency of a cache hit for a chapter-sized (~16 KB) prompt. Target: a cache hit
costs < 1 ms.

    python benchmarks/bench_llm_layer.py [--requests 400]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.console import Console
from rich.table import Table

from fabula.llm import GenerateOptions, get_llm
from fabula.llm.testing import ScriptedOpenAIServer

ANSWER = '{"1": "Daisy Miller", "2": "Winterbourne"}'
CHAPTER_PROMPT = ('"I\'m an American man," said Winterbourne, looking at the child. ' * 250)[:16000]


def bare_sdk_rate(url: str, prompts: list[str], concurrency: int) -> float:
    import openai

    client = openai.OpenAI(api_key="x", base_url=url, max_retries=0)

    def call(prompt: str) -> str:
        response = client.chat.completions.create(
            model="bench", messages=[{"role": "user", "content": prompt}], max_tokens=64, temperature=0.0
        )
        return response.choices[0].message.content or ""

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(call, prompts))
    return len(prompts) / (time.perf_counter() - started)


def layer_rate(url: str, prompts: list[str], concurrency: int, cache: Path | bool) -> float:
    llm = get_llm(f"openai:bench@{url}", cache=cache, concurrency=concurrency)
    started = time.perf_counter()
    results = llm.generate_many(prompts, GenerateOptions(max_tokens=64))
    elapsed = time.perf_counter() - started
    assert all(r.ok for r in results)
    return len(prompts) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    args = parser.parse_args()
    prompts = [f"{i}: {CHAPTER_PROMPT[:2000]}" for i in range(args.requests)]
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp, ScriptedOpenAIServer(ANSWER) as server:
        layer_rate(server.url, prompts[:20], 4, False)  # warm up the SDK import and connections
        rows.append(("bare openai SDK, concurrency 8", f"{bare_sdk_rate(server.url, prompts, 8):,.0f} req/s"))
        rows.append(
            (
                "fabula layer, no cache, concurrency 1",
                f"{layer_rate(server.url, prompts, 1, False):,.0f} req/s",
            )
        )
        rows.append(
            (
                "fabula layer, no cache, concurrency 8",
                f"{layer_rate(server.url, prompts, 8, False):,.0f} req/s",
            )
        )
        cache_dir = Path(tmp)
        rows.append(
            (
                "fabula layer, cache misses (writes), concurrency 8",
                f"{layer_rate(server.url, prompts, 8, cache_dir):,.0f} req/s",
            )
        )
        rows.append(
            (
                "fabula layer, all cache hits, concurrency 8",
                f"{layer_rate(server.url, prompts, 8, cache_dir):,.0f} req/s",
            )
        )

        llm = get_llm(f"openai:bench@{server.url}", cache=cache_dir)
        llm.generate(CHAPTER_PROMPT)
        requests_before = server.requests
        latencies = []
        for _ in range(2000):
            started = time.perf_counter()
            generation = llm.generate(CHAPTER_PROMPT)
            latencies.append(time.perf_counter() - started)
            assert generation.cached
        assert server.requests == requests_before
        latencies.sort()
        median_ms = statistics.median(latencies) * 1000
        p99_ms = latencies[int(len(latencies) * 0.99)] * 1000
        rows.append(("cache hit, 16 KB prompt: median", f"{median_ms:.3f} ms"))
        rows.append(("cache hit, 16 KB prompt: p99", f"{p99_ms:.3f} ms"))

    table = Table(title=f"LLM layer overhead ({args.requests} requests, scripted server on 127.0.0.1)")
    table.add_column("measurement")
    table.add_column("result", justify="right")
    for name, value in rows:
        table.add_row(name, value)
    Console().print(table)
    verdict = "PASS" if median_ms < 1.0 else "FAIL"
    Console().print(f"cache hit < 1 ms: {verdict} ({median_ms:.3f} ms median)")


if __name__ == "__main__":
    main()
