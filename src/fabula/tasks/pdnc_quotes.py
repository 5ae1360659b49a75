"""Quotation detection and attribution scored with the PDNC protocol (Vishnubhotla et al. 2022;
Michel et al. 2024).

* Detection: precision / recall / F1 of predicted quotes against PDNC quotes, one-to-one, where a match
  is a pair whose spans overlap.
* Attribution: per-novel accuracy on the PDNC quotes whose gold speaker has at least 10 quotes in that
  novel, overall and split by gold quote type (explicit / anaphoric / implicit); a gold quote with no
  overlapping predicted quote counts as wrong. With predicted characters a prediction is right when the
  predicted character's names contain the gold speaker's main name or one of its aliases.
* ``mean`` is the macro average over novels (what the papers report); ``micro`` pools all quotes.

Works for any registered attribution method (``method="rules"``, ``method="llm"``, …).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from fabula.book import Character, Quote
from fabula.characters import find_characters
from fabula.datasets._pdnc import GoldQuote, PdncNovel, find_pdnc_novels, load_pdnc_novel
from fabula.errors import InputError
from fabula.quotes import DEFAULT_METHOD, attribute_quotes, detect_quotes
from fabula.tasks._evaluation import EvalReport

METRICS = [
    "accuracy",
    "explicit",
    "anaphoric",
    "implicit",
    "detection_precision",
    "detection_recall",
    "detection_f1",
]
COUNTS = ["scored", "gold_quotes", "predicted_quotes"]
_TYPES = ("explicit", "anaphoric", "implicit")

CharacterMode = Literal["gold", "predicted"]


def evaluate_quotes(
    pdnc_dir: str | Path,
    *,
    characters: CharacterMode = "gold",
    method: str = DEFAULT_METHOD,
    novels: list[str] | None = None,
    progress: Callable[[str], None] | None = None,
    **method_options: Any,
) -> EvalReport:
    """Run detection + characters + attribution on each PDNC novel and score it."""
    if characters not in ("gold", "predicted"):
        raise InputError(f"characters must be 'gold' or 'predicted', not {characters!r}", "--characters")
    folders = find_pdnc_novels(pdnc_dir)
    if novels:
        by_name = {f.name: f for f in folders}
        missing = [n for n in novels if n not in by_name]
        if missing:
            raise InputError(f"no such novel(s): {', '.join(missing)}", pdnc_dir)
        folders = [by_name[n] for n in novels]
    report = EvalReport(
        task="quotes",
        metrics=METRICS,
        settings={
            "characters": characters,
            "method": method,
            "min_speaker_quotes": 10,
            **_jsonable(method_options),
        },
    )
    totals: dict[str, list[int]] = {key: [0, 0] for key in ("accuracy", *_TYPES)}
    detection = [0, 0, 0]  # matched, predicted, gold
    for folder in folders:
        if progress is not None:
            progress(folder.name)
        novel = load_pdnc_novel(folder)
        predicted = predict_quotes(novel, characters=characters, method=method, **method_options)
        scores, tallies, matched = score_novel(novel, predicted)
        report.add_novel(novel.name, scores)
        for key, (right, total) in tallies.items():
            totals[key][0] += right
            totals[key][1] += total
        detection[0] += matched
        detection[1] += len(predicted)
        detection[2] += len(novel.quotes)
    micro: dict[str, float | int | None] = {k: (r / t if t else None) for k, (r, t) in totals.items()}
    micro.update(_prf(*detection))
    report.micro = micro
    return report


def predict_quotes(
    novel: PdncNovel, *, characters: CharacterMode, method: str, **options: Any
) -> list[Quote]:
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
    best = _best_overlap(novel.quotes, predicted)
    scored_speakers = novel.scored_speakers()
    gold_by_id = {c.id: c for c in novel.characters}
    predicted_by_id = {c.id: c for c in novel.book.characters}
    tallies: dict[str, list[int]] = {key: [0, 0] for key in ("accuracy", *_TYPES)}
    for index, gold in enumerate(novel.quotes):
        if gold.speaker_id not in scored_speakers:
            continue
        quote = best[index]
        right = quote is not None and _is_right(gold, quote, gold_by_id, predicted_by_id)
        for key in ("accuracy", gold.type):
            if key in tallies:
                tallies[key][0] += int(right)
                tallies[key][1] += 1
    scores: dict[str, Any] = {k: (r / t if t else None) for k, (r, t) in tallies.items()}
    scores.update(_prf(matched, len(predicted), len(novel.quotes)))
    scores.update(
        {
            "scored": tallies["accuracy"][1],
            "gold_quotes": len(novel.quotes),
            "predicted_quotes": len(predicted),
        }
    )
    return scores, {k: (v[0], v[1]) for k, v in tallies.items()}, matched


def match_quotes(gold: list[GoldQuote], predicted: list[Quote]) -> dict[int, int | None]:
    """One-to-one matching in text order: each gold quote takes the first unmatched predicted quote
    whose spans overlap its own. Returns gold index -> predicted index (or None)."""
    out: dict[int, int | None] = {}
    used: set[int] = set()
    first = 0
    for i, g in enumerate(gold):
        while first < len(predicted) and predicted[first].end <= g.start:
            first += 1
        out[i] = None
        j = first
        while j < len(predicted) and predicted[j].start < g.end:
            if j not in used and _overlaps(g.spans, predicted[j].spans):
                out[i] = j
                used.add(j)
                break
            j += 1
    return out


def _best_overlap(gold: list[GoldQuote], predicted: list[Quote]) -> list[Quote | None]:
    """For attribution: the predicted quote sharing the most characters with each gold quote."""
    out: list[Quote | None] = []
    first = 0
    for g in gold:
        while first < len(predicted) and predicted[first].end <= g.start:
            first += 1
        best: Quote | None = None
        best_overlap = 0
        j = first
        while j < len(predicted) and predicted[j].start < g.end:
            overlap = sum(
                max(0, min(a.end, b.end) - max(a.start, b.start)) for a in g.spans for b in predicted[j].spans
            )
            if overlap > best_overlap:
                best, best_overlap = predicted[j], overlap
            j += 1
        out.append(best)
    return out


def _overlaps(a: list[Any], b: list[Any]) -> bool:
    return any(x.start < y.end and y.start < x.end for x in a for y in b)


_NAME_SPACE = re.compile(r"\s+")


def _norm(name: str) -> str:
    return _NAME_SPACE.sub(" ", name).strip().lower()


def _is_right(
    gold: GoldQuote, quote: Quote, gold_by_id: dict[str, Character], predicted_by_id: dict[str, Character]
) -> bool:
    if quote.speaker_id is None:
        return False
    character = predicted_by_id.get(quote.speaker_id)
    if character is not None and character.source == "gold":
        return quote.speaker_id == gold.speaker_id
    gold_character = gold_by_id.get(gold.speaker_id or "")
    if character is None or gold_character is None:
        return False
    predicted_names = {_norm(n) for n in character.all_names()}
    return bool(predicted_names & {_norm(n) for n in gold_character.all_names()})


def _prf(matched: int, predicted: int, gold: int) -> dict[str, float | None]:
    precision = matched / predicted if predicted else None
    recall = matched / gold if gold else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else 0.0 if predicted else None
    return {"detection_precision": precision, "detection_recall": recall, "detection_f1": f1}


def _jsonable(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, str | int | float | bool | None) else str(v) for k, v in options.items()}
