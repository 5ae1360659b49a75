"""Reading book files: every common encoding decodes to the same text, and bad files give one clear error."""

from __future__ import annotations

import codecs
import os
import random
from pathlib import Path

import pytest

from fabula.book import decode_bytes, load_book, read_book_file
from fabula.errors import InputError

ENGLISH = (
    "CHAPTER I.\n\n"
    "\u201cIt is a truth,\u201d said Mr. Bennet, \u201cthat the caf\u00e9 is closed.\u201d She was na\u00efve\n"
    "about it \u2014 and about Mrs. Long\u2019s r\u00e9sum\u00e9 too.\n\n"
    "CHAPTER II.\n\n"
    "Elizabeth smiled. \u201cNo, indeed; it is \u00a35 a year!\u201d\n"
)
CHINESE = (
    "第一章 风雪山神庙\n\n"
    "林冲说：\u201c你好。\u201d然后走了。天亮了，雪还在下。\n\n"
    "第二章 梁山泊\n\n"
    "\u201c你来了吗？\u201d她问。他没有回答，只是笑了笑。\n"
)


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("encoded", "encoding"),
    [
        (ENGLISH.encode("utf-8"), "utf-8"),
        (codecs.BOM_UTF8 + ENGLISH.encode("utf-8"), "utf-8-sig"),
        (ENGLISH.encode("utf-16"), "utf-16"),  # with BOM, native order
        (codecs.BOM_UTF16_LE + ENGLISH.encode("utf-16-le"), "utf-16"),
        (codecs.BOM_UTF16_BE + ENGLISH.encode("utf-16-be"), "utf-16"),
        (ENGLISH.encode("utf-16-le"), "utf-16-le"),  # no BOM
        (ENGLISH.encode("cp1252"), "cp1252"),
    ],
    ids=["utf8", "utf8-bom", "utf16", "utf16le-bom", "utf16be-bom", "utf16le-nobom", "cp1252"],
)
def test_english_encodings(tmp_path: Path, encoded: bytes, encoding: str) -> None:
    book = load_book(_write(tmp_path, "book.txt", encoded))
    assert book.text == ENGLISH  # no BOM character left in the text, nothing normalised
    assert book.meta.encoding == encoding
    assert [c.title for c in book.chapters] == ["CHAPTER I.", "CHAPTER II."]


@pytest.mark.parametrize(
    "sentence",
    [
        "Caf\u00e9.",
        "\u201cYes,\u201d she said.",
        "It was na\u00efve \u2014 truly.",
        "Le caf\u00e9 \u00e9tait ferm\u00e9. Il \u00e9tait d\u00e9j\u00e0 tard.",
        "M\u00fcller sa\u00df im Caf\u00e9 und a\u00df.",
    ],
)
def test_short_cp1252_texts_are_not_misread(sentence: str) -> None:
    # charset-normalizer alone calls these cp1250 or mac_latin2 ("naďve", "cafť")
    assert decode_bytes(sentence.encode("cp1252")) == (sentence, "cp1252")


def test_latin1_file(tmp_path: Path) -> None:
    text = "Le caf\u00e9 \u00e9tait ferm\u00e9.\n\nIl \u00e9tait d\u00e9j\u00e0 tard.\n"
    assert load_book(_write(tmp_path, "fr.txt", text.encode("latin-1"))).text == text


@pytest.mark.parametrize("encoding", ["gbk", "gb18030", "gb2312"])
def test_chinese_gb_encodings(tmp_path: Path, encoding: str) -> None:
    book = load_book(_write(tmp_path, "zh.txt", CHINESE.encode(encoding)))
    assert book.text == CHINESE
    assert book.meta.encoding == "gb18030"
    assert book.meta.language == "zh"
    assert [c.title for c in book.chapters] == ["第一章 风雪山神庙", "第二章 梁山泊"]
    sentences = [book.text[s:e] for s, e in book.sentences.pairs()]
    assert "\u201c你来了吗？\u201d她问。" in sentences


@pytest.mark.parametrize("text", ["他说：\u201c你好。\u201d然后走了。", "天亮了。"])
def test_short_gbk_texts(text: str) -> None:
    # charset-normalizer alone calls the first one cp874 (Thai)
    assert decode_bytes(text.encode("gbk")) == (text, "gb18030")


def test_big5_is_not_read_as_gb18030() -> None:
    text = "他說：「你好。」然後走了。"
    assert decode_bytes(text.encode("big5")) == (text, "big5")


