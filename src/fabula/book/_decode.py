"""Reading a book file into text: encoding detection for ``.txt`` and text extraction for ``.epub``.

Byte-order marks decide first (they are unambiguous); then UTF-16 without a BOM, strict UTF-8, two
checks of our own for what charset-normalizer misreads on short texts (cp1252, GB18030/Big5), and
finally charset-normalizer for the rest. Binary files, broken UTF-8 and oversized files are refused
with a one-line error instead of being decoded into garbage. EPUBs are read with ebooklib.
"""

from __future__ import annotations

import codecs
import html
import logging
import re
import stat
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from fabula.errors import InputError

DEFAULT_MAX_BYTES = 40 * 1024 * 1024  # the longest novels are ~5 MB; 40 MiB is a corpus, not a book
MAX_BYTES_OPTION = "--max-bytes"  # every command that loads a book takes it (fabula.cli._options)

log = logging.getLogger(__name__)

_BOMS: list[tuple[bytes, str]] = [
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
]


@dataclass(slots=True)
class DecodedFile:
    text: str
    encoding: str
    source_format: str  # "txt" or "epub"
    title: str | None = None
    author: str | None = None
    # EPUB: offset of each content document's first heading, so chapters follow the book's own files
    headings: list[int] = field(default_factory=list)


def read_book_file(path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> DecodedFile:
    """Read ``path`` (a .txt in any common encoding, or an .epub) into text, or raise InputError."""
    p = Path(path)
    try:
        info = p.stat()
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise InputError("no such file", p) from exc
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror or exc})", p) from exc
    if stat.S_ISDIR(info.st_mode):
        raise InputError("is a directory, not a book file", p)
    if not stat.S_ISREG(info.st_mode):
        raise InputError("is not a regular file (a device, pipe or socket)", p)
    size = info.st_size
    if size == 0:
        raise InputError("file is empty", p)
    if size > max_bytes:
        raise InputError(
            f"file is {format_size(size)}, more than the {format_size(max_bytes)} limit for one book "
            f"(split it, or raise the limit with {MAX_BYTES_OPTION})",
            p,
        )
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror})", p) from exc
    if data[:4] == b"PK\x03\x04" and (p.suffix.lower() == ".epub" or _looks_like_epub(data)):
        return _read_epub(p, max_bytes)
    if p.suffix.lower() == ".epub":
        raise InputError("not a valid EPUB (it is not a zip archive)", p)
    text, encoding = decode_bytes(data, p)
    if not text.strip():
        raise InputError("file contains no text (only white space)", p)
    return DecodedFile(text=text, encoding=encoding, source_format="txt")


def format_size(size: int) -> str:
    """A byte count in binary units, as ``ls -h`` and the size limit count them: ``40 MiB``, ``1.5 KiB``."""
    value = float(size)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            break
        value /= 1024
    if unit == "bytes":
        return f"{size} bytes"
    return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"


