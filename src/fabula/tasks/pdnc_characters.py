"""Character discovery scored against PDNC's character lists (issue 3's protocol).

For every novel the characters are discovered without the gold list, then compared with the gold
characters that speak at least 10 times (major and intermediate, as in the standard PDNC evaluation;
PDNC's pseudo-speakers ``_narr``, ``_group``, ``_unknowable`` are not characters: left out, and counted
as ``pseudo_speakers``),
with `fabula.metrics.score_characters` (recall, merge and split rates, alias recall; see there). Runs on
the evaluation harness (``fabula eval characters``), one item per novel.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any, ClassVar

from fabula.annotation import annotate
from fabula.characters import name_key
from fabula.datasets import MIN_SPEAKER_QUOTES
from fabula.metrics import SUBSTANTIAL_MIN, SUBSTANTIAL_SHARE, score_characters, score_genders
from fabula.tasks._evaluation import EvalReport
from fabula.tasks._harness import EvalItem, ItemOutcome, Task, TaskOption, task
from fabula.tasks.pdnc_quotes import NOVEL_OPTION, PDNC_OPTION, load_novel, novel_items

if TYPE_CHECKING:
    from fabula.book import Character
    from fabula.datasets import PdncNovel
    from fabula.llm import LLM

#: `fabula.metrics.score_genders` over the matched gold characters, plain and weighted by quote counts
GENDER_METRICS = [
    "gender_accuracy",
    "gender_unknown",
    "gender_wrong",
    "gender_accuracy_quotes",
    "gender_unknown_quotes",
    "gender_wrong_quotes",
]
METRICS = [
    "recall",
    "merge_rate",
    "split_rate",
    "alias_recall",
    "merge_rate_substantial",
    "split_rate_substantial",
    *GENDER_METRICS,
]
__all__ = [
    "METRICS",
    "SUBSTANTIAL_MIN",
    "SUBSTANTIAL_SHARE",
    "CharactersTask",
    "score_characters",
    "score_novel_characters",
]


@task("characters")
class CharactersTask(Task):
    """PDNC character discovery, one item per novel."""

    description = (
        "Character discovery on PDNC: recall, merge and split rates, alias recall, gender agreement"
        " (characters with >= 10 quotes)."
    )
    metrics: ClassVar[list[str]] = METRICS
    counts: ClassVar[list[str]] = [
        "gold_characters",
        "predicted_characters",
        "gendered",
        "unlisted_top20",
        "seconds",
    ]
    group_by: ClassVar[list[str]] = ["novel"]
    macro_over = "novel"
    anonymize_refusal = None  # the gold characters are renamed with the book (`anonymized_novel`)
    options: ClassVar[list[TaskOption]] = [
        PDNC_OPTION,
        NOVEL_OPTION,
        TaskOption("ner_model", str, metavar="NAME", help="Add PERSON entities from this spaCy pipeline."),
        TaskOption(
            "min_quotes",
            int,
            default=MIN_SPEAKER_QUOTES,
            metavar="N",
            help="Score the gold characters with at least N quotes.",
        ),
    ]

    @property
    def settings(self) -> dict[str, Any]:
        ner_model = self.options_given["ner_model"]
        return {
            "min_quotes": self.options_given["min_quotes"],
            "ner_model": ner_model,
            "method": "rules" + ("+ner" if ner_model else ""),
        }

    def items(self) -> list[EvalItem]:
        return novel_items(self.options_given["pdnc"], self.options_given["novel"])

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        novel = load_novel(item.payload, self.anonymizer)
        started = time.perf_counter()
        # the cast every command ships: quotes detected first (the one annotation pipeline)
        annotate(novel.book, {"characters"}, gold=None, ner_model=self.options_given["ner_model"])
        predicted = novel.book.characters
        seconds = time.perf_counter() - started
        scores, details = score_novel_characters(novel, predicted, self.options_given["min_quotes"])
        samples = list(details.pop("matches", ()))
        return ItemOutcome(scores=scores, details={**details, "seconds": round(seconds, 2)}, samples=samples)

    def summary(self, report: EvalReport) -> list[str]:
        lines = []
        missed = {name: s["missed"] for name, s in report.novels.items() if s.get("missed")}
        if missed:
            lines.append("missed: " + "; ".join(f"{n}: {', '.join(m)}" for n, m in missed.items()))
        pseudo = sum(s.get("pseudo_speakers", 0) for s in report.novels.values())
        if pseudo:
            lines.append(
                f"{pseudo} pseudo-speakers (_narr, _group, _unknowable) left out of the scored characters"
            )
        return lines


def score_novel_characters(
    novel: PdncNovel, predicted: list[Character], min_quotes: int = MIN_SPEAKER_QUOTES
) -> tuple[dict[str, float | None], dict[str, Any]]:
    """(`METRICS` scores, the other details) of ``predicted`` (found on ``novel.book``, whose mentions
    give the name counts) against the gold characters with at least ``min_quotes`` quotes; each match
    record gets the gold character's quote count, the weight of its gender agreement."""
    scored = novel.scored_speakers(min_quotes)
    pseudo = {cid for cid, n in novel.quote_counts.items() if n >= min_quotes} - scored
    name_counts: dict[str, Counter[str]] = defaultdict(Counter)
    for m in novel.book.mentions:
        if m.kind != "pronoun" and m.character_id is not None:
            name_counts[m.character_id][name_key(novel.book.text[m.start : m.end])] += 1
    result = score_characters(novel.book.text, novel.characters, predicted, scored, name_counts=name_counts)
    matches = [{**m, "quotes": novel.quote_counts.get(m["gold_id"], 0)} for m in result.matches]
    genders = score_genders(
        (m["gold_gender"], m["predicted_gender"], m["quotes"]) for m in matches if m["matched"] is not None
    )
    values = {**result.as_dict(), **genders.as_dict(), "matches": matches}
    scores = {m: values.pop(m) for m in METRICS}
    return scores, {**values, "pseudo_speakers": len(pseudo)}
