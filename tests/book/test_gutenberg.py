"""Project Gutenberg boilerplate: the body span excludes header, licence and footer, in every historical form."""

from __future__ import annotations

import pytest

from fabula.book import book_from_text

NOVEL = (
    "EMMA\n\nBy Jane Austen\n\n\n\nVOLUME I\n\n\n\nCHAPTER I\n\n\n"
    "Emma Woodhouse, handsome, clever, and rich, with a comfortable home\n"
    "and happy disposition, seemed to unite some of the best blessings\n"
    "of existence.\n\n"
    "CHAPTER II\n\n\n"
    "Mr. Weston was a native of Highbury. He had received a good education.\n"
)
LICENCE = (
    "Updated editions will replace the previous one--the old editions will\n"
    "be renamed.\n\n"
    "START: FULL LICENSE\n\n"
    "THE FULL PROJECT GUTENBERG LICENSE\n"
    "PLEASE READ THIS BEFORE YOU DISTRIBUTE OR USE THIS WORK\n\n"
    "To protect the Project Gutenberg-tm mission of promoting the free\n"
    "distribution of electronic works, by using or distributing this work\n" * 3
)

MODERN = (
    "The Project Gutenberg eBook of Emma, by Jane Austen\n\n"
    "This eBook is for the use of anyone anywhere in the United States and\n"
    "most other parts of the world at no cost and with almost no restrictions\n"
    "whatsoever.\n\n"
    "Title: Emma\n\nAuthor: Jane Austen\n\n"
    "Release Date: January 21, 2010 [eBook #158]\n[Most recently updated: December 14, 2021]\n\n"
    "Language: English\n\n"
    "Produced by: An Anonymous Volunteer and David Widger\n\n"
    "*** START OF THE PROJECT GUTENBERG EBOOK EMMA ***\n\n\n\n\n"
    + NOVEL
    + "\n\n\n\n*** END OF THE PROJECT GUTENBERG EBOOK EMMA ***\n\n"
    + LICENCE
)
OLDER = (
    "The Project Gutenberg EBook of Emma, by Jane Austen\n\n"
    "This eBook is for the use of anyone anywhere at no cost and with\n"
    "almost no restrictions whatsoever.\n\n"
    "Title: Emma\n\nAuthor: Jane Austen\n\n"
    "Release Date: August 26, 2008 [EBook #158]\n\n"
    "Character set encoding: ASCII\n\n"
    "*** START OF THIS PROJECT GUTENBERG EBOOK EMMA ***\n\n\n\n\n"
    "Produced by An Anonymous Volunteer, and David Widger\n\n\n\n\n"
    + NOVEL
    + "\n\n\n\n\nEnd of the Project Gutenberg EBook of Emma, by Jane Austen\n\n"
    "*** END OF THIS PROJECT GUTENBERG EBOOK EMMA ***\n\n"
    "***** This file should be named 158.txt or 158.zip *****\n" + LICENCE
)
SMALL_PRINT = (
    "The Project Gutenberg Etext of Emma, by Jane Austen\n"
    "Please take a look at the important information in this header.\n\n"
    "**Welcome To The World of Free Plain Vanilla Electronic Texts**\n\n"
    "**Etexts Readable By Both Humans and By Computers, Since 1971**\n\n"
    "*****These Etexts Were Prepared By Thousands of Volunteers!*****\n\n"
    "Title: Emma\n\nAuthor: Jane Austen\n\nRelease Date: August, 1994  [Etext #158]\n\n"
    "**The Legal Small Print**\n\n"
    "(Three Pages)\n\n"
    "***START**THE SMALL PRINT!**FOR PUBLIC DOMAIN ETEXTS**START***\n"
    'Why is this "Small Print!" statement here?  You know: lawyers.\n'
    "They tell us you might sue us if there is something wrong with\n"
    "your copy of this etext, even if you got it for free from someone\n\n"
    "*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*\n\n\n\n"
    "E-text prepared by Martin Ward\n\n\n" + NOVEL + "\n\n\nEnd of Project Gutenberg's Emma, by Jane Austen\n"
)
FOOTER_ONLY = (
    NOVEL + "\n\n\nEnd of The Project Gutenberg Etext of Emma\n\nThis file should be named emma10.txt\n"
)
NO_START_HEADER_TITLE = (
    "The Project Gutenberg EBook of Emma, by Jane Austen\n\n"
    "*** START OF THIS PROJECT GUTENBERG EBOOK EMMA ***\n\n"
    "Transcribed from the 1816 John Murray edition by David Price, email\n"
    "ccx074@pglaf.org\n\n" + NOVEL + "\n***END OF THE PROJECT GUTENBERG EBOOK EMMA***\n"
)


@pytest.mark.parametrize(
    "text",
    [MODERN, OLDER, SMALL_PRINT, NO_START_HEADER_TITLE, MODERN.replace("\n", "\r\n")],
    ids=["modern", "older", "small-print", "no-title-line", "modern-crlf"],
)
def test_body_is_the_novel_only(text: str) -> None:
    book = book_from_text(text)
    assert book.text == text  # nothing cut: the body is a span
    assert book.meta.gutenberg
    body = book.body_text.replace("\r\n", "\n")
    assert body == NOVEL.strip()
    assert (book.meta.title, book.meta.author) == ("Emma", "Jane Austen")
    assert [c.title for c in book.chapters] == ["CHAPTER I", "CHAPTER II"]
    assert book.chapters[0].part == "VOLUME I"
    assert book.paragraphs.starts[0] == book.body.start
    assert book.paragraphs.ends[-1] == book.body.end
    assert "Gutenberg" not in " ".join(book.span_text(s) for s in book.sentences)


def test_footer_without_header() -> None:
    book = book_from_text(FOOTER_ONLY)
    assert book.meta.gutenberg
    assert book.body_text == NOVEL.strip()


def test_no_boilerplate_keeps_everything() -> None:
    book = book_from_text(NOVEL)
    assert not book.meta.gutenberg
    assert book.body_text == NOVEL.strip()
    assert (book.meta.title, book.meta.author) == ("EMMA", "Jane Austen")


def test_gutenberg_mentioned_in_the_story_is_not_a_marker() -> None:
    text = NOVEL + "\nHe spoke of the Project Gutenberg of his youth, and the end of it.\n"
    book = book_from_text(text)
    assert not book.meta.gutenberg
    assert book.body.end == len(text.rstrip())


def test_title_prefix_is_stripped_without_markers() -> None:
    text = "Title: The Invisible Man\n\nAuthor: H. G. Wells\n\n\nCHAPTER I.\n\nThe stranger came.\n\nCHAPTER II.\n\nHe left.\n"
    book = book_from_text(text)
    assert (book.meta.title, book.meta.author) == ("The Invisible Man", "H. G. Wells")