def decode_bytes(data: bytes, where: str | Path = "<bytes>") -> tuple[str, str]:
    """Decode book bytes, returning ``(text, encoding)``; raise InputError for binary or undecodable data.

    Order: byte-order mark; UTF-16 without a BOM (every other byte NUL); strict UTF-8; then, because
    charset-normalizer guesses wrong on short texts (it calls a short cp1252 text cp1250 and a short
    GBK text cp874), two checks of our own before asking it: mostly-ASCII text that is valid cp1252
    is cp1252 (Western European novels), and text that decodes as GB18030 or Big5 into common Chinese
    characters is Chinese.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding), encoding
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"has a {encoding} byte-order mark but is not valid {encoding}", where
                ) from exc
    utf16 = _utf16_without_bom(data)
    if utf16 is not None:
        return utf16
    if _looks_binary(data):
        raise InputError("looks like a binary file, not text (contains NUL or control bytes)", where)
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        utf8_error = exc
    if _mostly_utf8(data[:1_000_000]):
        # valid UTF-8 but for a few broken bytes: decoding it as anything else would be mojibake
        raise InputError(
            f"is UTF-8 but has invalid bytes (first at byte {utf8_error.start}); fix or re-encode the file",
            where,
        )
    high = sum(1 for byte in data[:200_000] if byte >= 0x80) / max(1, min(len(data), 200_000))
    if high < 0.3:
        try:
            return data.decode("cp1252"), "cp1252"
        except UnicodeDecodeError:
            pass
    chinese = _chinese(data)
    if chinese is not None:
        return chinese
    from charset_normalizer import from_bytes

    best = from_bytes(data[:2_000_000]).best()
    if best is None:
        raise InputError("cannot detect the text encoding (undecodable bytes)", where)
    encoding = _widen(best.encoding)
    try:
        return data.decode(encoding), encoding
    except (UnicodeDecodeError, LookupError) as exc:
        raise InputError(f"undecodable bytes for detected encoding {encoding}", where) from exc


_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
# the most frequent Chinese characters, simplified and traditional: GB18030 decodes almost any byte
# pairs, so "decodes" proves nothing; decoding into common characters does
_COMMON_HANZI = frozenset(
    "的一是不了人我在有他这這个個们們中来來上大为為和国國地到以说說时時要就出会會可也你对對生能而子那得"
    "于於着著下自之年过過发發后後作里裡用道行所然家种種事成方多经經么麼去法学學如都同现現当當没沒动動"
    "面起看定天分还還进進好小部其些主样樣理心她本前开開但因只从從想实實日军軍者意无無力它与與长長把机機"
)


def _mostly_utf8(sample: bytes) -> bool:
    """Many valid UTF-8 multi-byte characters and only a few invalid bytes."""
    valid = len(_UTF8_MULTIBYTE.findall(sample))
    invalid = sample.decode("utf-8", errors="replace").count("\ufffd")
    return valid >= 20 and invalid <= max(4, valid // 20)


def _widen(encoding: str) -> str:
    """Use the superset of a detected legacy encoding (GB2312 ⊂ GBK ⊂ GB18030, latin-1 → cp1252)."""
    name = encoding.lower().replace("-", "_")
    if name in {"gb2312", "gbk", "hz", "gb18030"}:
        return "gb18030"
    if name in {"latin_1", "iso8859_1", "ascii"}:
        return "cp1252"
    return encoding


def _chinese(data: bytes) -> tuple[str, str] | None:
    """GB18030 or Big5, whichever decodes ``data`` into common Chinese characters, else None."""
    sample = data[:200_000]
    best: tuple[float, str] | None = None
    for encoding in ("gb18030", "big5"):
        try:
            text = sample.decode(encoding)
        except UnicodeDecodeError:
            if len(sample) < len(data):  # the sample may cut a character in two
                try:
                    text = sample[:-1].decode(encoding)
                except UnicodeDecodeError:
                    continue
            else:
                continue
        wide = [ch for ch in text if ord(ch) >= 0x80]
        if not wide:
            continue
        score = sum(1 for ch in wide if ch in _COMMON_HANZI) / len(wide)
        if score >= 0.12 and (best is None or score > best[0]):
            best = (score, encoding)
    if best is None:
        return None
    try:
        return data.decode(best[1]), best[1]
    except UnicodeDecodeError:
        return None


def _utf16_without_bom(data: bytes) -> tuple[str, str] | None:
    """UTF-16 text saved without a BOM: mostly-ASCII text has NUL in every other byte."""
    sample = data[:4096]
    if len(sample) < 8 or len(data) % 2:
        return None
    even = sample[0::2].count(0) / (len(sample) // 2)
    odd = sample[1::2].count(0) / (len(sample) // 2)
    for encoding, nul_share, other in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if nul_share > 0.6 and other < 0.05:
            try:
                return data.decode(encoding), encoding
            except UnicodeDecodeError:
                return None
    return None


def _looks_binary(data: bytes) -> bool:
    sample = data[:65536]
    if b"\x00" in sample:
        return True
    control = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13, 27))
    return control > max(8, len(sample) // 200)


def _looks_like_epub(data: bytes) -> bool:
    return b"mimetypeapplication/epub+zip" in data[:100]


_BLOCK_END = re.compile(r"</(p|div|h[1-6]|li|blockquote|tr|section|pre)\s*>|<br\s*/?>", re.I)
_HEADING = re.compile(r"<h[1-6][^>]*>(.*?)</h[1-6]\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
_SCRIPT = re.compile(r"<(script|style|head)\b[^>]*>.*?</\1\s*>", re.I | re.S)


def _read_epub(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> DecodedFile:
    """Extract the reading-order text of an EPUB: one paragraph per block element, blank lines between.
    The archive's unpacked size counts against ``max_bytes`` too (a small EPUB can hold a huge chapter)."""
    try:
        from ebooklib import epub
    except ImportError as exc:  # pragma: no cover - ebooklib is a core dependency
        raise InputError("reading .epub needs the ebooklib package", path) from exc
    try:
        with zipfile.ZipFile(path) as archive:
            # the sizes the archive declares bound what inflating its entries gives back (zipfile reads
            # no more than an entry's declared size), so this check holds against a lying archive too
            unpacked = sum(info.file_size for info in archive.infolist())
        if unpacked > max_bytes:
            raise InputError(
                f"EPUB unpacks to {format_size(unpacked)}, more than the {format_size(max_bytes)} limit for "
                f"one book (raise the limit with {MAX_BYTES_OPTION})",
                path,
            )
        return _epub_text(path)
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        KeyError,
        ValueError,
        OSError,
        SyntaxError,  # lxml's XMLSyntaxError: a damaged package or content file
        TypeError,  # ebooklib on a truncated package file (a manifest it cannot walk)
        AttributeError,
        epub.EpubException,
    ) as exc:
        # a corrupt archive fails while an entry is inflated (zlib.error), not only when it is opened
        raise InputError(f"not a readable EPUB ({exc.__class__.__name__}: {exc})", path) from exc


