"""Quotation detection and attribution scored with the PDNC protocol (Vishnubhotla et al. 2022;
Michel et al. 2024).

* Detection: precision / recall / F1 of predicted quotes against PDNC quotes, one-to-one, where a match
  is a pair whose spans overlap.
* Attribution: per-novel accuracy on the PDNC quotes whose gold speaker has at least 10 quotes in that
  novel and is a character, not one of PDNC's pseudo-speakers (``_narr``, ``_group``, ``_unknowable``:
  those quotes are left out and counted as ``pseudo_speaker_quotes``), overall and split by gold quote
  type (explicit / anaphoric / implicit); a gold quote with no
  overlapping predicted quote counts as wrong. With predicted characters a prediction is right when the
  predicted character's names contain the gold speaker's main name or one of its aliases.
* ``mean`` is the macro average over novels (what the papers report); ``micro`` pools all quotes.

Works for any registered attribution method (``method="rules"``, ``method="llm"``, …). Runs on the
evaluation harness (``fabula eval quotes``), one item per novel; the scores are `fabula.metrics`'.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from fabula.book import Character, Quote, Span
from fabula.characters import find_characters
from fabula.datasets import MIN_SPEAKER_QUOTES, GoldQuote, PdncNovel, find_pdnc_novels, load_pdnc_novel
from fabula.errors import ConfigError, InputError
from fabula.metrics import (
    QUOTE_TYPES,
    AttributionScores,
    Tally,
    attribution_accuracy,
    best_overlap,
    match_quotes,
    precision_recall_f1,
    same_character,
)
from fabula.quotes import (
    DEFAULT_METHOD,
    AttributionResult,
    attribute_quotes,
    available_methods,
    detect_quotes,
    llm_prompt_id,
)
from fabula.tasks._evaluation import EvalReport
from fabula.tasks._harness import EvalItem, ItemOutcome, Task, TaskOption, run_eval, task

if TYPE_CHECKING:
    from fabula.anonymize import Anonymizer
    from fabula.llm import LLM

METRICS = [
    "accuracy",
    "explicit",
    "anaphoric",
    "implicit",
    "detection_precision",
    "detection_recall",
    "detection_f1",
]
COUNTS = ["scored", "gold_quotes", "predicted_quotes", "pseudo_speaker_quotes"]

CharacterMode = Literal["gold", "predicted"]


def novel_items(pdnc_dir: str | Path, novels: list[str] | None) -> list[EvalItem]:
    """One item per PDNC novel folder (sorted by name), or the named ones (InputError for a name that
    is not there)."""
    folders = find_pdnc_novels(pdnc_dir)
    if novels:
        by_name = {f.name: f for f in folders}
        missing = [n for n in novels if n not in by_name]
        if missing:
            raise InputError(f"no such novel(s): {', '.join(missing)}", pdnc_dir)
        folders = [by_name[n] for n in dict.fromkeys(novels)]
    return [EvalItem(f.name, {"novel": f.name}, f) for f in folders]


def anonymized_novel(novel: PdncNovel, anonymizer: Anonymizer) -> PdncNovel:
    """The novel with its gold characters renamed throughout (the mapping drawn from the gold list), and
    its gold data carried over: quote spans through the copy's offset map, quote texts, speakers,
    addressees and character names through the same name mapping; ids and counts unchanged."""
    copy = anonymizer.copy(novel.book, novel.characters)
    names = copy.names
    quotes = [
        dataclasses.replace(
            quote,
            spans=[Span(*copy.span(s.start, s.end)) for s in quote.spans],
            text=names(quote.text),
            speaker=names(quote.speaker),
            addressees=[names(a) for a in quote.addressees],
            referring_expression=names(quote.referring_expression),
        )
        for quote in novel.quotes
    ]
    characters = [copy.character(c) for c in novel.characters]
    return dataclasses.replace(novel, book=copy.book, characters=characters, quotes=quotes)


def load_novel(folder: Path, anonymizer: Anonymizer | None) -> PdncNovel:
    """A PDNC novel as a task reads it: anonymised when the run is (``--anonymize``)."""
    novel = load_pdnc_novel(folder)
    return novel if anonymizer is None else anonymized_novel(novel, anonymizer)


PDNC_OPTION = TaskOption(
    "pdnc", Path, required=True, metavar="DIR", help="A directory laid out like PDNC (one folder per novel)."
)
NOVEL_OPTION = TaskOption(
    "novel", str, multiple=True, metavar="NAME", help="Only this novel (folder name; repeatable)."
)


@task("quotes")
class QuotesTask(Task):
    """PDNC quotation detection and speaker attribution, one item per novel."""

    description = (
        "Quote detection P/R/F1 and speaker attribution accuracy on PDNC (speakers with >= 10 quotes)."
    )
    metrics: ClassVar[list[str]] = METRICS
    counts: ClassVar[list[str]] = COUNTS[:1]
    group_by: ClassVar[list[str]] = ["novel"]
    macro_over = "novel"
    llm = "optional"
    parallel_items = False  # an LLM method sends a novel's prompts concurrently itself
    anonymize_refusal = None  # `anonymized_novel` carries the gold quotes over
    anonymize_note = "Names from the gold character list; quote spans, speakers and gold names carried over."
    options: ClassVar[list[TaskOption]] = [
        PDNC_OPTION,
        TaskOption(
            "characters",
            str,
            default="gold",
            metavar="gold|predicted",
            choices=("gold", "predicted"),
            help="Gold character lists or fabula's own.",
        ),
        TaskOption(
            "method",
            str,
            default=DEFAULT_METHOD,
            metavar="NAME",
            help=f"Attribution method: {', '.join(available_methods())}.",
        ),
        TaskOption(
            "strategy",
            str,
            default="first",
            metavar="first|incremental",
            choices=("first", "incremental"),
            help="LLM attribution: first prediction wins, or incremental prompting that may revise earlier windows.",
        ),
        NOVEL_OPTION,
    ]

    def __init__(self, *, method_options: dict[str, Any] | None = None, **settings: Any) -> None:
        super().__init__(**settings)
        if self.options_given["method"] not in available_methods():
            raise InputError(
                f"unknown attribution method {self.options_given['method']!r} "
                f"(available: {', '.join(available_methods())})",
                "--method",
            )
        self.method_options = dict(method_options or {})

    def check(self, llm: LLM | None) -> None:
        method = self.options_given["method"]
        if method in ("llm", "hybrid") and llm is None and "llm" not in self.method_options:
            raise ConfigError(
                f"the {method} attribution method needs a model: pass --llm SPEC, or choose --method "
                f"ranker (the default, no LLM)",
                "--method",
            )

    @property
    def settings(self) -> dict[str, Any]:
        given = self.options_given
        out: dict[str, Any] = {
            "characters": given["characters"],
            "method": given["method"],
            "min_speaker_quotes": MIN_SPEAKER_QUOTES,
        }
        out.update({k: _jsonable(v) for k, v in self.method_options.items()})
        return out

    def items(self) -> list[EvalItem]:
        return novel_items(self.options_given["pdnc"], self.options_given["novel"])

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        novel = load_novel(item.payload, self.anonymizer)
        options = dict(self.method_options)
        if llm is not None:
            options.update({"llm": llm, "strategy": self.options_given["strategy"], "progress": None})
        result = predict_quotes(
            novel, characters=self.options_given["characters"], method=self.options_given["method"], **options
        )
        scores, tallies, matched = score_novel(novel, result.quotes)
        counts = {k: scores.pop(k) for k in COUNTS}
        details: dict[str, Any] = {
            **counts,
            "_tallies": {k: [r, t] for k, (r, t) in tallies.items()},
            "_matched": matched,
        }
        if result.report:  # the method's account (LLM: prompt, failures, unmapped names): per-item log only
            details["_attribution"] = result.report
        return ItemOutcome(scores=scores, details=details)

    def micro(self, outcomes: list[ItemOutcome]) -> dict[str, float | int | None]:
        """Every scored quote of every novel pooled."""
        pooled = {key: Tally() for key in ("accuracy", *QUOTE_TYPES)}
        detection = [0, 0, 0]  # matched, predicted, gold
        for outcome in outcomes:
            for key, (right, total) in outcome.details["_tallies"].items():
                pooled[key].merge(Tally(right, total))
            detection[0] += outcome.details["_matched"]
            detection[1] += outcome.details["predicted_quotes"]
            detection[2] += outcome.details["gold_quotes"]
        micro: dict[str, float | int | None] = {k: t.score for k, t in pooled.items()}
        micro.update(_prf(*detection))
        micro["pseudo_speaker_quotes"] = sum(o.details.get("pseudo_speaker_quotes", 0) for o in outcomes)
        return micro

    def finish(self, report: EvalReport) -> None:
        if "llm" in report.settings:
            report.settings["strategy"] = self.options_given["strategy"]
            report.settings["prompt"] = llm_prompt_id(self.options_given["strategy"])

    def summary(self, report: EvalReport) -> list[str]:
        excluded = (report.micro or {}).get("pseudo_speaker_quotes") or 0
        if not excluded:
            return []
        return [
            f"{excluded} quotes by pseudo-speakers (_narr, _group, _unknowable) left out of attribution scoring"
        ]

    def title(self) -> str:
        return f"fabula eval quotes ({self.options_given['characters']} characters, {self.options_given['method']})"


def evaluate_quotes(
    pdnc_dir: str | Path,
    *,
    characters: CharacterMode = "gold",
    method: str = DEFAULT_METHOD,
    novels: list[str] | None = None,
    json_path: str | Path | None = None,
    progress: bool = False,
    anonymize: Anonymizer | None = None,
    **method_options: Any,
) -> EvalReport:
    """Run detection + characters + attribution on each PDNC novel and score it (the harness's
    ``quotes`` task as a function; an ``llm`` option is the `LLM` object an LLM method uses;
    ``anonymize``: on renamed copies)."""
    if characters not in ("gold", "predicted"):
        raise InputError(f"characters must be 'gold' or 'predicted', not {characters!r}", "--characters")
    llm = method_options.pop("llm", None)
    strategy = method_options.pop("strategy", "first")
    evaluation = QuotesTask(
        pdnc=pdnc_dir,
        characters=characters,
        method=method,
        novel=novels,
        strategy=strategy,
        method_options=method_options,
    )
    return run_eval(evaluation, llm=llm, json_path=json_path, progress=progress, anonymize=anonymize)


def predict_quotes(
    novel: PdncNovel, *, characters: CharacterMode | str, method: str, **options: Any
) -> AttributionResult:
    """The pipeline on one novel: detect quotes, find characters (gold or discovered), attribute."""
    book = novel.book
    detect_quotes(book)
    find_characters(book, gold=novel.characters if characters == "gold" else None)
    return attribute_quotes(book, method=method, **options)


def score_novel(
    novel: PdncNovel, predicted: list[Quote]
) -> tuple[dict[str, Any], dict[str, tuple[int, int]], int]:
    """Scores of one novel, the (right, total) tallies behind them, and the number of matched quotes."""
    pairs = match_quotes(novel.quotes, predicted)
    matched = sum(1 for p in pairs.values() if p is not None)
    best = best_overlap(novel.quotes, predicted)
    scored_speakers = novel.scored_speakers()
    gold_by_id = {c.id: c for c in novel.characters}
    predicted_by_id = {c.id: c for c in novel.book.characters}
    pseudo = {id(q) for q in novel.pseudo_speaker_quotes()}
    right: list[bool] = []
    types: list[str] = []
    for index, gold in enumerate(novel.quotes):
        if gold.speaker_id not in scored_speakers or id(gold) in pseudo:
            continue
        quote = best[index]
        right.append(quote is not None and is_right(gold, quote, gold_by_id, predicted_by_id))
        types.append(gold.type)
    attribution: AttributionScores = attribution_accuracy(right, types)
    scores: dict[str, Any] = attribution.as_dict()
    scores.update(_prf(matched, len(predicted), len(novel.quotes)))
    scores.update(
        {
            "scored": attribution.overall.total,
            "gold_quotes": len(novel.quotes),
            "predicted_quotes": len(predicted),
            "pseudo_speaker_quotes": len(pseudo),
        }
    )
    tallies = {"accuracy": attribution.overall, **attribution.by_type}
    return scores, {k: (v.right, v.total) for k, v in tallies.items()}, matched


def is_right(
    gold: GoldQuote, quote: Quote, gold_by_id: dict[str, Character], predicted_by_id: dict[str, Character]
) -> bool:
    """Whether ``quote``'s predicted speaker is ``gold``'s: by id with gold characters, by a shared
    name with discovered ones."""
    if quote.speaker_id is None:
        return False
    character = predicted_by_id.get(quote.speaker_id)
    if character is not None and character.source == "gold":
        return quote.speaker_id == gold.speaker_id
    gold_character = gold_by_id.get(gold.speaker_id or "")
    if character is None or gold_character is None:
        return False
    return same_character(character, gold_character)


# Older names, used by scripts/.
_is_right = is_right
_best_overlap = best_overlap


def _prf(matched: int, predicted: int, gold: int) -> dict[str, float | None]:
    prf = precision_recall_f1(matched, predicted, gold)
    return {"detection_precision": prf.precision, "detection_recall": prf.recall, "detection_f1": prf.f1}


def _jsonable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool | None) else str(value)
