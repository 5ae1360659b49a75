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

import bisect
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from fabula.annotation import annotate, result_of
from fabula.book import Character, Quote, Span
from fabula.characters import find_characters
from fabula.datasets import MIN_SPEAKER_QUOTES, GoldQuote, PdncNovel, find_pdnc_novels, load_pdnc_novel
from fabula.errors import ConfigError, InputError, unused_model
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
    CHUNK_TOKENS,
    DEFAULT_METHOD,
    LLM_METHODS,
    PAPER,
    PAPER_METHOD,
    STRIDE_TOKENS,
    AttributionResult,
    attribute_parts,
    available_methods,
    detect_quotes,
    llm_prompt_id,
    quote_parts,
)
from fabula.tasks._evaluation import EvalReport
from fabula.tasks._harness import EvalItem, ItemOutcome, Task, TaskOption, task

if TYPE_CHECKING:
    from fabula.anonymize import Anonymizer
    from fabula.llm import LLM

METRICS = [
    "accuracy",
    "explicit",
    "other",
    "anaphoric",
    "implicit",
    "detection_precision",
    "detection_recall",
    "detection_f1",
    "addressee_precision",
    "addressee_recall",
    "addressee_f1",
    "addressee_exact",
]
ADDRESSEE_COUNTS = ("exact", "quotes", "tp", "predicted", "gold")
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
            default=None,
            metavar="first|normal|incremental",
            choices=("first", "normal", "incremental"),
            help="LLM attribution: a quote's first prediction wins (first = the paper's normal), or incremental "
            "prompting that may revise earlier chunks. Default: incremental for --method llm (the paper's), "
            "first for llm-windows and hybrid.",
        ),
        TaskOption(
            "quotes",
            str,
            default=None,
            metavar="gold|detected",
            choices=("gold", "detected"),
            help="--method llm: attribute PDNC's gold quotation spans (the paper's protocol, the default for "
            "llm) or fabula's detected quotes (the default for every other method).",
        ),
        TaskOption(
            "population",
            str,
            default="ge10",
            metavar="ge10|non-minor",
            choices=("ge10", "non-minor"),
            help="--method llm: score speakers with >= 10 quotes (the paper's text) or PDNC's major and "
            "intermediate characters (the authors' released code).",
        ),
        TaskOption(
            "name_matching",
            str,
            default="exact",
            metavar="exact|lenient",
            choices=("exact", "lenient"),
            help="--method llm: an answer counts only when it is exactly a listed name (the paper), or also "
            "when it is part of one (the released code's alias2id).",
        ),
        TaskOption(
            "chapters",
            int,
            default=None,
            metavar="N",
            help="--method llm: only the quotes of each novel's first N chapters (a bounded run for slow "
            "models; not the paper's protocol, and the report's settings say so).",
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
        if not self.paper_protocol:  # the paper's settings are refused, not dropped, for other methods
            given = self.options_given
            unread = [  # (--quotes detected is what the other methods score: said, not refused)
                f"--{name.replace('_', '-')}"
                for name, unused in (
                    ("quotes", (None, "detected")),
                    ("population", ("ge10",)),
                    ("name_matching", ("exact",)),
                    ("chapters", (None,)),
                )
                if given[name] not in unused
            ]
            if unread:
                raise ConfigError(
                    f"only --method llm (the paper's protocol) reads {'it' if len(unread) == 1 else 'them'}; "
                    f"the {given['method']} method scores fabula's detected quotes of whole novels",
                    ", ".join(unread),
                )

    def check(self, llm: LLM | None) -> None:
        method = self.options_given["method"]
        if method not in LLM_METHODS:  # a model given to the ranker or rules was a TypeError traceback
            given = "--llm" if llm is not None else "--strategy" if self.options_given["strategy"] else None
            if given is not None:
                raise unused_model(method, LLM_METHODS, given)
        elif llm is None and "llm" not in self.method_options:
            raise ConfigError(
                f"the {method} attribution method needs a model: pass --llm SPEC, or choose --method "
                f"ranker (the default, no LLM)",
                "--method",
            )

    @property
    def paper_protocol(self) -> bool:
        """Whether this run is the quotation-attribution paper's protocol (``--method llm``)."""
        return self.options_given["method"] == PAPER_METHOD

    @property
    def strategy(self) -> str:
        given = self.options_given["strategy"]
        if self.paper_protocol:
            return "normal" if given == "first" else given or "incremental"
        return "first" if given in (None, "normal") else given

    @property
    def settings(self) -> dict[str, Any]:
        given = self.options_given
        out: dict[str, Any] = {
            "characters": given["characters"],
            "method": given["method"],
            "min_speaker_quotes": MIN_SPEAKER_QUOTES,
        }
        if self.paper_protocol:
            out.update(
                {
                    "protocol": PAPER,
                    "quotes": given["quotes"] or "gold",
                    "population": given["population"],
                    "name_matching": given["name_matching"],
                    "unit": "quotation part (sub-quotation)",
                    "chapters": given["chapters"],
                    "chunk_tokens": CHUNK_TOKENS,
                    "stride_tokens": STRIDE_TOKENS,
                }
            )
            out.pop("min_speaker_quotes") if given["population"] != "ge10" else None
        out.update({k: _jsonable(v) for k, v in self.method_options.items()})
        return out

    def items(self) -> list[EvalItem]:
        return novel_items(self.options_given["pdnc"], self.options_given["novel"])

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        novel = load_novel(item.payload, self.anonymizer)
        novel.check_speakers()  # many gold quotes without a listed speaker: not a score
        if self.paper_protocol:
            return self._run_paper(novel, llm or self.method_options.get("llm"))
        options = dict(self.method_options)
        if llm is not None:
            options.update({"llm": llm, "strategy": self.strategy, "progress": None})
        result = predict_quotes(
            novel, characters=self.options_given["characters"], method=self.options_given["method"], **options
        )
        samples: list[dict[str, Any]] = []
        scores, tallies, matched = score_novel(novel, result.quotes, samples)
        counts = {k: scores.pop(k) for k in COUNTS}
        addressees = scores.pop("_addressees")
        details: dict[str, Any] = {
            **counts,
            "_tallies": {k: [r, t] for k, (r, t) in tallies.items()},
            "_matched": matched,
            "_addressees": addressees,
        }
        if result.report:  # the method's account (LLM: prompt, failures, unmapped names): per-item log only
            details["_attribution"] = result.report
        return ItemOutcome(scores=scores, details=details, samples=samples)

    def _run_paper(self, novel: PdncNovel, llm: Any) -> ItemOutcome:
        """The paper's protocol on one novel (`score_paper_protocol`)."""
        given = self.options_given
        if llm is None:
            raise ConfigError("the llm attribution method needs a model: pass --llm SPEC", "--llm")
        scores, tallies, details = score_paper_protocol(
            novel,
            llm,
            quotes=given["quotes"] or "gold",
            characters=given["characters"],
            population=given["population"],
            strategy=self.strategy,
            name_matching=given["name_matching"],
            chapters=given["chapters"],
        )
        details["_tallies"] = {k: [r, t] for k, (r, t) in tallies.items()}
        samples = details.pop("_samples")  # one line per gold quotation part
        return ItemOutcome(scores=scores, details=details, samples=samples)

    def micro(self, outcomes: list[ItemOutcome]) -> dict[str, float | int | None]:
        """Every scored quote of every novel pooled."""
        pooled = {key: Tally() for key in ("accuracy", "other", *QUOTE_TYPES)}
        detection = [0, 0, 0]  # matched, predicted, gold
        for outcome in outcomes:
            for key, (right, total) in outcome.details["_tallies"].items():
                pooled[key].merge(Tally(right, total))
            detection[0] += outcome.details.get("_matched", 0)
            detection[1] += outcome.details.get("predicted_quotes", 0)
            detection[2] += outcome.details.get("gold_quotes", 0)
        micro: dict[str, float | int | None] = {k: t.score for k, t in pooled.items()}
        micro.update(_prf(*detection))
        pooled_addressees = dict.fromkeys(ADDRESSEE_COUNTS, 0)
        for outcome in outcomes:
            for key, value in (outcome.details.get("_addressees") or {}).items():
                pooled_addressees[key] += int(value)
        micro.update(addressee_scores(pooled_addressees))
        micro["pseudo_speaker_quotes"] = sum(o.details.get("pseudo_speaker_quotes", 0) for o in outcomes)
        return micro

    def finish(self, report: EvalReport) -> None:
        if "llm" in report.settings:
            report.settings["strategy"] = self.strategy
            if self.paper_protocol:
                report.settings["prompt"] = (
                    f"quote_attribution/michel2025_{'incremental' if self.strategy == 'incremental' else 'normal'}.txt"
                )
            else:
                report.settings["prompt"] = llm_prompt_id(self.strategy)

    def summary(self, report: EvalReport) -> list[str]:
        lines = []
        if self.paper_protocol:
            lines.append(table1_line(report))
        excluded = (report.micro or {}).get("pseudo_speaker_quotes") or 0
        if excluded:
            lines.append(
                f"{excluded} quotes by pseudo-speakers (_narr, _group, _unknowable) left out of attribution scoring"
            )
        return lines

    def title(self) -> str:
        return f"fabula eval quotes ({self.options_given['characters']} characters, {self.options_given['method']})"


def predict_quotes(
    novel: PdncNovel, *, characters: CharacterMode | str, method: str, **options: Any
) -> AttributionResult:
    """The pipeline on one novel (`fabula.annotation`): detect quotes, find characters (gold or
    discovered), attribute."""
    book = novel.book
    gold = novel.characters if characters == "gold" else None
    annotate(book, {"speakers"}, gold=gold, method=method, method_options=options)
    result: AttributionResult = result_of(book, "attribution")
    return result


def score_novel(
    novel: PdncNovel, predicted: list[Quote], samples: list[dict[str, Any]] | None = None
) -> tuple[dict[str, Any], dict[str, tuple[int, int]], int]:
    """Scores of one novel, the (right, total) tallies behind them, and the number of matched quotes;
    ``samples``, when given, gets one line per gold quote (`quote_sample`)."""
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
        scored = gold.speaker_id in scored_speakers and id(gold) not in pseudo
        quote = best[index]
        correct = quote is not None and is_right(gold, quote, gold_by_id, predicted_by_id)
        if samples is not None:
            samples.append(
                quote_sample(gold, quote, pairs.get(index) is not None, scored, correct, predicted_by_id)
            )
        if not scored:
            continue
        right.append(correct)
        types.append(gold.type)
    attribution: AttributionScores = attribution_accuracy(right, types)
    scores: dict[str, Any] = attribution.as_dict()
    other = _other_tally(attribution)
    scores["other"] = other.score
    scores.update(_prf(matched, len(predicted), len(novel.quotes)))
    scores.update(
        {
            "scored": attribution.overall.total,
            "gold_quotes": len(novel.quotes),
            "predicted_quotes": len(predicted),
            "pseudo_speaker_quotes": len(pseudo),
        }
    )
    addressees = addressee_counts(novel, predicted, pairs)
    scores.update(addressee_scores(addressees))
    scores["_addressees"] = addressees
    tallies = {"accuracy": attribution.overall, "other": other, **attribution.by_type}
    return scores, {k: (v.right, v.total) for k, v in tallies.items()}, matched


def _other_tally(attribution: AttributionScores) -> Tally:
    """Anaphoric and implicit quotes together: the papers' "Other" column."""
    other = Tally()
    for kind in ("anaphoric", "implicit"):
        other.merge(attribution.by_type[kind])
    return other


def addressee_counts(
    novel: PdncNovel, predicted: list[Quote], pairs: dict[int, int | None]
) -> dict[str, int]:
    """Addressees of every gold quote matched one-to-one to a detected quote: exact set matches (an empty
    gold set counts: self-talk and thoughts have none) and (quote, addressee) pairs right / predicted /
    gold. Gold addressees not on the character list are left out; predicted
    addressees are discovered characters mapped to the gold character sharing a name (as speakers are)."""
    by_name = {n: c.id for c in novel.characters for n in c.all_names()}
    predicted_by_id = {c.id: c for c in novel.book.characters}

    def as_gold(addressee: str) -> str:
        character = predicted_by_id.get(addressee)
        if character is None or character.source == "gold":
            return addressee
        return next((g.id for g in novel.characters if same_character(character, g)), f"?{addressee}")

    counts = dict.fromkeys(ADDRESSEE_COUNTS, 0)
    for g, p in pairs.items():
        if p is None:
            continue
        gold = {by_name[a] for a in novel.quotes[g].addressees if a in by_name}
        guess = {as_gold(a) for a in predicted[p].addressee_ids}
        counts["quotes"] += 1
        counts["exact"] += gold == guess
        counts["tp"] += len(gold & guess)
        counts["predicted"] += len(guess)
        counts["gold"] += len(gold)
    return counts


def addressee_scores(counts: dict[str, int]) -> dict[str, float | None]:
    """Addressee precision, recall and F1 over (quote, addressee) pairs, and the exact-set share."""
    prf = precision_recall_f1(counts["tp"], counts["predicted"], counts["gold"])
    exact = counts["exact"] / counts["quotes"] if counts["quotes"] else None
    return {
        "addressee_precision": prf.precision,
        "addressee_recall": prf.recall,
        "addressee_f1": prf.f1,
        "addressee_exact": exact,
    }


def quote_sample(
    gold: GoldQuote,
    quote: Quote | None,
    detected: bool,
    scored: bool,
    right: bool,
    predicted_by_id: dict[str, Character],
) -> dict[str, Any]:
    """One line of the per-sample log: the gold quote (id, type, span, speaker), the predicted quote it
    is judged against (the most overlapping one: its span and speaker), whether detection matched it
    one-to-one, whether it is scored (speaker with enough quotes, no pseudo-speaker) and right."""
    speaker = None if quote is None or quote.speaker_id is None else predicted_by_id.get(quote.speaker_id)
    return {
        "id": gold.id,
        "type": gold.type,
        "span": [gold.start, gold.end],
        "gold_speaker_id": gold.speaker_id,
        "gold_speaker": gold.speaker,
        "predicted_quote": None if quote is None else quote.id,
        "matched_span": None if quote is None else [quote.start, quote.end],
        "detected": detected,
        "predicted_speaker_id": None if quote is None else quote.speaker_id,
        "predicted_speaker": None if speaker is None else speaker.name,
        "scored": scored,
        "right": right if scored else None,
    }


def is_right(
    gold: GoldQuote, quote: Quote, gold_by_id: dict[str, Character], predicted_by_id: dict[str, Character]
) -> bool:
    """Whether ``quote``'s predicted speaker is ``gold``'s (`is_gold_speaker`)."""
    return is_gold_speaker(quote.speaker_id, gold.speaker_id, gold_by_id, predicted_by_id)


def is_gold_speaker(
    speaker_id: str | None,
    gold_speaker_id: str | None,
    gold_by_id: dict[str, Character],
    predicted_by_id: dict[str, Character],
) -> bool:
    """Whether the character ``speaker_id`` (of the book's cast, ``predicted_by_id``) is the gold speaker:
    by id with gold characters, by a shared name with discovered ones (so a discovered cast that splits
    a person in two has two right answers, and one that misses a person none)."""
    if speaker_id is None:
        return False
    character = predicted_by_id.get(speaker_id)
    if character is not None and character.source == "gold":
        return speaker_id == gold_speaker_id
    gold_character = gold_by_id.get(gold_speaker_id or "")
    if character is None or gold_character is None:
        return False
    return same_character(character, gold_character)


def _prf(matched: int, predicted: int, gold: int) -> dict[str, float | None]:
    prf = precision_recall_f1(matched, predicted, gold)
    return {"detection_precision": prf.precision, "detection_recall": prf.recall, "detection_f1": prf.f1}


def _jsonable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool | None) else str(value)