def _epub_text(path: Path) -> DecodedFile:
    import ebooklib
    from ebooklib import epub

    book = epub.read_epub(str(path), options={"ignore_ncx": True})
    text = ""
    headings: list[int] = []
    lost: list[str] = []
    documents = 0
    for item_id, _linear in book.spine:
        item = book.get_item_with_id(item_id)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT or isinstance(item, epub.EpubNav):
            continue
        documents += 1
        found = _document_text(item.get_content().decode("utf-8", errors="replace"))
        raw = item.content if isinstance(item.content, bytes) else str(item.content or "").encode()
        if found is not None and not found[1]:
            # ebooklib's HTML parser gave nothing back (markup it cannot parse, a body it does not find):
            # read the file's own markup instead, and if that has text too, say the chapter is lost
            found = _document_text(raw.decode("utf-8", errors="replace"))
            if (
                found is not None
                and not found[1]
                and _TAG.sub("", _SCRIPT.sub(" ", raw.decode("utf-8", "replace"))).strip()
            ):
                lost.append(item.file_name)
        if found is None or not found[1]:
            continue
        heading_text, document = found
        if text:
            text += "\n\n\n"
        if heading_text and document.startswith(heading_text):
            headings.append(len(text))
        text += document
    if lost:
        log.warning(
            "%s: %d of %d content documents have text that could not be read and are left out: %s",
            path,
            len(lost),
            documents,
            ", ".join(lost[:5]) + (" …" if len(lost) > 5 else ""),
        )
    if not text.strip():
        raise InputError("EPUB contains no readable text", path)
    title = _first_meta(book, "title")
    author = _first_meta(book, "creator")
    return DecodedFile(
        text=text + "\n",
        encoding="utf-8",
        source_format="epub",
        title=title,
        author=author,
        headings=headings,
    )


_LINK = re.compile(r"<a\b[^>]*>(.*?)</a\s*>", re.I | re.S)


def _document_text(markup: str) -> tuple[str, str] | None:
    """A content document's first heading and its text, one paragraph per block; None for a contents page."""
    markup = _SCRIPT.sub(" ", markup)
    if _is_table_of_contents(markup):
        return None
    heading = _HEADING.search(markup)
    heading_text = " ".join(html.unescape(_TAG.sub("", heading.group(1))).split()) if heading else ""
    markup = _HEADING.sub(lambda m: "\n\n" + m.group(1) + "\n\n", markup)
    markup = _BLOCK_END.sub("\n\n", markup)
    plain = html.unescape(_TAG.sub("", markup))
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", plain)]
    return heading_text, "\n\n".join(p for p in paragraphs if p)


def _is_table_of_contents(markup: str) -> bool:
    """A document that is a <nav> or nothing but links (an EPUB 2 "Contents" page) is not reading text."""
    if re.search(r"<nav\b[^>]*epub:type=[\"']toc", markup, re.I):
        return True
    body = markup[markup.lower().find("<body") :] if "<body" in markup.lower() else markup
    words = len(html.unescape(_TAG.sub(" ", body)).split())
    linked = sum(len(html.unescape(_TAG.sub(" ", m)).split()) for m in _LINK.findall(body))
    return words >= 4 and linked >= 0.8 * words


def _first_meta(book: object, name: str) -> str | None:
    try:
        values = book.get_metadata("DC", name)  # type: ignore[attr-defined]
    except Exception:
        return None
    return str(values[0][0]) if values else None
