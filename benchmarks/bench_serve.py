"""``fabula serve`` speed: the time from ``fabula serve BOOK`` to a usable reading page for a novel never
opened before (target ≤ 5 s for a 150K-word novel on 2 cores), and the latency of the position endpoints
(target ≤ 100 ms).

"Usable" is measured twice: (1) in a real headless Chromium (when the system has one and playwright is
installed): from starting the ``fabula serve`` process to the reading page showing the text, the cast
and the recaps at the reader's first screen; (2) the same requests the page makes, over HTTP only. Then per
endpoint: the first request at a new position (which computes the analysis of the book up to the
position's checkpoint) and requests at positions whose checkpoint is already analysed (the common case
while reading: one analysis serves every position up to the next checkpoint), median and worst of N. Then a
reader reading on, and ``--late-jumps`` more jumps to new checkpoints near the end of the book (where a new
checkpoint takes longest), for the spread of that time rather than one sample.

    python benchmarks/bench_serve.py --book ../shared/data/pdnc/Emma/novel_text.txt
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=300) as response:
        return orjson.loads(response.read())


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the process has used so far (all its threads), from /proc."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def helper_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by the server's child processes (the look-ahead helper, which prepares
    the next checkpoint on another core), from /proc."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                total += cpu_seconds(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return total


def load_average() -> str:
    """The machine's 1-, 5- and 15-minute load averages (on a shared machine, what the wall times ran beside)."""
    return "/".join(f"{load:.1f}" for load in os.getloadavg())


def timed(url: str) -> tuple[float, Any]:
    started = time.perf_counter()
    payload = get(url)
    return (time.perf_counter() - started) * 1000, payload


def start_server(book: Path, port: int, cache: str) -> subprocess.Popen[bytes]:
    """``fabula serve BOOK`` on ``port`` with its own analysis cache (a fresh folder: never analysed)."""
    command = [sys.executable, "-m", "fabula", "serve", str(book), "--port", str(port), "--cache", cache]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_up(base: str, process: subprocess.Popen[bytes]) -> None:
    while True:
        if process.poll() is not None:
            raise SystemExit(f"fabula serve exited with {process.returncode}")
        try:
            get(base + "/api/books")
            return
        except OSError:
            time.sleep(0.02)


def browser_time(book: Path, cache: str) -> float | None:
    """Seconds from starting ``fabula serve`` to the reading page showing text, cast and recaps."""
    import shutil

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if chromium is None:
        return None
    with sync_playwright() as driver, tempfile.TemporaryDirectory() as profile:
        context = driver.chromium.launch_persistent_context(
            profile, executable_path=chromium, headless=True, args=["--headless", "--no-sandbox"]
        )
        page = context.new_page()
        page.goto("about:blank")
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        started = time.perf_counter()
        process = start_server(book, port, cache)
        try:
            wait_up(base, process)
            books = get(base + "/api/books")["books"]
            page.goto(f"{base}/read/{urllib.parse.quote(books[0]['id'])}")
            page.wait_for_selector("#panel[data-state=ready]", timeout=120_000)
            seconds = time.perf_counter() - started
            cast = page.locator("#cast li").count()
            print(f"browser: page usable after {seconds:.2f} s (cast of {cast} at the first screen)")
            return seconds
        finally:
            process.terminate()
            process.wait()
            context.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--book", type=Path, default=ROOT.parent / "shared/data/pdnc/Emma/novel_text.txt")
    parser.add_argument("--repeat", type=int, default=20, help="requests per endpoint at analysed positions")
    parser.add_argument(
        "--late-jumps",
        type=int,
        default=6,
        help="then this many more jumps to new checkpoints late in the book (98, 96, 94, 88, 86, 84 %%, ...: "
        "backwards, so the look-ahead, which prepares the checkpoint after, never prepares the next one), "
        "for the spread of a new checkpoint's time where it is longest (0: none)",
    )
    args = parser.parse_args()
    started_load = load_average()
    caches = [tempfile.mkdtemp(prefix="fabula-serve-bench-") for _ in range(2)]
    try:
        run(args, *caches)
    finally:
        for cache in caches:  # each run's checkpoint folders (tens of megabytes for a long novel)
            shutil.rmtree(cache, ignore_errors=True)
    print(f"load average (1/5/15 min): {started_load} at the start, {load_average()} at the end")


