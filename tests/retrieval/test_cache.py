"""The on-disk index cache: built once, reused, keyed by book and settings, rebuilt when corrupt."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula.book import Book, book_from_text
from fabula.retrieval import BM25Retriever, UnitSpec, cached_index, index_book, make_units


class CountingBM25(BM25Retriever):
    builds = 0

    def _build(self) -> None:
        CountingBM25.builds += 1
        super()._build()


def _cached(book: Book, cache: Path, **options: object) -> CountingBM25:
    retriever = CountingBM25(**options)  # type: ignore[arg-type]
    retriever.name = "bm25"  # type: ignore[misc]
    cached_index(
        retriever,
        make_units(book),
        content_hash=book.content_hash,
        unit_key=UnitSpec().key(),
        cache_dir=cache,
    )
    return retriever


def test_index_is_built_once_then_loaded(alice: Book, tmp_path: Path) -> None:
    CountingBM25.builds = 0
    first = _cached(alice, tmp_path)
    second = _cached(alice, tmp_path)
    assert CountingBM25.builds == 1
    assert [h.unit.id for h in second.search("Queen of Hearts", k=10)] == [
        h.unit.id for h in first.search("Queen of Hearts", k=10)
    ]
    assert [h.score for h in second.search("Queen", k=5)] == pytest.approx(
        [h.score for h in first.search("Queen", k=5)]
    )
    _cached(alice, tmp_path, k1=1.2)  # other settings: another entry
    _cached(book_from_text(alice.text + "\n\nOne more paragraph."), tmp_path)  # other book
    assert CountingBM25.builds == 3
    assert not list(tmp_path.rglob("*.tmp")) and not [p for p in tmp_path.rglob(".*") if p.is_dir()]


def test_corrupt_cache_is_rebuilt_not_fatal(alice: Book, tmp_path: Path) -> None:
    CountingBM25.builds = 0
    _cached(alice, tmp_path)
    for path in tmp_path.rglob("*.npy"):
        path.write_bytes(b"garbage")
    rebuilt = _cached(alice, tmp_path)
    assert CountingBM25.builds == 2
    assert rebuilt.search("Queen", k=1)
    for path in tmp_path.rglob("manifest.json"):
        path.write_text("{not json")
    _cached(alice, tmp_path)
    assert CountingBM25.builds == 3
    assert _cached(alice, tmp_path).search("Queen", k=1) and CountingBM25.builds == 3


def test_cache_dir_from_environment(alice: Book, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path))
    index_book(alice, "tfidf", units="sentence")
    assert list((tmp_path / "indexes").glob("*/tfidf-*/manifest.json"))


def test_without_fabula_cache_dir_indexes_follow_xdg_cache_home_as_the_llm_cache_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One cache folder for all of fabula: indexes went to ~/.cache/fabula/indexes whatever
    ``$XDG_CACHE_HOME`` said, while the LLM cache (and ``fabula serve``'s) followed it."""
    from fabula.llm import default_cache_dir as llm_cache_dir
    from fabula.retrieval import default_cache_dir

    monkeypatch.delenv("FABULA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "fabula" / "indexes"
    assert default_cache_dir().parent == llm_cache_dir()


def test_unwritable_cache_still_gives_an_index(alice: Book, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    retriever = index_book(alice, "bm25", cache_dir=blocker / "sub")
    assert retriever.search("Queen", k=1)
