"""Text-vs-reference metrics against hand computations: ROUGE (parity with rouge-score), entity recall,
SQuAD EM/F1."""

from __future__ import annotations

from pathlib import Path

import pytest
from rouge_score import rouge_scorer

from fabula.metrics import (
    entity_recall,
    exact_match,
    get_metric,
    named_entities,
    normalize_answer,
    rouge_scores,
    token_f1,
)
from tests.tiny_models import save_bert_word_tokenizer

PAIRS = [
    ("the cat sat on the mat", "the cat was on a mat"),
    (
        "Emma marries Mr. Knightley at the end.",
        "In the end Emma Woodhouse marries Mr. Knightley of Donwell Abbey.",
    ),
    (
        "Darcy proposes twice; Elizabeth refuses the first time.",
        "Elizabeth Bennet refuses Darcy's first proposal.",
    ),
    ("", "Anything at all."),
]


def test_rouge_matches_hand_computation() -> None:
    scores = rouge_scores("the cat sat on the mat", "the cat was on a mat")
    # unigrams: the, cat, on, mat shared -> P = R = 4/6; bigrams: only "the cat" -> 1/5; LCS the-cat-on-mat = 4
    assert scores.rouge1 == pytest.approx(4 / 6)
    assert scores.rouge2 == pytest.approx(1 / 5)
    assert scores.rougeL == pytest.approx(4 / 6)
    assert get_metric("rouge1")("the cat sat on the mat", "the cat was on a mat") == pytest.approx(4 / 6)


@pytest.mark.parametrize(("prediction", "reference"), PAIRS)
def test_rouge_parity_with_rouge_score(prediction: str, reference: str) -> None:
    expected = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True).score(
        reference, prediction
    )
    ours = rouge_scores(prediction, reference)
    assert ours.rouge1 == pytest.approx(expected["rouge1"].fmeasure)
    assert ours.rouge2 == pytest.approx(expected["rouge2"].fmeasure)
    assert ours.rougeL == pytest.approx(expected["rougeL"].fmeasure)


def test_rouge_for_chinese_counts_words_not_nothing() -> None:
    default = rouge_scorer.RougeScorer(["rouge1"]).score("我爱上海", "我爱北京")
    assert default["rouge1"].fmeasure == 0.0  # rouge-score's tokenizer drops every non-ASCII character
    scores = rouge_scores("我爱北京", "我爱上海", language="zh")  # jieba: 我 / 爱 / 北京 vs 我 / 爱 / 上海
    assert scores.rouge1 == pytest.approx(2 / 3) and scores.rouge2 == pytest.approx(1 / 2)


def test_named_entities_and_entity_recall() -> None:
    reference = "Emma visits Mr. Knightley at Donwell Abbey. She loves him. The Queen of Hearts shouts."
    assert named_entities(reference) == ["Emma", "Mr. Knightley", "Donwell Abbey", "Queen of Hearts"]
    # Knightley found (honorific aside), Donwell Abbey needs both words, Emma and the Queen missing: 1/4
    assert entity_recall("Knightley lives at Donwell.", reference) == pytest.approx(1 / 4)
    assert entity_recall("Emma and Mr Knightley at Donwell Abbey; hearts and a queen", reference) == 1.0
    assert entity_recall("anything", "no names here at all.") is None
    # a possessive is the same entity: "Emma's" and "Emma" count once, and "Emma's" in the output finds it
    assert named_entities("Emma's letter reached Emma at Hartfield.") == ["Emma", "Hartfield"]
    assert entity_recall("Emma's house", "Emma rode to Hartfield.") == pytest.approx(1 / 2)


def test_entity_recall_with_spacy_ner() -> None:
    """BookWorm's entity mention recall: the reference's entities found by spaCy NER (the `ner` extra)."""
    pytest.importorskip("spacy")
    from fabula.errors import ConfigError
    from fabula.metrics import load_ner

    try:
        nlp = load_ner()
    except ConfigError as exc:
        pytest.skip(str(exc))
    reference = "Elizabeth Bennet meets Mr. Darcy in London, and Darcy's pride offends Elizabeth Bennet."
    entities = named_entities(reference, nlp)
    assert "Elizabeth Bennet" in entities and "London" in entities
    assert "Darcy's" not in entities  # folded to "Darcy"
    expected = sum(
        1 for e in entities if all(w in {"elizabeth", "bennet", "london"} for w in e.lower().split())
    )
    assert entity_recall("Elizabeth Bennet went to London.", reference, nlp=nlp) == pytest.approx(
        expected / len(entities)
    )
    with pytest.raises(ConfigError, match="not installed"):
        load_ner("no_such_spacy_model")


def test_squad_em_and_f1() -> None:
    assert normalize_answer("The  Eiffel Tower!") == "eiffel tower"
    assert exact_match("the Eiffel Tower", "Eiffel Tower") == 1.0
    assert exact_match("Eiffel", "Eiffel Tower") == 0.0
    # tokens [in, paris, france] vs [paris]: P = 1/3, R = 1 -> F1 = 0.5
    assert token_f1("in Paris France", "Paris") == pytest.approx(0.5)
    # [a, sugar, refiner] -> [sugar, refiner] vs [refiner, of, sugar]: P = 1, R = 2/3 -> 0.8
    assert token_f1("a sugar refiner", "refiner of sugar") == pytest.approx(0.8)
    assert token_f1("yes", "no") == 0.0 and token_f1("", "") == 1.0


@pytest.mark.slow  # imports torch and transformers
def test_bertscore_with_a_tiny_model_built_in_the_test_by_hand(tmp_path: Path) -> None:
    """BERTScore with a BERT of no layers whose token vectors are LayerNorm'd one-hot word embeddings
    (position and segment embeddings zeroed): the cosine of a word with itself is 1, with another word
    -1/(H-1). "mara lives" against "mara lives at gullrock" (H = 16): precision 1, recall
    (1 + 1 - 2/15) / 4 = 7/15, F1 = 7/11."""
    for module in ("torch", "transformers", "tokenizers"):
        pytest.importorskip(module, reason=f"BERTScore needs {module} (fabula[hf])")
    import torch
    import transformers

    from fabula.metrics import bertscore_f1

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "mara", "lives", "at", "gullrock"]
    save_bert_word_tokenizer(tmp_path, words)
    config = transformers.BertConfig(
        vocab_size=len(words),
        hidden_size=16,
        num_hidden_layers=0,
        num_attention_heads=2,
        intermediate_size=32,
    )
    model = transformers.BertModel(config, add_pooling_layer=False)
    with torch.no_grad():
        model.embeddings.word_embeddings.weight.copy_(torch.eye(len(words), 16))
        model.embeddings.position_embeddings.weight.zero_()
        model.embeddings.token_type_embeddings.weight.zero_()
    model.save_pretrained(tmp_path)
    assert bertscore_f1(
        "mara lives at gullrock", "mara lives at gullrock", model_path=str(tmp_path)
    ) == pytest.approx(1.0)
    assert bertscore_f1("mara lives", "mara lives at gullrock", model_path=str(tmp_path)) == pytest.approx(
        7 / 11, abs=1e-4
    )
    assert bertscore_f1("", "mara", model_path=str(tmp_path)) == 0.0
