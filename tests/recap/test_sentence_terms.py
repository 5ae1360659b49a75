"""`sentence_terms` reuses the analysis of a book whose sentences begin with those of the one asked for
(``fabula serve``'s checkpoints: one novel cut at many positions): the ids, distinct ids, vocabulary and
the recap's idf must be exactly what analysing the sentences afresh gives, in any order of positions."""

from __future__ import annotations

import numpy as np

from fabula.book import load_book
from fabula.recap import _rankers
from fabula.recap._rankers import RecapContext, sentence_terms
from fabula.retrieval import Analyzer
from tests.conftest import pdnc_novel_dir


def _fresh(texts: list[str]) -> tuple[list[list[int]], dict[str, int]]:
    """The analysis as it was before any reuse: every sentence, ids by first use."""
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in Analyzer("en").analyze_many(texts)]
    return ids, vocab


def test_reused_prefixes_equal_a_fresh_analysis() -> None:
    book = load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt")
    texts = [book.text[s:e] for s, e in book.sentences.pairs()]
    other = load_book(pdnc_novel_dir("AlicesAdventuresInWonderland") / "novel_text.txt")
    other_texts = [other.text[s:e] for s, e in other.sentences.pairs()]
    _rankers._TERMS.clear()
    try:
        cuts = [len(texts) // 2, len(texts) // 5, len(texts), len(texts) * 9 // 10, 1, len(texts) // 3]
        for cut in cuts:
            for language_texts in (texts[:cut], other_texts[: cut // 2 + 1]):
                got = sentence_terms("en", language_texts)
                ids, vocab = _fresh(language_texts)
                assert [row.tolist() for row in got.ids] == ids
                assert got.vocab == vocab and list(got.vocab) == list(vocab)  # the same ids by first use
                assert [row.tolist() for row in got.unique] == [sorted(set(row)) for row in ids]
                assert got.sizes[-1] == len(vocab)
        assert len(_rankers._TERMS) <= _rankers._TERMS_KEPT
    finally:
        _rankers._TERMS.clear()


def test_the_recap_idf_is_the_same_with_and_without_reuse() -> None:
    whole = load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt")
    _rankers._TERMS.clear()
    try:
        RecapContext(whole).book_idf  # noqa: B018 - analyse the whole book first: the cut reuses it
        cut = whole.truncated(int(whole.sentences.ends[len(whole.sentences) // 2]))
        reused = RecapContext(cut).book_idf
        _rankers._TERMS.clear()
        fresh = RecapContext(cut).book_idf
        ids, vocab = _fresh(RecapContext(cut)._sentence_terms.texts)
        df = np.zeros(len(vocab), dtype=np.int64)
        for row in ids:
            df[np.unique(np.asarray(row, dtype=np.int64))] += 1
        assert np.array_equal(reused, fresh)
        assert np.array_equal(fresh, np.maximum(0.0, np.log(len(ids) / (1.0 + df))))
    finally:
        _rankers._TERMS.clear()
