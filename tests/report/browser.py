"""Driving Debian's Chromium headless with playwright (no browser download: ``executable_path``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    """Path of the system Chromium, or skip the test with the reason."""
    for name in ("chromium", "chromium-browser"):
        if found := shutil.which(name):
            return found
    pytest.skip("Chromium is not installed (Debian: apt-get install chromium); browser tests skipped")


@contextmanager
def open_page(url: str, profile_dir: Path) -> Iterator[tuple[Any, list[str]]]:
    """A page at ``url`` and the list that collects its console errors, page errors and dialogs."""
    executable = chromium_path()
    sync_api = pytest.importorskip("playwright.sync_api", reason="the 'playwright' package is not installed")
    problems: list[str] = []
    with sync_api.sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(profile_dir),
            executable_path=executable,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            page = context.new_page()
            page.on(
                "console",
                lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
            )
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))

            def on_dialog(dialog: Any) -> None:
                problems.append(f"dialog: {dialog.message}")
                dialog.dismiss()

            page.on("dialog", on_dialog)
            page.goto(url)
            page.wait_for_load_state("load")
            yield page, problems
        finally:
            context.close()
