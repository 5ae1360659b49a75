"""The report in a real headless Chromium: loads cleanly, tables sort, the quote filter works, and hostile
book text stays text."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula._files import write_text_atomic
from fabula.report import render_report
from tests.report.browser import open_page
from tests.report.reportdata import handmade_analysis

pytestmark = pytest.mark.browser


def test_report_in_chromium(tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    write_text_atomic(report, render_report(handmade_analysis()))
    with open_page(report.as_uri(), tmp_path / "profile") as (page, problems):
        page.wait_for_timeout(200)  # give any injected script or onerror handler the chance to fire
        # the cast table has one row per character, in rank order
        names = page.locator("#cast-table tbody tr td:nth-child(2)").all_inner_texts()
        assert names == ["Alice", "Mabel", "White Rabbit", "Queen of Hearts", "Duchess"]

        # clicking a header sorts by it (most quotations first on the second click)
        header = page.locator("#cast-table th", has_text="Quotes")
        header.click()
        header.click()
        assert page.locator("#cast-table tbody tr td:nth-child(2)").first.inner_text() == "Alice"
        assert header.get_attribute("aria-sort") == "descending"

        # the quote browser filters by speaker and by search words
        assert page.locator("#quote-list li").count() == 10
        page.select_option("#speaker-filter", label="White Rabbit (3)")
        speakers = page.locator("#quote-list li .who").all_inner_texts()
        assert speakers == ["White Rabbit"] * 3
        page.fill("#quote-search", "odd")
        assert page.locator("#quote-list li .text").all_inner_texts() == ["\u201cHow odd,\u201d"]
        assert page.locator("#quote-count").inner_text() == "1 of 10 quotations"
        page.select_option("#speaker-filter", value="all")
        page.fill("#quote-search", "")

        # a character panel opens from a link and lists that character's lines
        page.locator("#cast-table a", has_text="Mabel").first.click()
        assert page.locator("#c1").get_attribute("open") is not None
        assert page.locator("#c1 ol.lines li").all_inner_texts()[0].endswith("\u201cRead it anyway,\u201d")

        # hostile book text is shown as text: no dialog, no image element, the markup visible as words
        assert page.locator("img").count() == 0
        assert page.evaluate("document.scripts.length") == 2
        page.fill("#quote-search", "alert(1)")
        shown = page.locator("#quote-list li .text").inner_text()
        assert "<script>alert(1)</script> and <img src=x onerror=alert(2)>" in shown
        assert "<script>alert(1)</script>" in page.locator("#c1 blockquote.profile").inner_text()

        screenshot = tmp_path / "report.png"
        page.screenshot(path=str(screenshot), full_page=True)
        assert screenshot.stat().st_size > 10_000
        assert problems == []


def test_example_novel_report_in_chromium(tmp_path: Path) -> None:
    """The real report of the shipped example: no console errors, one cast row per character, filter works."""
    from fabula.pipeline import analyze_book
    from tests.conftest import ROOT

    analysis = analyze_book(ROOT / "examples" / "alice_in_wonderland.txt")
    report = tmp_path / "report.html"
    write_text_atomic(report, render_report(analysis))
    with open_page(report.as_uri(), tmp_path / "profile") as (page, problems):
        rows = page.locator("#cast-table tbody tr td:nth-child(2)").all_inner_texts()
        assert rows == [c.name for c in analysis.characters]
        assert rows[0] == "Alice"
        alice_lines = analysis.characters[0].quote_count
        page.select_option("#speaker-filter", value="0")
        assert (
            page.locator("#quote-count").inner_text()
            == f"{alice_lines} of {len(analysis.book.quotes)} quotations"
        )
        assert set(page.locator("#quote-list li .who").all_inner_texts()) == {"Alice"}
        assert page.locator("svg.network circle").count() >= 5
        page.screenshot(path=str(tmp_path / "alice.png"))
        assert problems == []