def test_other_legacy_encodings_fall_back_to_charset_normalizer() -> None:
    text = "Он сказал: «Привет». Потом ушёл. Была тёмная ночь, и никто не знал, куда идти.\n" * 5
    decoded, encoding = decode_bytes(text.encode("cp1251"))
    assert decoded == text and encoding == "cp1251"


def test_windows_line_ends(tmp_path: Path) -> None:
    text = ENGLISH.replace("\n", "\r\n")
    book = load_book(_write(tmp_path, "crlf.txt", text.encode("utf-8")))
    assert book.text == text  # \r\n kept: offsets match the file
    assert [c.title for c in book.chapters] == ["CHAPTER I.", "CHAPTER II."]
    paragraphs = [book.text[s:e] for s, e in book.paragraphs.pairs()]
    assert len(paragraphs) == 4
    assert paragraphs[1].startswith("\u201cIt is") and paragraphs[1].endswith("too.")
    assert all(not p.endswith("\r") for p in paragraphs)
    lf = load_book(_write(tmp_path, "lf.txt", ENGLISH.encode("utf-8")))
    assert len(book.sentences) == len(lf.sentences)
    assert len(book.tokens) == len(lf.tokens)


def test_no_chapters_gives_synthetic_sections(tmp_path: Path) -> None:
    body = "\n\n".join(f"Paragraph {i} is here. It has two sentences." for i in range(2000))
    book = load_book(_write(tmp_path, "plain.txt", body.encode("utf-8")))
    assert len(book.chapters) > 1 and all(c.synthetic for c in book.chapters)
    assert book.chapters[0].title == "Section 1"


# --- bad input: one InputError naming the file ----------------------------------------------------
def _error(path: Path, **kwargs: int) -> str:
    with pytest.raises(InputError) as info:
        load_book(path, **kwargs)
    message = info.value.one_line()
    assert message.startswith(f"{path}: ")
    assert "\n" not in message
    return info.value.problem


def test_missing_file(tmp_path: Path) -> None:
    assert _error(tmp_path / "nope.txt") == "no such file"


def test_directory(tmp_path: Path) -> None:
    assert "directory" in _error(tmp_path)


def test_empty_file(tmp_path: Path) -> None:
    assert "empty" in _error(_write(tmp_path, "empty.txt", b""))


def test_white_space_only(tmp_path: Path) -> None:
    assert "no text" in _error(_write(tmp_path, "blank.txt", b" \n\n\t\r\n"))


def test_binary_file(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 20
    assert "binary" in _error(_write(tmp_path, "picture.txt", png))


def test_undecodable_bytes(tmp_path: Path) -> None:
    rng = random.Random(1)
    noise = bytes(rng.randrange(128, 256) for _ in range(3000))
    assert "encoding" in _error(_write(tmp_path, "noise.txt", noise))


def test_broken_utf8_is_an_error_not_mojibake(tmp_path: Path) -> None:
    data = ("\u201cCaf\u00e9,\u201d she said. " * 30).encode("utf-8") + b"\xff\xfe broken"
    problem = _error(_write(tmp_path, "broken.txt", data))
    assert "UTF-8" in problem and "invalid bytes" in problem


def test_bom_that_lies(tmp_path: Path) -> None:
    assert "byte-order mark" in _error(_write(tmp_path, "lies.txt", codecs.BOM_UTF8 + b"abc \xff\xfe"))


def test_file_over_the_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:  # a sparse 50 MB file: no disk or time spent
        handle.truncate(50 * 1024 * 1024)
    problem = _error(path)
    assert "50 MiB" in problem and "40 MiB limit" in problem and "--max-bytes" in problem
    small = _write(tmp_path, "small.txt", ENGLISH.encode("utf-8"))
    assert "limit" in _error(small, max_bytes=100)


def test_unreadable_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "secret.txt", b"text")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as a user who can read any file (root)")
        assert "cannot read" in _error(path)
    finally:
        path.chmod(0o644)


def test_epub_suffix_on_text(tmp_path: Path) -> None:
    assert "EPUB" in _error(_write(tmp_path, "book.epub", b"just text"))


def test_read_book_file_reports_encoding(tmp_path: Path) -> None:
    decoded = read_book_file(_write(tmp_path, "a.txt", CHINESE.encode("gbk")))
    assert (decoded.encoding, decoded.source_format) == ("gb18030", "txt")


def test_name_too_long(tmp_path: Path) -> None:
    assert "cannot read file" in _error(tmp_path / ("a" * 5000))


def test_path_through_a_file(tmp_path: Path) -> None:
    assert _error(_write(tmp_path, "a.txt", b"text") / "b.txt") == "no such file"


def test_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    assert "not a regular file" in _error(fifo)