# --- the quotation-attribution paper's protocol (--method llm) -----------------------------------------


def paper_population(novel: PdncNovel, population: str) -> set[str]:
    """Gold character ids whose quotes are scored: speakers with >= 10 quotes (the paper's text:
    "characters that utter at least 10 quotes") or PDNC's major and intermediate characters (the released
    code's ``speakerType != "minor"``); pseudo-speakers never."""
    if population == "non-minor":
        pseudo = novel.pseudo_ids()
        return {c.id for c in novel.characters if c.category != "minor" and c.id not in pseudo}
    return novel.scored_speakers()


def score_paper_protocol(
    novel: PdncNovel,
    llm: LLM,
    *,
    quotes: str = "gold",
    characters: str = "gold",
    population: str = "ge10",
    strategy: str = "incremental",
    name_matching: str = "exact",
    chapters: int | None = None,
) -> tuple[dict[str, Any], dict[str, tuple[int, int]], dict[str, Any]]:
    """Run the paper's protocol on one novel and score it per quotation part (the paper's unit: each
    sub-quotation is marked and predicted on its own). Gold quotes: PDNC's spans, those of pseudo-speakers
    left unmarked as in the authors' code. Gold characters: the names list of every character who speaks
    (the authors' ``prune_info``); predicted: fabula's cast, scored right when the predicted character
    shares a name with the gold speaker. ``chapters``: only the first N chapters' quotes (a bounded run).
    Returns scores, tallies and details (``_samples``: one line per gold quotation part)."""
    book = novel.book
    pseudo = {id(q) for q in novel.pseudo_speaker_quotes()}
    limit = len(book.text)
    if chapters is not None and 0 < chapters < len(book.chapters):
        limit = book.chapters[chapters - 1].end
    valid = [q for q in novel.quotes if id(q) not in pseudo and q.start < limit]
    scored = paper_population(novel, population)
    if quotes == "gold":
        book.quotes = [Quote(q.id, list(q.spans)) for q in valid]
    else:
        detect_quotes(book)
        book.quotes = [q for q in book.quotes if q.start < limit]
    if characters == "gold":
        # the names list: every character who speaks in the novel (the authors' prune_info)
        speaking = {q.speaker_id for q in novel.quotes if id(q) not in pseudo and q.speaker_id}
        cast, speakers = novel.characters, speaking
    else:
        find_characters(book)
        cast, speakers = book.characters, None
    parts = quote_parts(book.quotes)
    targets = None
    if quotes == "gold":  # the parts of population quotes are predicted (the authors' to_predict)
        targets = {i for i, (_, _, qi, _) in enumerate(parts) if valid[qi].speaker_id in scored}
    report = attribute_parts(
        book,
        llm,
        [(s, e) for s, e, _, _ in parts],
        cast,
        targets=targets,
        speakers=speakers,
        strategy=strategy,
        name_matching=name_matching,
    )
    gold_by_id = {c.id: c for c in novel.characters}
    cast_by_id = {c.id: c for c in cast}
    starts = [s for s, _, _, _ in parts]
    right: list[bool] = []
    types: list[str] = []
    samples: list[dict[str, Any]] = []
    for quote in (q for q in novel.quotes if q.start < limit):
        counted = id(quote) not in pseudo and quote.speaker_id in scored
        for part, span in enumerate(quote.spans):
            if quotes == "detected":
                index = _part_for(span, parts, starts)
            elif id(quote) in pseudo:
                index = None  # pseudo-speakers' quotes are not marked (the authors' code)
            else:
                index = _exact_part(span, parts, starts)
            predicted = report.predictions.get(index) if index is not None else None
            if predicted is None or not counted:
                ok = False
            elif characters == "gold":
                ok = predicted == quote.speaker_id
            else:
                ok = same_character(cast_by_id[predicted], gold_by_id[quote.speaker_id or ""])
            samples.append(
                {
                    "id": quote.id,
                    "part": part,
                    "type": quote.type,
                    "span": [span.start, span.end],
                    "gold_speaker_id": quote.speaker_id,
                    "gold_speaker": quote.speaker,
                    "marked": index is not None,
                    "predicted_speaker_id": predicted,
                    "predicted_speaker": cast_by_id[predicted].name if predicted in cast_by_id else None,
                    "scored": counted,
                    "right": ok if counted else None,
                }
            )
            if counted:
                right.append(ok)
                types.append(quote.type)
    attribution = attribution_accuracy(right, types)
    other = _other_tally(attribution)
    scores: dict[str, Any] = {**attribution.as_dict(), "other": other.score}
    if quotes == "gold":
        scores.update(dict.fromkeys(("detection_precision", "detection_recall", "detection_f1")))
    else:
        gold_here = [q for q in novel.quotes if q.start < limit]
        pairs = match_quotes(gold_here, book.quotes)
        scores.update(_prf(sum(p is not None for p in pairs.values()), len(book.quotes), len(gold_here)))
    tallies = {"accuracy": attribution.overall, "other": other, **attribution.by_type}
    details: dict[str, Any] = {
        "scored": attribution.overall.total,
        "_attribution": report.to_dict(),
        "_predictions": {str(k): v for k, v in report.predictions.items()},
        "_samples": samples,
    }
    return scores, {k: (v.right, v.total) for k, v in tallies.items()}, details


