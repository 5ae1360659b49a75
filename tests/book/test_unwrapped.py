"""A novel saved with one paragraph a line (no hard wrapping, as ebook conversions are), or with its
paragraphs marked by an indent instead of a blank line, has the paragraphs and quotes of its original: a
block of lines is a paragraph a line as soon as one line is longer than hard wrapping makes
(`fabula.book._structure._UNWRAPPED_LINE`), however short its dialogue lines make the mean, and a
chapter-long block with first-line indents is paragraphs that start at them."""

from __future__ import annotations

import pytest
from scripts.format_variants import VARIANTS

from fabula.book import book_from_text
from fabula.quotes import detect_quotes
from tests.conftest import pdnc_novel_dir


@pytest.mark.parametrize("variant", ["unwrap", "indent"])
def test_a_copy_of_a_dialogue_heavy_novel_laid_out_otherwise_has_the_same_paragraphs_and_quotes(
    variant: str,
) -> None:
    # before: in the "unwrap" copy, a chapter's short dialogue lines kept its mean line length under the
    # hard-wrap limit, and a chapter was one paragraph of 45K characters (a fifth of the quotes lost); in
    # the "indent" copy a chapter had no blank line in it and was one paragraph (two fifths lost)
    text = (pdnc_novel_dir("TheMysteriousAffairAtStyles") / "novel_text.txt").read_text(encoding="utf-8")
    copy = VARIANTS[variant](text)
    assert len(copy) == len(text) and copy.count("\n\n") < 100  # a few blank lines stay around headings
    original, laid_out = book_from_text(text), book_from_text(copy)
    assert len(laid_out.paragraphs) >= len(original.paragraphs) - 20
    spans = [(q.spans[0].start, q.spans[-1].end) for q in detect_quotes(original)]
    found = {(q.spans[0].start, q.spans[-1].end) for q in detect_quotes(laid_out)}
    assert sum(span in found for span in spans) >= 0.99 * len(spans)


def test_a_hard_wrapped_paragraph_with_short_lines_stays_one_paragraph() -> None:
    lines = ["It was a long", "paragraph, wrapped", "short, as verse-like", "prose can be."]
    book = book_from_text("\n".join(lines) + "\n\n" + "Another paragraph.\n")
    start, end = book.paragraphs.pairs()[0]
    assert book.text[start:end] == "\n".join(lines)


def test_a_letter_indented_after_its_first_line_stays_one_paragraph() -> None:
    letter = "MY DEAR SIR,\n" + "\n".join(
        f"    I write to you of the {n} matter, which is urgent" for n in range(30)
    )
    book = book_from_text(letter + "\n\nAnother paragraph.\n")
    start, end = book.paragraphs.pairs()[0]
    assert book.text[start:end] == letter


def test_long_runs_of_spaces_at_line_starts_are_no_paragraph_indents() -> None:
    # the training script's sparse-tag copies blank a speech tag to spaces, which can leave a line of a long
    # hard-wrapped paragraph starting with a dozen spaces: that is no first-line indent (a tab or up to 8)
    lines = [
        ("            " if n % 7 == 3 else "") + f"line {n} of one long paragraph goes on" for n in range(28)
    ]
    book = book_from_text("\n".join(lines) + "\n\nAnother paragraph.\n")
    assert len(book.paragraphs) == 2
    indented = book_from_text("\n".join(line.replace("            ", "    ") for line in lines) + "\n")
    assert len(indented.paragraphs) == 5  # the same lines indented by four: paragraphs that start there
