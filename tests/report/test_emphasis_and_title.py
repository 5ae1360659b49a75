"""Gutenberg's _emphasis_: italics in the report, dropped in plain outputs, offsets into the untouched text;
and the report's title from the book (or a readable folder name), never a raw file stem."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import orjson
import pytest

from fabula._files import write_text_atomic
from fabula.book import load_book, strip_emphasis
from fabula.pipeline import analyze_book
from fabula.quotes import detect_quotes, quote_records
from fabula.report import render_report
from tests.conftest import ROOT
from tests.report.browser import open_page

ALICE = ROOT / "examples" / "alice_in_wonderland.txt"


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        ('"_I_ see!"', '"I see!"'),
        ("you _could_ not", "you could not"),
        ("_Allez vous-en! Sapristi!_ That's all", "Allez vous-en! Sapristi! That's all"),
        ("snake_case and __init__ stay", "snake_case and __init__ stay"),
        ("a lone _ stays", "a lone _ stays"),
    ],
)
def test_strip_emphasis(raw: str, plain: str) -> None:
    assert strip_emphasis(raw) == plain


def test_plain_quote_output_drops_underscores_and_keeps_offsets() -> None:
    book = load_book(ALICE)
    detect_quotes(book)
    record = next(r for r in quote_records(book) if r["text"].startswith("Why, she"))
    assert "_" not in record["text"]
    assert "_she_" in book.text[record["start"] : record["end"]]  # offsets point into the untouched text
    assert not any(re.search(r"\b_\w+_\b", r["text"]) for r in quote_records(book))


def test_report_title_from_the_book_or_a_readable_folder_name(tmp_path: Path) -> None:
    page = render_report(analyze_book(ALICE))
    assert (
        "<title>Alice&#39;s Adventures in Wonderland" in page
        or "<title>Alice's Adventures in Wonderland" in page
    )
    folder = tmp_path / "TheSignOfTheFour"
    folder.mkdir()
    text = "Chapter I\n\nThe Science of Deduction\n\n" + '"Which is it to-day?" I asked. "Morphine?"\n' * 20
    (folder / "novel_text.txt").write_text(text)
    page = render_report(analyze_book(folder / "novel_text.txt"))
    assert "<h1>The Sign of the Four</h1>" in page or ">The Sign of the Four<" in page
    assert "TheSignOfTheFour" not in page.split("<body", 1)[1].split("fabula-data", 1)[0]


@pytest.mark.browser
def test_report_shows_emphasis_in_italics(tmp_path: Path) -> None:
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium); browser tests skipped")
    html = render_report(analyze_book(ALICE))
    data = re.search(r'<script type="application/json" id="fabula-data">(.*?)</script>', html, re.S)
    assert data is not None and any("_she_" in q[2] for q in orjson.loads(data.group(1))["quotes"])
    report = tmp_path / "report.html"
    write_text_atomic(report, html)
    with open_page(report.as_uri(), tmp_path / "profile") as (page, problems):
        page.fill("#quote-search", "why, she")  # the search sees the plain text
        item = page.locator("#quote-list li .text").first
        assert item.inner_text().startswith("\u201cWhy, she,")
        assert item.locator("em").all_inner_texts() == ["she"]
        assert "_" not in page.locator("#quote-list").inner_text()
        assert not problems
