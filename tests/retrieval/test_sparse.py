"""BM25 and TF-IDF: parity with reference implementations, ranking on real text, edge cases."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from fabula.book import Book, book_from_text
from fabula.retrieval import Analyzer, BM25Retriever, TfidfRetriever, Unit, index_book, make_units

TEXTS = [
    "The cat sat on the mat with another cat.",
    "Dogs chase cats in the garden.",
    "A letter arrived for Elizabeth from Mr. Darcy.",
    "Elizabeth read the letter twice, then walked into the garden.",
    "The garden was quiet; the dogs slept.",
    "Darcy wrote the letter at night by candle light, and sealed the letter.",
    "Nobody expected the rain.",
    "Rain fell on the mat and the cat.",
    "Her sister Jane smiled at the news.",
]
UNITS = [Unit(i, i * 100, i * 100 + 50, 0, text) for i, text in enumerate(TEXTS)]
QUERIES = ["letter garden", "cat cat mat", "Elizabeth Darcy letter rain", "Jane's sister"]


def _finite(scores: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(scores), scores, 0.0)


def test_bm25_plus_matches_rank_bm25() -> None:
    rank_bm25 = pytest.importorskip("rank_bm25")
    corpus = Analyzer("en").analyze_many(TEXTS)
    reference = rank_bm25.BM25Plus(corpus, k1=1.5, b=0.75, delta=0.5)
    retriever = BM25Retriever(method="bm25+", k1=1.5, b=0.75, delta=0.5)
    retriever.index(UNITS)
    for query in QUERIES:
        expected = reference.get_scores(Analyzer("en")(query))
        np.testing.assert_allclose(_finite(retriever.scores(query)), expected, rtol=1e-5, atol=1e-5)


def test_robertson_matches_rank_bm25_okapi_up_to_the_k1_plus_1_factor() -> None:
    """bm25s leaves out Okapi's constant (k1 + 1) numerator factor; ranks are identical. Every term of
    this corpus is in fewer than half the units, so rank-bm25's negative-idf floor never applies."""
    rank_bm25 = pytest.importorskip("rank_bm25")
    corpus = Analyzer("en").analyze_many(TEXTS)
    reference = rank_bm25.BM25Okapi(corpus, k1=1.2, b=0.75)
    retriever = BM25Retriever(method="robertson", k1=1.2, b=0.75)
    retriever.index(UNITS)
    for query in QUERIES:
        expected = reference.get_scores(Analyzer("en")(query)) / (1.2 + 1)
        np.testing.assert_allclose(_finite(retriever.scores(query)), expected, rtol=1e-5, atol=1e-5)


def test_lucene_default_matches_the_formula() -> None:
    corpus = Analyzer("en").analyze_many(TEXTS)
    n, avgdl = len(corpus), sum(map(len, corpus)) / len(corpus)
    retriever = BM25Retriever()
    retriever.index(UNITS)
    for query in QUERIES:
        expected = np.zeros(n)
        for term in Analyzer("en")(query):
            df = sum(term in doc for doc in corpus)
            if df == 0:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for i, doc in enumerate(corpus):
                tf = doc.count(term)
                expected[i] += idf * tf / (tf + 1.5 * (1 - 0.75 + 0.75 * len(doc) / avgdl))
        np.testing.assert_allclose(_finite(retriever.scores(query)), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("sublinear", [False, True])
def test_tfidf_matches_scikit_learn(alice: Book, sublinear: bool) -> None:
    text = pytest.importorskip("sklearn.feature_extraction.text")
    units = make_units(alice)
    retriever = TfidfRetriever(sublinear_tf=sublinear)
    retriever.index(units)
    vectorizer = text.TfidfVectorizer(analyzer=retriever.analyzer, sublinear_tf=sublinear)
    matrix = vectorizer.fit_transform([u.text for u in units])
    for query in ("the Queen of Hearts", "Alice cried", "croquet hedgehog flamingo"):
        expected = (matrix @ vectorizer.transform([query]).T).toarray().ravel()
        np.testing.assert_allclose(_finite(retriever.scores(query)), expected, atol=1e-9)


@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_ranking_on_a_real_book(alice: Book, name: str, tmp_path: object) -> None:
    retriever = index_book(alice, name, cache=False)
    hits = retriever.search("croquet flamingo hedgehog", k=5)
    assert len(hits) == 5
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))
    assert all(t in hits[0].unit.text.lower() for t in ("flamingo", "hedgehog"))


@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_edge_cases_give_sensible_results(alice: Book, name: str) -> None:
    retriever = index_book(alice, name, cache=False)
    assert retriever.search("", k=10) == []
    assert retriever.search("   ", k=10) == []
    assert retriever.search("the of and", k=10) == []  # stop words only: nothing to match
    assert retriever.search("zzzxqy", k=10) == []  # unknown words
    assert retriever.search("Alice", k=0) == []
    everything = retriever.search("Alice", k=10**6)
    assert 0 < len(everything) < len(retriever.units)
    assert all("alice" in h.unit.text.lower() for h in everything)
    one = index_book(book_from_text("The cat sat on the mat."), name, cache=False)
    assert [h.unit.text for h in one.search("cat", k=100)] == ["The cat sat on the mat."]
    assert one.search("dog", k=100) == []
    empty = index_book(book_from_text(""), name, cache=False)
    assert empty.units == [] and empty.search("cat") == []


@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_until_drops_every_unit_after_the_reading_position(alice: Book, name: str) -> None:
    retriever = index_book(alice, name, cache=False)
    late = retriever.search("Queen", k=10**6)
    until = late[len(late) // 2].unit.start
    early = retriever.search("Queen", k=10**6, until=until)
    assert early and all(h.unit.end <= until for h in early)
    assert [h.unit.id for h in early] == [h.unit.id for h in late if h.unit.end <= until]
    assert retriever.search("Queen", k=5, until=0) == []


def test_chinese_goes_through_jieba() -> None:
    book = book_from_text(
        "第一章\n\n林黛玉进了荣国府，见到了贾宝玉。\n\n王熙凤笑着说话。\n\n贾宝玉摔了那块玉。\n",
        language="zh",
    )
    retriever = index_book(book, "bm25", cache=False)
    hits = retriever.search("贾宝玉", k=5)
    assert {h.unit.text for h in hits} == {"林黛玉进了荣国府，见到了贾宝玉。", "贾宝玉摔了那块玉。"}
    assert Analyzer("zh")("王熙凤笑着说话。") and "。" not in Analyzer("zh")("王熙凤笑着说话。")


def test_stop_words_are_bm25s_lists_read_without_importing_bm25s() -> None:
    import subprocess
    import sys

    import bm25s.stopwords as lists

    from fabula.retrieval._analysis import _stopwords

    assert _stopwords("en_plus") == frozenset(lists.STOPWORDS_EN_PLUS)
    assert _stopwords("zh") == frozenset(lists.STOPWORDS_CHINESE)
    # in a fresh interpreter: the lists alone, without bm25s's package (which imports scipy)
    probe = (
        "import sys\nfrom fabula.retrieval._analysis import _stopwords\n"
        "assert len(_stopwords('en')) > 20\nprint('bm25s' in sys.modules, 'scipy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]
