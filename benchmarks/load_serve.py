"""A bounded load test of ``fabula serve``: several readers at once requesting random positions of one
book (cast, a character sheet, recap, quotes, text), which makes analyses start, queue, get prefetched
and get taken over by requests all at once. Every answer must be 200: exit status 1 on any error.

    python benchmarks/load_serve.py                      # the example novel, 240 requests, 8 readers
    python benchmarks/load_serve.py --book ../shared/data/pdnc/Emma/novel_text.txt --requests 200

Bounded: each request has a timeout and the whole run a deadline (``--max-seconds``); a request still
unanswered then counts as an error.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_serve import ROOT, free_port, get, start_server, wait_up


def request(url: str, timeout: float) -> tuple[int, bytes]:
    """Status and body of a GET, errors included (a timeout or refused connection is status 0)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except OSError as exc:
        return 0, str(exc).encode()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--book", type=Path, default=ROOT / "examples/alice_in_wonderland.txt")
    parser.add_argument("--requests", type=int, default=240, help="requests in all (at least 200)")
    parser.add_argument("--readers", type=int, default=8, help="concurrent readers")
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--max-seconds", type=float, default=600.0, help="deadline of the whole run")
    args = parser.parse_args()

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cache = tempfile.mkdtemp(prefix="fabula-serve-load-")
    process = start_server(args.book, port, cache)
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    times: list[float] = []
    lock = threading.Lock()
    try:
        wait_up(base, process)
        book_id = get(base + "/api/books")["books"][0]["id"]
        api = f"{base}/api/books/{urllib.parse.quote(book_id)}"
        while (meta := get(api))["state"] == "loading":
            time.sleep(0.05)
        start, end = meta["body_start"], meta["body_end"]
        deadline = time.monotonic() + args.max_seconds
        per_reader = -(-args.requests // args.readers)

        def reader(seed: int) -> None:
            rng = random.Random(seed)
            for _ in range(per_reader):
                at = rng.randint(start, end)
                endpoint = rng.choice(["characters", "characters/C1", "recap", "quotes", "text", "chapters"])
                url = f"{api}/{endpoint}?at={at}"
                if endpoint == "text":
                    url += f"&start={max(start, at - 5000)}"
                left = deadline - time.monotonic()
                began = time.perf_counter()
                status, body = request(url, max(1.0, left)) if left > 0 else (0, b"deadline passed")
                with lock:
                    times.append(time.perf_counter() - began)
                    # a character id absent at a very early position is a correct 404, not a failure
                    ok = status == 200 or (
                        status == 404 and endpoint == "characters/C1" and b"no character" in body
                    )
                    statuses[status] += 1
                    if not ok:
                        failures.append(f"{status} {url}: {body[:200].decode(errors='replace')}")

        master = random.Random(args.seed)
        threads = [threading.Thread(target=reader, args=(master.random(),)) for _ in range(args.readers)]
        began = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - began
    finally:
        process.terminate()
        process.wait()
    total = sum(statuses.values())
    print(f"book: {args.book.name} ({meta['words']:,} words); {args.readers} readers, {total} requests")
    print(f"statuses: {dict(sorted(statuses.items()))}; failures: {len(failures)}; wall {wall:.1f} s")
    print(f"latency: median {statistics.median(times) * 1000:.0f} ms, worst {max(times) * 1000:.0f} ms")
    for failure in failures[:10]:
        print("  " + failure)
    if failures or total < 200:
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
