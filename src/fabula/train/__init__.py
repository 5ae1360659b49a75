"""Fine-tuning recipes of the papers (optional extra ``fabula[train]``: torch, transformers, peft, accelerate,
all imported lazily): BookWorm's LoRA description model and RECIDENT's supervised pairwise recap rankers.

>>> train, val = read_describe_data(Path("bookworm/description"))          # doctest: +SKIP
>>> train_causal_lm(Path("llama-3-8b"), examples, val_examples, Path("out"), lora=LoraSettings(),
...                 loop=LoopSettings(lr=2.5e-5, grad_accum=4, warmup_steps=100), max_tokens=8192,
...                 recipe={"recipe": "describe"})                          # doctest: +SKIP
>>> train_cross_encoder(Path("minilm"), recap_pairs(Path("gold.jsonl")), Path("ce"),
...                     loop=LoopSettings(lr=2e-5, batch_size=32), max_length=256, alpha=1.0)  # doctest: +SKIP

Every run resumes from its last checkpoint in the output folder; the trained folder loads back as
``--llm hf:DIR`` (describe) or ``--method pairwise-model:DIR`` (recap). See docs/train.md.
"""

from fabula.train._causal import (
    BOOKWORM_TARGETS,
    META,
    RECIDENT_TARGETS,
    ChatExample,
    LoraSettings,
    encode_example,
    load_tokenizer,
    train_causal_lm,
)
from fabula.train._describe import (
    DescribeRecord,
    ExampleBuilder,
    read_describe_data,
    token_counts,
)
from fabula.train._loop import FitResult, LoopSettings, fit
from fabula.train._pairs import (
    PAIR_PROMPT,
    Pair,
    PairScorer,
    class_weights,
    pair_examples,
    pair_scorer,
    recap_pairs,
    train_cross_encoder,
)

__all__ = [
    "BOOKWORM_TARGETS",
    "META",
    "PAIR_PROMPT",
    "RECIDENT_TARGETS",
    "ChatExample",
    "DescribeRecord",
    "ExampleBuilder",
    "FitResult",
    "LoopSettings",
    "LoraSettings",
    "Pair",
    "PairScorer",
    "class_weights",
    "encode_example",
    "fit",
    "load_tokenizer",
    "pair_examples",
    "pair_scorer",
    "read_describe_data",
    "recap_pairs",
    "token_counts",
    "train_causal_lm",
    "train_cross_encoder",
]