def run(args: argparse.Namespace, browser_cache: str, cache: str) -> None:
    """The measurements (see the module docstring), each server with its own fresh cache folder."""
    browser = browser_time(args.book, browser_cache)

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    process = start_server(args.book, port, cache)
    try:
        wait_up(base, process)
        up = time.perf_counter() - started
        book_id = get(base + "/api/books")["books"][0]["id"]
        api = f"{base}/api/books/{urllib.parse.quote(book_id)}"
        while (meta := get(api))["state"] == "loading":
            time.sleep(0.05)
        loaded = time.perf_counter() - started
        get(f"{api}/text?at={meta['body_end']}")
        get(f"{api}/chapters?at={meta['body_end']}")
        text_ready = time.perf_counter() - started
        first = meta["body_start"] + (meta["body_end"] - meta["body_start"]) // 200  # about one screen in
        for endpoint in ("characters", "recap", "quotes"):
            get(f"{api}/{endpoint}?at={first}")
        usable = time.perf_counter() - started
        print(f"book: {args.book} ({meta['words']:,} words, {meta['chapters']} chapters)")
        print(
            f"server answering {up:.2f} s; book loaded {loaded:.2f} s; text on the page {text_ready:.2f} s;"
        )
        print(f"cast, recaps and quote speakers at the first screen {usable:.2f} s (HTTP only)")

        rows: list[tuple[str, str, float, float, float]] = []
        span = meta["body_end"] - meta["body_start"]
        for percent in (10, 30, 50, 70, 90):
            at = meta["body_start"] + span * percent // 100
            cpu_before = cpu_seconds(process.pid)
            helper_before = helper_cpu_seconds(process.pid)
            cold_cast, cast = timed(f"{api}/characters?at={at}")
            cpu_cast = cpu_seconds(process.pid) - cpu_before
            cpu_recap = cpu_seconds(process.pid)
            cold_recap, _ = timed(f"{api}/recap?at={at}")
            cpu_recap = cpu_seconds(process.pid) - cpu_recap
            helper = helper_cpu_seconds(process.pid) - helper_before
            rows.append((f"{percent}%", "characters + recap, new checkpoint", cold_cast, cold_recap, 0.0))
            print(
                f"{percent}%: new checkpoint: characters {cold_cast:.0f} ms wall, {cpu_cast * 1000:.0f} ms CPU; "
                f"recap {cold_recap:.0f} ms wall, {cpu_recap * 1000:.0f} ms CPU (of the server process, all "
                f"threads); meanwhile {helper * 1000:.0f} ms CPU in the look-ahead process"
            )
            character = cast["characters"][0]["id"]
            endpoints = {
                "characters": f"{api}/characters?at={at}",
                "characters/{id}": f"{api}/characters/{character}?at={at}",
                "recap": f"{api}/recap?at={at}",
                "quotes": f"{api}/quotes?at={at}&start={max(meta['body_start'], at - 20_000)}",
                "text (20K chars)": f"{api}/text?at={at}&start={max(meta['body_start'], at - 20_000)}",
                "chapters": f"{api}/chapters?at={at}",
                "search": f"{api}/search?at={at}&q=letter%20marriage",
            }
            first_sheet, _ = timed(endpoints["characters/{id}"])  # made on the first request
            rows.append((f"{percent}%", "characters/{id}, first request", first_sheet, first_sheet, 1.0))
            for name, url in endpoints.items():
                get(url)  # the search index is built by the first search
                times = sorted(timed(url)[0] for _ in range(args.repeat))
                rows.append((f"{percent}%", name, statistics.median(times), times[-1], float(len(times))))
        print()
        print("| position | endpoint | median ms | max ms | n |")
        print("|---|---|---:|---:|---:|")
        for position, name, median, worst, n in rows:
            if n == 0:
                print(f"| {position} | {name} | characters {median:.0f} | recap {worst:.0f} | 1 |")
            else:
                print(f"| {position} | {name} | {median:.1f} | {worst:.1f} | {n:.0f} |")
        # a reader reading on: a step of 0.25 % (about 400 words) a second from 20 % to 28 %; the checkpoint
        # ahead is analysed in the background, so crossing into it should not wait
        steps = []
        sheets = []  # the first cast member's sheet, then, at each step (untimed in ``steps``)
        for tenth in range(200, 281, 5):
            at = meta["body_start"] + span * tenth // 1000
            started_step = time.perf_counter()
            cast = get(f"{api}/characters?at={at}")
            for endpoint in ("recap", "quotes"):
                get(f"{api}/{endpoint}?at={at}")
            steps.append((time.perf_counter() - started_step) * 1000)
            sheets.append(timed(f"{api}/characters/{cast['characters'][0]['id']}?at={at}")[0])
            time.sleep(1.0)
        print(
            f"reading on from 20 % to 28 % (0.25 % a second, 4 checkpoints crossed): the jump to 20 % "
            f"{steps[0]:.0f} ms; then cast + recap + quotes per step (n={len(steps) - 1}) median "
            f"{statistics.median(steps[1:]):.0f} ms, worst {max(steps[1:]):.0f} ms; the first cast "
            f"member's sheet at each step median {statistics.median(sheets[1:]):.0f} ms, worst "
            f"{max(sheets[1:]):.0f} ms"
        )
        late = [98, 96, 94, *range(88, 0, -2)][: max(0, args.late_jumps)]
        jumps = []
        for percent in late:
            time.sleep(2.0)  # the look-ahead of the jump before settles (it is stopped by the jump anyway)
            at = meta["body_start"] + span * percent // 100
            cpu_before = cpu_seconds(process.pid)
            cold_cast, _ = timed(f"{api}/characters?at={at}")
            jumps.append((percent, cold_cast, (cpu_seconds(process.pid) - cpu_before) * 1000))
        if jumps:
            walls = [wall for _, wall, _ in jumps]
            cpus = [cpu for _, _, cpu in jumps]  # less dependent on what else runs on the machine than wall
            print(
                f"late jumps to new checkpoints ({len(jumps)}, {late[0]}-{late[-1]} %, 2 s apart): cast wall "
                f"median {statistics.median(walls):.0f} ms, worst {max(walls):.0f} ms; server CPU median "
                f"{statistics.median(cpus):.0f} ms; each (wall / server CPU): "
                + ", ".join(f"{p} % {wall:.0f} / {cpu:.0f} ms" for p, wall, cpu in jumps)
            )
        warm = [r for r in rows if r[4] > 0 and not r[1].endswith("first request")]  # analysed positions
        print(
            f"\nanalysed positions: median of medians {statistics.median(r[2] for r in warm):.1f} ms, "
            f"worst {max(r[3] for r in warm):.1f} ms; a character's sheet at its first request "
            + ", ".join(f"{r[2]:.0f}" for r in rows if r[1].endswith("first request"))
            + " ms"
        )
        if browser is not None:
            print(f"browser: {browser:.2f} s from `fabula serve` to a usable page")
    finally:
        process.terminate()
        process.wait()

    # a second server on the same cache: every checkpoint visited above comes back from disk
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = start_server(args.book, port, cache)
    try:
        wait_up(base, process)
        while get(api.replace(api.split("/api/")[0], base))["state"] == "loading":
            time.sleep(0.05)
        api = api.replace(api.split("/api/")[0], base)
        at = meta["body_start"] + span * 90 // 100
        cast_ms, _ = timed(f"{api}/characters?at={at}")
        recap_ms, _ = timed(f"{api}/recap?at={at}")
        print(
            f"restarted on the same cache: at 90 % characters {cast_ms:.0f} ms, recap {recap_ms:.0f} ms (from disk)"
        )
    finally:
        process.terminate()
        process.wait()


if __name__ == "__main__":
    main()
