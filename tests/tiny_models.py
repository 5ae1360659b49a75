"""Tokenizers for the tiny random models that tests build (no download): one place for the word-level
BERT tokenizer the metric tests share."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def save_bert_word_tokenizer(folder: Path, words: Sequence[str]) -> None:
    """A BERT-style fast tokenizer over ``words`` (which start with [PAD], [UNK], [CLS], [SEP]): whitespace
    words, ``[CLS] A [SEP] B [SEP]`` for pairs; saved in ``folder`` as a hub folder would hold it."""
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    assert list(words[:4]) == ["[PAD]", "[UNK]", "[CLS]", "[SEP]"], "special tokens first"
    vocab = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    vocab.pre_tokenizer = pre_tokenizers.Whitespace()
    vocab.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    transformers.PreTrainedTokenizerFast(
        tokenizer_object=vocab, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]"
    ).save_pretrained(folder)
