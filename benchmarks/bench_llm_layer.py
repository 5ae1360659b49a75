"""Overhead of fabula's LLM layer against a local scripted OpenAI server (no model time at all).

Measures requests/s through `LLM.generate_many` (concurrency 1 and 8) next to the bare openai SDK at the
same concurrency, and the latency of a cache hit for a chapter-sized (~16 KB) prompt. Target: a cache hit
costs < 1 ms.

    python benchmarks/bench_llm_layer.py [--requests 400]

With ``--llm SPEC --pdnc-novel DIR`` it instead runs LLM quotation attribution end to end on one PDNC
novel (gold quote spans, gold character list) and prints accuracy, failures and time:

    python benchmarks/bench_llm_layer.py --llm llamacpp:/path/model.gguf --pdnc-novel ../shared/data/pdnc/DaisyMiller
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
    parser.add_argument("--llm", help="run LLM attribution with this model spec instead")
    parser.add_argument("--pdnc-novel", type=Path, help="a PDNC novel folder (with --llm)")
    parser.add_argument("--strategy", default="first", choices=["first", "incremental"])
    parser.add_argument("--window-tokens", type=int, default=4096)
    parser.add_argument("--stride-tokens", type=int, default=1024)
    parser.add_argument(
        "--no-json-schema",
        action="store_true",
        help="only JSON mode: do not constrain the answer to the window's ids and the cast's names",
    )
    args = parser.parse_args()
    if args.llm:
        attribution_run(args)
        return
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


def attribution_run(args: argparse.Namespace) -> None:
    """LLM attribution on one PDNC novel with gold quotes and characters; accuracy as in the paper."""
    from fabula.book import Quote
    from fabula.datasets import load_pdnc_novel
    from fabula.quotes._llm_attribution import attribute_quotes_with_llm

    started = time.perf_counter()
    novel = load_pdnc_novel(args.pdnc_novel)
    quotes = [Quote(id=q.id, spans=list(q.spans)) for q in novel.quotes]
    llm = get_llm(args.llm, cache=True)
    report = attribute_quotes_with_llm(
        novel.book,
        llm,
        quotes=quotes,
        characters=novel.characters,
        strategy=args.strategy,
        window_tokens=args.window_tokens,
        stride_tokens=args.stride_tokens,
        json_schema=not args.no_json_schema,
        progress="LLM attribution",
    )
    elapsed = time.perf_counter() - started
    gold = {q.id: q.speaker_id for q in novel.quotes}
    scored = [q for q in quotes if gold[q.id] is not None]
    major = novel.scored_speakers()
    scored_major = [q for q in scored if gold[q.id] in major]
    rows = [
        ("novel", novel.name),
        ("model", args.llm),
        (
            "strategy / window / overlap",
            f"{args.strategy} / {args.window_tokens} / {args.stride_tokens} tokens",
        ),
        (
            "prompt / answer constraint",
            f"{report.prompt} / {'JSON mode' if args.no_json_schema else 'JSON schema'}",
        ),
        ("token counter", report.token_counter),
        ("quotes (gold speaker is a character)", f"{len(scored)} of {len(quotes)}"),
        (
            "accuracy, all character quotes",
            f"{sum(q.speaker_id == gold[q.id] for q in scored) / len(scored):.3f}",
        ),
        (
            "accuracy, speakers with >= 10 quotes",
            f"{sum(q.speaker_id == gold[q.id] for q in scored_major) / max(1, len(scored_major)):.3f}",
        ),
        ("windows (chapters split)", f"{report.windows} ({report.chapters_split})"),
        ("answers unmapped / missing", f"{report.unmapped} / {report.missing}"),
        ("windows retried / failed", f"{report.retried_windows} / {report.failed_windows}"),
        ("top unmapped names", ", ".join(f"{n} ({c})" for n, c in report.unmapped_names.most_common(5))),
        ("usage", llm.usage.line()),
        ("wall time", f"{elapsed:.0f} s"),
    ]
    table = Table(title="LLM quotation attribution, one PDNC novel")
    table.add_column("measurement")
    table.add_column("result")
    for name, value in rows:
        table.add_row(name, value)
    Console().print(table)


if __name__ == "__main__":
    main()
