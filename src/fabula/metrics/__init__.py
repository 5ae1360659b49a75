"""Metrics: pure, registered scoring functions with typed results, usable without any task.

>>> from fabula.metrics import accuracy, precision_recall_f1, get_metric
>>> accuracy([True, False, True, True])
0.75
>>> precision_recall_f1(matched=8, predicted=10, gold=16).recall
0.5
>>> get_metric("accuracy")([True])
1.0

Tasks (``fabula.tasks``) compute their scores with these; new metric modules register with
``@metric("name")`` and are re-exported here.
"""

from fabula.metrics._characters import (
    SUBSTANTIAL_MIN,
    SUBSTANTIAL_SHARE,
    CharacterScores,
    score_characters,
)
from fabula.metrics._classification import (
    PRF,
    accuracy,
    f1,
    mean_of,
    precision,
    precision_recall_f1,
    ratio,
    recall,
)
from fabula.metrics._judged import (
    FACT_CATEGORIES,
    FactResult,
    NliResult,
    QAResult,
    fact_scores,
    load_nli_classifier,
    load_nli_scorer,
    nli_entailment,
    nli_max_entailment,
    pooled_fact_scores,
    qa_scores,
)
from fabula.metrics._quotes import (
    QUOTE_TYPES,
    AttributionScores,
    Tally,
    attribution_accuracy,
    best_overlap,
    match_quotes,
    quote_detection,
    same_character,
)
from fabula.metrics._ranking import (
    DISTANCE_BUCKETS,
    NEAREST_WINDOWS,
    at_5_within_nearest,
    f1_at_5,
    free_f1,
    free_precision,
    free_recall,
    harmonic_mean,
    precision_at_5,
    precision_at_k,
    recall_at_5,
    recall_at_k,
    recall_by_distance,
)
from fabula.metrics._registry import (
    AGGREGATIONS,
    METRICS,
    aggregation,
    get_aggregation,
    get_metric,
    metric,
    metric_names,
)
from fabula.metrics._text import (
    RougeScores,
    bertscore_f1,
    entity_recall,
    exact_match,
    load_ner,
    named_entities,
    normalize_answer,
    rouge_scores,
    rouge_tokens,
    token_f1,
)

__all__ = [
    "AGGREGATIONS",
    "DISTANCE_BUCKETS",
    "FACT_CATEGORIES",
    "METRICS",
    "NEAREST_WINDOWS",
    "PRF",
    "QUOTE_TYPES",
    "SUBSTANTIAL_MIN",
    "SUBSTANTIAL_SHARE",
    "AttributionScores",
    "CharacterScores",
    "FactResult",
    "NliResult",
    "QAResult",
    "RougeScores",
    "Tally",
    "accuracy",
    "aggregation",
    "at_5_within_nearest",
    "attribution_accuracy",
    "bertscore_f1",
    "best_overlap",
    "entity_recall",
    "exact_match",
    "f1",
    "f1_at_5",
    "fact_scores",
    "free_f1",
    "free_precision",
    "free_recall",
    "get_aggregation",
    "get_metric",
    "harmonic_mean",
    "load_ner",
    "load_nli_classifier",
    "load_nli_scorer",
    "match_quotes",
    "mean_of",
    "metric",
    "metric_names",
    "named_entities",
    "nli_entailment",
    "nli_max_entailment",
    "normalize_answer",
    "pooled_fact_scores",
    "precision",
    "precision_at_5",
    "precision_at_k",
    "precision_recall_f1",
    "qa_scores",
    "quote_detection",
    "ratio",
    "recall",
    "recall_at_5",
    "recall_at_k",
    "recall_by_distance",
    "rouge_scores",
    "rouge_tokens",
    "same_character",
    "score_characters",
    "token_f1",
]
