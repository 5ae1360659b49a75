"""A novel saved with one paragraph a line (no hard wrapping, as ebook conversions are), or with its
paragraphs marked by an indent instead of a blank line, has the paragraphs and quotes of its original: a
block of lines is a paragraph a line as soon as one line is longer than hard wrapping makes
(`fabula.book._structure._UNWRAPPED_LINE`), however short its dialogue lines make the mean, and a
chapter-long block with first-line indents is paragraphs that start at them."""

from __future__ import annotations

import re

from fabula.book import book_from_text
from fabula.quotes import detect_quotes
from tests.conftest import pdnc_novel_dir


def _unwrapped(text: str) -> str:
    """The same text with each paragraph on one line and no blank line between paragraphs, at the same
    offsets: a line break inside a paragraph becomes a space, a blank line a space and a line break."""
    return re.sub(r"\n\n", " \n", re.sub(r"(?<!\n)\n(?!\n)", " ", text))


def test_an_unwrapped_copy_of_a_dialogue_heavy_novel_has_the_same_paragraphs_and_quotes() -> None:
    text = (pdnc_novel_dir("TheMysteriousAffairAtStyles") / "novel_text.txt").read_text(encoding="utf-8")
    copy = _unwrapped(text)
    assert len(copy) == len(text) and copy.count("\n\n") < 100  # a few blank lines are left around headings
    original, unwrapped = book_from_text(text), book_from_text(copy)
    # before: a chapter's short dialogue lines kept its mean line length under the hard-wrap limit, so the
    # chapter was one paragraph of 45K characters and a fifth of its quotes were lost
    assert len(unwrapped.paragraphs) >= len(original.paragraphs) - 20
    spans = [(q.spans[0].start, q.spans[-1].end) for q in detect_quotes(original)]
    found = {(q.spans[0].start, q.spans[-1].end) for q in detect_quotes(unwrapped)}
    assert sum(span in found for span in spans) >= 0.99 * len(spans)


def test_a_hard_wrapped_paragraph_with_short_lines_stays_one_paragraph() -> None:
    lines = ["It was a long", "paragraph, wrapped", "short, as verse-like", "prose can be."]
    book = book_from_text("\n".join(lines) + "\n\n" + "Another paragraph.\n")
    start, end = book.paragraphs.pairs()[0]
    assert book.text[start:end] == "\n".join(lines)


def _indented(text: str) -> str:
    """The same text with no blank line between paragraphs, each paragraph's first line indented instead,
    at the same offsets: a blank line before a paragraph becomes a line break and a space."""
    return re.sub(r"\n\n(?=\S)", "\n ", text)


def test_a_copy_that_marks_paragraphs_by_indents_has_the_same_paragraphs_and_quotes() -> None:
    text = (pdnc_novel_dir("TheMysteriousAffairAtStyles") / "novel_text.txt").read_text(encoding="utf-8")
    copy = _indented(text)
    assert len(copy) == len(text)
    original, indented = book_from_text(text), book_from_text(copy)
    # before: a chapter with no blank line in it was one paragraph, and two fifths of the quotes were lost
    assert len(indented.paragraphs) >= len(original.paragraphs) - 20
    spans = [(q.spans[0].start, q.spans[-1].end) for q in detect_quotes(original)]
    found = {(q.spans[0].start, q.spans[-1].end) for q in detect_quotes(indented)}
    assert sum(span in found for span in spans) >= 0.99 * len(spans)


def test_a_letter_indented_after_its_first_line_stays_one_paragraph() -> None:
    letter = "MY DEAR SIR,\n" + "\n".join(
        f"    I write to you of the {n} matter, which is urgent" for n in range(30)
    )
    book = book_from_text(letter + "\n\nAnother paragraph.\n")
    start, end = book.paragraphs.pairs()[0]
    assert book.text[start:end] == letter
