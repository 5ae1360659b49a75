"""The reading page in a real headless Chromium against a real server: at 30 % of a PDNC novel the cast
lists only characters met before that point, a character sheet and the recaps hold no later text, a recap
link lands on its passage, and the console stays clean. With ``FABULA_SCREENSHOTS=1`` the screenshots go to
docs/ (docs/serve.md shows them); otherwise to the test's temporary folder, so a test run changes no file."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from fabula.book import load_book
from fabula.serve import Library
from tests.conftest import ROOT, pdnc_novel_dir
from tests.report.browser import open_page
from tests.serve.server import running_server
from tests.serve.test_api import NOVEL, _flat, _later_names

pytest.importorskip("fastapi", reason="the 'serve' extra (FastAPI) is not installed")
pytestmark = pytest.mark.browser

SHOTS = ROOT / "docs" if os.environ.get("FABULA_SCREENSHOTS") else None


def test_reading_at_30_percent(tmp_path: Path) -> None:
    novel = pdnc_novel_dir(NOVEL) / "novel_text.txt"
    book = load_book(novel)
    with (
        running_server(Library([novel])) as url,
        open_page(url + "/", tmp_path / "profile") as (page, problems),
    ):
        page.wait_for_selector("#panel[data-state=ready]", timeout=60_000)  # one book: / opens it
        assert page.url.endswith(f"/read/{NOVEL}")
        assert page.locator("#reader p").count() > 100

        page.locator("#slider").fill("5")  # 0.5 %: names on screen, the checkpoint still at the start
        page.wait_for_function(
            "() => document.getElementById('panel').dataset.state === 'ready' && "
            "Number(document.getElementById('panel').dataset.at) > 0",
            timeout=60_000,
        )
        note = page.locator("#cast-note").inner_text()
        assert note.startswith("As of ") and "you are at" in note, note

        page.locator("#slider").fill("300")  # move to 30 %
        page.wait_for_function(
            "() => { const p = document.getElementById('panel'); return p.dataset.state === 'ready' && "
            "Number(p.dataset.at) > 0.25 * document.getElementById('reader').textContent.length }",
            timeout=60_000,
        )
        at = int(page.locator("#panel").get_attribute("data-at") or 0)
        span = book.body.end - book.body.start
        assert 0.28 < (at - book.body.start) / span < 0.32
        read = _flat(book.text[:at])
        later = _later_names(book, at)

        def no_later_text(shown: str, where: str) -> None:
            for name in later:
                assert not re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", shown), f"{where}: {name}"

        cast = page.locator("#cast li button").all_inner_texts()
        assert "Alice" in cast and len(cast) >= 3
        for name in cast:
            assert name in book.text[:at], name  # every name shown was in the text already
        no_later_text(page.locator("#cast").inner_text(), "cast")
        for others in page.locator("#cast li .names").all_inner_texts():  # " also X, Y": each name once
            keys = [n.lower().replace(".", "").removeprefix("the ") for n in others.strip()[5:].split(", ")]
            assert len(keys) == len(set(keys)), others
        note = page.locator("#cast-note").inner_text()  # the name set aside in chapter 2 (the API's test)
        assert note.endswith(" Set aside, named but never shown as a person: Mabel."), note
        no_later_text(note, "cast note")

        page.locator("#cast li button", has_text="Alice").first.click()
        page.wait_for_selector("#sheet-body p.profile")
        page.wait_for_timeout(300)
        sheet_box = page.locator("#sheet-name").bounding_box()
        viewport = page.viewport_size
        assert sheet_box is not None and viewport is not None
        assert 0 <= sheet_box["y"] < viewport["height"], sheet_box  # the sheet clicked for is in view
        sheet = page.locator("#sheet").inner_text()
        no_later_text(sheet, "sheet")
        for sentence in page.locator("#sheet-body p.profile").all_inner_texts():
            assert _flat(sentence.removesuffix("…")) in read

        recaps = page.locator("#recaps li a")
        assert recaps.count() >= 3
        no_later_text(page.locator("#recaps").inner_text(), "recaps")
        for text in recaps.all_inner_texts():
            assert _flat(text.split(": ", 1)[-1].removesuffix("…")) in read

        shots = SHOTS or tmp_path
        page.screenshot(path=str(shots / "serve-reading.png"))
        first = recaps.first
        start = int(first.get_attribute("data-start") or -1)
        first.click()
        flashed = page.locator("#reader p.flash")
        assert flashed.count() == 1
        assert (
            int(flashed.get_attribute("data-start") or 0)
            <= start
            < int(flashed.get_attribute("data-end") or 0)
        )
        assert flashed.is_visible()
        box, pane = flashed.bounding_box(), page.locator("#reader").bounding_box()
        assert box is not None and pane is not None
        assert pane["y"] <= box["y"] + box["height"] / 2 <= pane["y"] + pane["height"]  # scrolled into view
        assert page.locator("#back").is_visible()

        hover = page.locator("#reader .quote[title]")
        assert hover.count() > 0  # quotes in view carry their speaker

        page.screenshot(path=str(shots / "serve-recap.png"))
        assert (shots / "serve-recap.png").stat().st_size > 10_000
        assert problems == []


HOSTILE = (
    'CHAPTER I.\n\nMary Brown looked at John Smith. "<script>alert(1)</script> and <img src=x onerror=alert(2)>," '
    "said Mary Brown. John Smith thought about the <b>harvest</b>.\n\n"
    + "".join(
        f'John Smith walked to the old mill in the {season} and thought about the harvest. "We shall see it '
        f'tomorrow," said John Smith to Mary Brown. Mary Brown nodded and went home to her sister.\n\n'
        for season in ["spring", "summer", "autumn", "winter"] * 15
    )
)


def test_hostile_book_text_stays_text(tmp_path: Path) -> None:
    novel = tmp_path / "hostile.txt"
    novel.write_text(HOSTILE, encoding="utf-8")
    with (
        running_server(Library([novel])) as url,
        open_page(url + "/read/hostile", tmp_path / "profile") as (page, problems),
    ):
        page.wait_for_selector("#panel[data-state=ready]", timeout=60_000)
        page.locator("#slider").fill("1000")
        page.wait_for_function(
            "() => document.getElementById('panel').dataset.state === 'ready' && "
            "document.querySelectorAll('#cast li').length > 0",
            timeout=60_000,
        )
        page.locator("#search-q").fill("script alert")
        page.locator("#search-q").press("Enter")
        page.wait_for_selector("#hits li a")
        page.wait_for_timeout(300)  # give any injected script or onerror handler the chance to fire
        assert page.locator("#reader img, #panel img, #reader script, #reader b, #reader i").count() == 0
        assert "<script>alert(1)</script>" in (page.locator("#reader").text_content() or "")
        assert "<script>alert(1)</script>" in page.locator("#hits").inner_text()
        assert problems == []


def test_llm_description_in_the_sheet(tmp_path: Path) -> None:
    """With --llm the sheet shows at once, and the model's description joins it when it arrives."""
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    novel = pdnc_novel_dir(NOVEL) / "novel_text.txt"
    with ScriptedOpenAIServer("A curious girl who keeps changing size.") as model_server:
        llm = get_llm(f"openai:test@{model_server.url}", cache=tmp_path / "llm.sqlite")
        with (
            running_server(Library([novel], llm=llm)) as url,
            open_page(f"{url}/read/{NOVEL}", tmp_path / "profile") as (page, problems),
        ):
            page.wait_for_selector("#panel[data-state=ready]", timeout=60_000)
            page.locator("#slider").fill("300")
            page.wait_for_function(
                "() => document.getElementById('panel').dataset.state === 'ready' && "
                "document.querySelectorAll('#cast li').length > 2",
                timeout=60_000,
            )
            page.locator("#cast li button", has_text="Alice").first.click()
            page.wait_for_selector("#sheet .generated h3", timeout=60_000)
            assert "A curious girl who keeps changing size." in page.locator("#sheet .generated").inner_text()
            assert page.locator("#sheet-body p.profile").count() > 0
            assert problems == []
    assert model_server.bodies
