"""The report's HTML: escaping of book text, self-containment, and the content of each section."""

from __future__ import annotations

import base64
import hashlib
import html
import re
from pathlib import Path

import orjson

from fabula.report import IndexEntry, render_index, render_report, script_json
from tests.pipeline.handmade import HOSTILE
from tests.report.reportdata import handmade_analysis


def test_script_json_cannot_end_the_script_element() -> None:
    value = {"text": "</script><script>alert(1)</script><!-- & \u2028"}
    out = str(script_json(value))
    assert "<" not in out and ">" not in out and "&" not in out and "\u2028" not in out
    assert orjson.loads(out) == value


def test_book_text_is_escaped_everywhere() -> None:
    page = render_report(handmade_analysis())
    # exactly the two script elements of the page itself, no image, no event handler from the book
    assert len(re.findall(r"<script\b", page)) == 2
    assert "<img" not in page
    assert "<!--" not in page
    # the hostile sentence is in the profile, escaped as text
    assert html.escape("<script>alert(1)</script>", quote=False) in page
    data = re.search(r'<script type="application/json" id="fabula-data">(.*?)</script>', page, re.S)
    assert data is not None
    quotes = orjson.loads(data.group(1))["quotes"]
    assert any(HOSTILE in q[2] for q in quotes)


def test_self_contained_with_a_strict_content_security_policy() -> None:
    page = render_report(handmade_analysis())
    assert not re.search(r'(?:src|href)="(?:https?:)?//', page)
    assert "@import" not in page and "url(" not in page
    found = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert found is not None
    csp = html.unescape(found.group(1))
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp.split("script-src", 1)[1].split(";")[0]
    script = page.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in csp


def test_sections_show_the_analysis() -> None:
    page = render_report(handmade_analysis())
    cast = page.split('id="cast-table"', 1)[1].split("</table>", 1)[0]
    names = re.findall(r'<tr data-index="\d+">\s*<td[^>]*>\d+</td>\s*<td[^>]*><a[^>]*>([^<]+)</a>', cast)
    assert names[:5] == ["Alice", "Mabel", "White Rabbit", "Queen of Hearts", "Duchess"]
    assert "Alice: 4 quotations (40%)" in page  # speech share bar tooltip
    assert "Alice – White Rabbit: 3 lines" in page  # network edge
    assert "Queen of Hearts — CHAPTER III. The Queen: 5 mentions" in page  # heatmap cell
    assert page.count('<details class="panel"') == 5
    assert "description task" not in page and "No description yet" not in page  # no internal jargon
    assert "Alice (female) first appears in chapter 1 (CHAPTER I. The Garden), is named 7 times" in page
    assert "White Rabbit (male), also called Rabbit," in page and "Talks most with Alice." in page
    analysis = handmade_analysis()
    speaker = next(p for p in analysis.characters if p.lines)  # the sheet's characteristic lines are shown
    page = render_report(analysis)
    assert "Characteristic lines" in page and html.escape(speaker.lines[0], quote=False) in page


def test_index_links_books_and_lists_failures() -> None:
    summary = {"title": "Emma <b>", "author": "Jane Austen", "words": 160000, "chapters": 55,
               "characters": 40, "quotes": 2000, "attributed": 1800, "top_characters": ["Emma"]}  # fmt: skip
    page = render_index(
        [
            IndexEntry("Emma", "pdnc/Emma/novel_text.txt", "done", summary, 4.2),
            IndexEntry("empty", "empty.txt", "failed", None, 0.0, "empty.txt: the file is empty"),
        ]
    )
    assert '<a href="Emma/report.html">Emma &lt;b&gt;</a>' in page
    assert "failed: empty.txt: the file is empty" in page
    assert "160,000" in page


def test_compiled_templates_from_jinja2s_cache_are_the_fresh_compilation() -> None:
    """The report's templates are compiled once per machine (Jinja2's bytecode cache, ~50 ms a process);
    what a later process loads is the same code object a fresh compilation gives."""
    from fabula.report._render import _environment

    env = _environment()
    cache = env.bytecode_cache
    assert cache is not None and env.loader is not None
    for name in ("report.html.j2", "index.html.j2"):
        env.get_template(name)  # compiles and stores it when the cache lacks it
        source, filename, _ = env.loader.get_source(env, name)
        bucket = cache.get_bucket(env, name, filename, source)
        assert bucket.code is not None, name
        assert bucket.code == env.compile(source, name, filename), name


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    """A full or read-only temporary disk costs the compilation, not the report."""
    from fabula.report._render import _bytecode_cache, _environment

    env = _environment()
    broken = _bytecode_cache(env, str(tmp_path / "gone"))  # writing there fails: the folder is missing
    assert broken is not None
    quiet = env.overlay(bytecode_cache=broken)
    template = quiet.get_template("index.html.j2")  # compiled, and storing it fails quietly
    assert template.name == "index.html.j2"
    assert not (tmp_path / "gone").exists()
