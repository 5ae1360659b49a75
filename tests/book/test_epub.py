"""Reading an .epub: reading-order text, title/author from the metadata, chapters from its documents."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from ebooklib import epub

from fabula.book import load_book
from fabula.errors import InputError


def _chapter(name: str, title: str, body: str) -> epub.EpubHtml:
    item = epub.EpubHtml(title=title, file_name=f"{name}.xhtml", lang="en")
    item.content = f"<html><head><title>{title}</title></head><body>{body}</body></html>"
    return item


def _write_epub(path: Path, *, numbered: bool) -> Path:
    book = epub.EpubBook()
    book.set_identifier("fabula-test-1")
    book.set_title("The Test of Time")
    book.set_language("en")
    book.add_author("Ann Author")
    contents = _chapter(
        "contents",
        "Contents",
        '<h1>Contents</h1><p><a href="c1.xhtml">The Arrival</a></p><p><a href="c2.xhtml">The Return</a></p>',
    )
    first = _chapter(
        "c1",
        "One",
        ("<h1>Chapter 1</h1>" if numbered else "<h1>The Arrival</h1>")
        + "<p>It was &ldquo;fine&rdquo; &amp; dry&mdash;very dry. Mr. Smith came.</p>"
        + "<script>alert('not text')</script>"
        + "<p>She said, <em>&ldquo;Are you there?&rdquo;</em> and waited.<br/>Nobody answered.</p>",
    )
    second = _chapter(
        "c2",
        "Two",
        ("<h2>Chapter 2</h2>" if numbered else "<h2>The Return</h2>")
        + "<p>He came back&nbsp;at last.</p><div><p>The end.</p></div>",
    )
    for item in (contents, first, second):
        book.add_item(item)
    book.toc = (first, second)
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", contents, first, second]
    epub.write_epub(str(path), book)
    return path


@pytest.mark.parametrize("numbered", [True, False], ids=["chapter-headings", "plain-titles"])
def test_epub_text_and_structure(tmp_path: Path, numbered: bool) -> None:
    book = load_book(_write_epub(tmp_path / "test.epub", numbered=numbered))
    assert (book.meta.title, book.meta.author) == ("The Test of Time", "Ann Author")
    assert (book.meta.source_format, book.meta.encoding) == ("epub", "utf-8")
    titles = ["Chapter 1", "Chapter 2"] if numbered else ["The Arrival", "The Return"]
    assert [c.title for c in book.chapters] == titles
    assert not any(c.synthetic for c in book.chapters)
    paragraphs = [book.span_text(p) for p in book.paragraphs]
    assert paragraphs == [
        titles[0],
        "It was \u201cfine\u201d & dry\u2014very dry. Mr. Smith came.",
        "She said, \u201cAre you there?\u201d and waited.",
        "Nobody answered.",
        titles[1],
        "He came back at last.",  # &nbsp; is white space like any other
        "The end.",
    ]
    # the navigation document and the link-only contents page are not reading text; nor is the script
    assert "Contents" not in book.text and "alert" not in book.text
    sentences = [book.span_text(s) for s in book.sentences]
    assert "It was \u201cfine\u201d & dry\u2014very dry." in sentences and "Mr. Smith came." in sentences


def test_broken_epub(tmp_path: Path) -> None:
    path = tmp_path / "broken.epub"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    with pytest.raises(InputError, match="not a readable EPUB"):
        load_book(path)


def test_epub_without_text(tmp_path: Path) -> None:
    book = epub.EpubBook()
    book.set_identifier("empty")
    book.set_title("Empty")
    page = _chapter("c1", "One", "<div></div>")
    book.add_item(page)
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", page]
    path = tmp_path / "empty.epub"
    epub.write_epub(str(path), book)
    with pytest.raises(InputError, match="no readable text"):
        load_book(path)


def _rewritten(source: Path, target: Path, change: Callable[[str, bytes], bytes | None]) -> Path:
    """A copy of the EPUB ``source`` with each entry's bytes passed through ``change`` (None drops it)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            data = change(info.filename, old.read(info.filename))
            if data is not None:
                new.writestr(info.filename, data)
    return target


def test_a_small_epub_that_unpacks_past_the_limit_is_refused(tmp_path: Path) -> None:
    """--max-bytes bounds what the EPUB unpacks to, not only the compressed file (no MemoryError)."""
    source = _write_epub(tmp_path / "test.epub", numbered=True)
    filler = b"<html><body><p>" + b"a " * 3_000_000 + b"</p></body></html>"
    big = _rewritten(source, tmp_path / "big.epub", lambda n, d: filler if n.endswith("c2.xhtml") else d)
    assert big.stat().st_size < 1_000_000
    with pytest.raises(InputError, match=r"unpacks to .*--max-bytes"):
        load_book(big, max_bytes=1_000_000)
    assert "He came back" in load_book(source, max_bytes=1_000_000).text  # the limit spares the small one


def test_a_truncated_package_file_is_a_one_line_error(tmp_path: Path) -> None:
    source = _write_epub(tmp_path / "test.epub", numbered=True)
    cut = _rewritten(
        source, tmp_path / "cut.epub", lambda n, d: d[: len(d) // 2] if n.endswith(".opf") else d
    )
    with pytest.raises(InputError, match="not a readable EPUB"):
        load_book(cut)


def test_a_chapter_the_html_parser_cannot_read_is_kept_or_reported(tmp_path: Path) -> None:
    """A content document ebooklib's parser returns empty (a frameset instead of a body) is read from its
    own markup; one whose text is lost anyway is named in a warning, never dropped without a word."""
    source = _write_epub(tmp_path / "test.epub", numbered=True)
    frameset = b"<html><frameset><p>He came back at last.</p></frameset></html>"
    odd = _rewritten(source, tmp_path / "odd.epub", lambda n, d: frameset if n.endswith("c2.xhtml") else d)
    assert "He came back at last." in load_book(odd).text
