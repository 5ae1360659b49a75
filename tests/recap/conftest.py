"""A hand-built book whose recap answers are known, shared by the recap tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula.book import Book, book_from_text
from fabula.recap import RecapSpec

# targets and candidates of 2 sentences, 5 candidates, the nearest ending 2 sentences before the central
# sentence (the target's first of two): sentences 0..9 are five candidates (0-1, 2-3, 4-5, 6-7, 8-9),
# sentence 10 lies between, 11-12 is the target.
SPEC = RecapSpec(w=2, candidate_w=2, n_candidates=5, gap_min=2, gap_max=2)
SENTENCES = [
    # candidate 0 (distance 5)
    "The mill stood by the river for a hundred years.",
    "Nobody in the village remembered who had built it.",
    # candidate 1 (distance 4): names Miss Bennet, nothing else in common with the target
    "Miss Bennet walked alone across the muddy fields.",
    "Miss Bennet did not mind the dirt at all.",
    # candidate 2 (distance 3): the strawberries at Donwell, which the target returns to
    "Mrs. Elton talked of strawberries and of Donwell Abbey.",
    "The strawberries at Donwell Abbey were ripe in June.",
    # candidate 3 (distance 2)
    "A coach passed along the turnpike road at noon.",
    "The horses were tired and the driver was cross.",
    # candidate 4 (distance 1)
    "The weather turned cold towards evening.",
    "Fires were lit in every room of the house.",
    # the gap
    "Night fell.",
    # the target: names Miss Bennet and repeats the strawberries at Donwell Abbey
    "Miss Bennet remembered the strawberries at Donwell Abbey.",
    "Miss Bennet thought the strawberries at Donwell had been the best of the summer.",
]


@pytest.fixture()
def hand_book() -> Book:
    return book_from_text("\n\n".join(SENTENCES) + "\n")


def static_model(folder: Path, text: str) -> str:
    """A tiny model2vec model built here: a random vector per word of ``text`` (enough for a ranking
    whose order the test reads off the same model). Returns the ``model2vec:PATH`` spec."""
    model2vec = pytest.importorskip("model2vec")
    import numpy as np
    from tokenizers import Tokenizer, models, pre_tokenizers

    pre = pre_tokenizers.Whitespace()
    words = sorted({w for w, _ in pre.pre_tokenize_str(text)})
    vocab = {"[UNK]": 0, **{w: i for i, w in enumerate(words, start=1)}}
    vectors = np.random.default_rng(0).normal(size=(len(vocab), 16)).astype(np.float32)
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre
    model2vec.StaticModel(vectors, tokenizer, normalize=True).save_pretrained(str(folder))
    return f"model2vec:{folder}"