def _exact_part(span: Span, parts: list[tuple[int, int, int, int]], starts: list[int]) -> int | None:
    """The index of the part with exactly ``span``'s start (gold quotes)."""
    index = bisect.bisect_left(starts, span.start)
    return index if index < len(parts) and parts[index][0] == span.start else None


def _part_for(span: Span, parts: list[tuple[int, int, int, int]], starts: list[int]) -> int | None:
    """The detected part overlapping ``span`` most (None when none overlaps)."""
    index = bisect.bisect_right(starts, span.end)
    best, best_overlap = None, 0
    for candidate in range(max(0, index - 8), min(len(parts), index + 1)):
        overlap = min(span.end, parts[candidate][1]) - max(span.start, parts[candidate][0])
        if overlap > best_overlap:
            best, best_overlap = candidate, overlap
    return best


def table1_line(report: EvalReport) -> str:
    """All / Explicit / Other as mean (standard deviation) over novels, as Table 1 of the paper."""
    cells = []
    for key, label in (("accuracy", "All"), ("explicit", "Explicit"), ("other", "Other")):
        values = [n[key] for n in report.novels.values() if isinstance(n.get(key), int | float)]
        if values:
            mean = sum(values) / len(values)
            # the sample standard deviation (n - 1); the paper does not say which it reports
            std = (
                (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5 if len(values) > 1 else 0.0
            )
            cells.append(f"{label} {100 * mean:.1f} ({100 * std:.1f})")
        else:
            cells.append(f"{label} -")
    return f"Table 1 layout (mean (std) over {len(report.novels)} novels): " + " / ".join(cells)
