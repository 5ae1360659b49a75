from __future__ import annotations

import pytest

from fabula.book import Book, load_book
from fabula.characters import find_characters
from fabula.quotes import attribute_quotes, detect_quotes
from tests.conftest import EXAMPLE_NOVEL


@pytest.fixture(scope="module")
def alice_book() -> Book:
    """The shipped example novel with characters, mentions and attributed quotes."""
    book = load_book(EXAMPLE_NOVEL)
    detect_quotes(book)
    find_characters(book)
    attribute_quotes(book)
    return book
