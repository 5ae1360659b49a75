"""Books shared by the retrieval tests (loaded once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula.book import Book, book_from_text, load_book
from tests.conftest import ROOT

ALICE = ROOT / "examples" / "alice_in_wonderland.txt"


@pytest.fixture(scope="session")
def alice_path() -> Path:
    return ALICE


@pytest.fixture()
def alice() -> Book:
    """A fresh Alice (tests may add characters and mentions to it)."""
    return load_book(ALICE)


@pytest.fixture()
def tiny_book() -> Book:
    return book_from_text(
        "CHAPTER I.\n\nThe cat sat on the mat with another cat.\n\nDogs chase cats in the garden.\n\n"
        "A letter arrived for Elizabeth from Mr. Darcy.\n\nElizabeth read the letter twice, then walked "
        "into the garden.\n\nCHAPTER II.\n\nThe garden was quiet; the dogs slept.\n\nDarcy wrote the "
        "letter at night by candle light.\n\nNobody expected the rain.\n"
    )
