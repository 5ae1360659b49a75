"""Train the quote-speaker ranker (`fabula.quotes._ranker`) on PDNC novels and cross-validate it.

For every novel: detection, gold characters, the rule sieve, then the candidate speakers of each turn
with their features; the label is the gold speaker of the PDNC quotes the turn covers. The model is a
conditional logit (softmax over one turn's candidates, L2-regularised) fitted with scipy's L-BFGS.

Reports leave-novels-out cross-validation (``--folds`` folds by novel, each novel scored by a model that
never saw it) with the PDNC protocol, for gold and (with ``--predicted``) discovered characters, then
trains on all novels and writes ``src/fabula/quotes/ranker.json`` (unless ``--no-write``).

With ``--split``, the project's validation split: the 7 frozen novels (every third folder in sorted
order, indices 2, 5, …, 20) are scored by a model trained on the other 14 only, and the 14 by
cross-validation within the 14 (novel i of the 14 in fold i mod ``--folds``); both means are printed.
Tune on the 14; look only at the 7's means, never at their individual errors.

With ``--hide-tags F``, each held-out novel is also scored with a share F of its tagged quotes' speech
tags blanked (`hide_tags`; the 'gold hidden' mode): a sparse-tag novel simulated, the worst case of the
held-out novels (a dialogue-heavy novel with few speech tags). ``--train-hidden F`` trains on such
copies of the training novels as well as the novels themselves. ``--sparse-gate`` fits a gated copy of
every feature too (the feature times the turn's `sparse_gates`: the share of untagged turns around it),
so the weights where tags are sparse may differ from those where they are dense.

``--write-hidden DIR`` writes the ``--hide-tags`` copies to DIR laid out like PDNC (the annotations linked,
the text the same length, so PDNC's spans hold) and stops: ``fabula eval quotes --pdnc DIR`` then scores the
shipped model on exactly the copies the 'gold hidden' mode scores (docs/benchmarks.md's "hidden-tag copies").

``--train-predicted W`` trains on each training novel a second time with its discovered cast (as
`fabula analyze` and ``--characters predicted`` attribute: split, merged, missing and extra entries), each
such turn counting W of a turn; a turn's right candidates are those the PDNC protocol would score right
(`is_gold_speaker`: a shared name), all of them where the cast splits the speaker in two (the fit
maximises the summed probability of the right set), and a turn none is right for is left out.
Measured at W 1.0 and 0.5, not in the shipped fit (docs/benchmarks.md, issue 28's thirteenth session).

    python scripts/train_quote_ranker.py ../shared/data/pdnc [--folds 7] [--second-pass] [--predicted] [--split]
        [--hide-tags F] [--train-hidden F] [--sparse-gate] [--train-predicted W] [--json OUT]
    python scripts/train_quote_ranker.py ../shared/data/pdnc --hide-tags 0.7 --write-hidden OUT
"""

from __future__ import annotations

import argparse
import bisect
import dataclasses
import itertools
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from fabula.book import book_from_text
from fabula.characters import find_characters
from fabula.datasets import PDNC_FROZEN, PdncNovel, find_pdnc_novels, load_pdnc_novel
from fabula.metrics import match_quotes
from fabula.quotes import detect_quotes
from fabula.quotes._ranker import (
    BEAM_WIDTH,
    FEATURE_FAMILIES,
    FEATURES,
    MODEL_FEATURES,
    rank_speakers,
    rerank,
    turn_candidates,
)
from fabula.quotes._rules import run_sieve
from fabula.tasks.pdnc_quotes import is_gold_speaker, score_novel

MODEL_PATH = Path(__file__).resolve().parents[1] / "src" / "fabula" / "quotes" / "ranker.json"
# (features of a turn's candidates, index of the right one, or the indices of several right ones: a
# turn is then fitted by the summed probability of its right candidates)
Groups = list[tuple[np.ndarray, int | tuple[int, ...]]]


def training_groups(
    novel: PdncNovel,
    first_pass: np.ndarray | None = None,
    gated: np.ndarray | None = None,
    discovered: bool = False,
) -> Groups:
    """Feature groups of one novel (gold characters), labelled where the gold speaker is a candidate.
    With ``first_pass`` weights, the neighbouring turns' speakers are that model's picks (as in the
    ranker's second pass at inference) instead of the sieve's. With ``gated`` (1 per feature that has a
    gated weight, 0 per one that has not), each row is followed by its gated copy (the row times the
    turn's `sparse_gates` value and ``gated``: `MODEL_FEATURES`). With ``discovered``, the candidates
    are the discovered cast's (`find_characters` without gold) and the right ones those sharing a name
    with the gold speaker (`is_gold_speaker`, as the PDNC protocol scores them): a turn whose speaker the
    cast splits has several."""
    book = novel.book
    detect_quotes(book)
    find_characters(book, gold=None if discovered else novel.characters)
    gold_by_id = {c.id: c for c in novel.characters}
    cast_by_id = {c.id: c for c in book.characters}
    context, turns = run_sieve(book)
    if first_pass is not None:
        rerank(context, turns, first_pass, passes=1)
    pairs = match_quotes(novel.quotes, book.quotes)
    gold_of: dict[int, str] = {}
    position = {id(q): i for i, q in enumerate(book.quotes)}
    for g, p in pairs.items():
        speaker = novel.quotes[g].speaker_id
        if p is not None and speaker is not None:
            gold_of[p] = speaker
    groups: Groups = []
    for item in turn_candidates(context, turns):
        votes = Counter(
            gold_of[position[id(q)]] for q in turns[item.turn].quotes if position[id(q)] in gold_of
        )
        if not votes:
            continue
        speaker = votes.most_common(1)[0][0]
        right = [
            i for i, c in enumerate(item.candidates) if is_gold_speaker(c, speaker, gold_by_id, cast_by_id)
        ]
        if right:
            rows = item.features
            if gated is not None:
                rows = np.hstack([rows, item.gate * gated * rows])
            groups.append((rows, right[0] if len(right) == 1 else tuple(right)))
    return groups


_MARKS = frozenset('"“”')
_TAG_END = re.compile(
    r'[.!?;]|\n\s*\n|["“]'
)  # where a tag after a quote stops: a sentence's end, the paragraph's, the next quote
_LEAD_START = re.compile(r"(?:[.!?;]\s|\n\s*\n)(?!.*(?:[.!?;]\s|\n\s*\n))", re.S)
_BLANKED_LINE = re.compile(r"(?<=\S)[ \t]*\n[ \t]+(?=\n)")  # a line of spaces right after a line of text
_TAG_CHARS = 100  # a tag after a quote is this short or left alone
_LEAD_CHARS = 60  # a lead-in ("Emma said, ...") likewise


def hide_tags(novel: PdncNovel, fraction: float) -> PdncNovel:
    """A copy of ``novel`` in which ``fraction`` of the gold quotes PDNC types explicit or anaphoric lose
    their speech tags (a sparse-tag novel simulated): the narration between the quote's own spans, a short
    clause right after its last span (to the sentence's end, before the next quote) and a short lead-in
    ending in ',' or ':' before it are blanked to spaces (quote marks kept, offsets unchanged, so the gold
    spans still hold). Which quotes is drawn per novel, reproducibly (seeded by the novel's name)."""
    text = list(novel.book.text)
    raw = novel.book.text
    draw = random.Random(f"hide-tags {novel.name}")

    starts = novel.book.paragraphs.starts.tolist()
    ends = novel.book.paragraphs.ends.tolist()

    def blank(start: int, end: int) -> None:
        """Blank ``[start, end)`` clipped to the paragraph ``start`` is in (paragraphs never merge)."""
        k = bisect.bisect_right(starts, start) - 1
        if k < 0 or start >= ends[k]:
            return
        for i in range(max(start, starts[k]), min(end, ends[k])):
            if raw[i] not in _MARKS and raw[i] != "\n":  # line breaks kept: line lengths decide paragraphs
                text[i] = " "

    for quote in novel.quotes:
        if draw.random() >= fraction or quote.type not in ("explicit", "anaphoric"):
            continue
        spans = quote.spans
        for left, right in itertools.pairwise(spans):
            if right.start - left.end <= _TAG_CHARS:
                blank(left.end, right.start)
        end = spans[-1].end
        while end < len(raw) and raw[end] in _MARKS:
            end += 1
        stop = _TAG_END.search(raw, end, end + _TAG_CHARS)
        if stop is not None and any(c.isalpha() for c in raw[end : stop.start()]):
            blank(end, stop.start() + (1 if raw[stop.start()] in ".!?;" else 0))
        start = spans[0].start
        while start > 0 and raw[start - 1] in _MARKS:
            start -= 1
        window = raw[max(0, start - _LEAD_CHARS) : start]
        lead = _LEAD_START.search(window)
        if lead is not None and window.rstrip().endswith((",", ":")):
            k = bisect.bisect_right(starts, start) - 1  # the quote's own paragraph only
            first = max(start - len(window) + lead.end(), starts[k] if k >= 0 else 0)
            while first < start and raw[first].isspace():
                first += 1
            if first > 0 and raw[first - 1] != "\n":  # a line starting in spaces would start a paragraph
                blank(first, start)
    hidden = "".join(text)
    # a line blanked whole would read as a blank line (a paragraph break): join it to the line before
    hidden = _BLANKED_LINE.sub(lambda m: " " * len(m.group(0)), hidden) if hidden != raw else hidden
    book = book_from_text(hidden, source=novel.book.meta.source)
    return dataclasses.replace(novel, book=book)


def fit(
    groups: Groups,
    l2: float | np.ndarray,
    group_weights: np.ndarray | None = None,
    base: np.ndarray | None = None,
    free: np.ndarray | None = None,
) -> np.ndarray:
    """Conditional-logit weights maximising the log-likelihood of the right candidates (of a group with
    several, their summed probability): each group's term times its ``group_weights`` entry (default 1),
    an l2 penalty per weight (``l2``: one for all, or one each); with ``free`` (a mask), only those
    weights are fitted, the others kept at ``base``'s. A group with one right candidate gives exactly the
    plain conditional logit's terms (its right set's log-sum-exp is the one score, bit for bit)."""
    sizes = np.array([len(f) for f, _ in groups])
    features = np.concatenate([f for f, _ in groups])
    owner = np.repeat(np.arange(len(groups)), sizes)
    labels = [(y,) if isinstance(y, int) else y for _, y in groups]
    right_owner = np.repeat(np.arange(len(groups)), [len(y) for y in labels])
    right = np.repeat(np.cumsum(np.concatenate([[0], sizes[:-1]])), [len(y) for y in labels]) + np.array(
        [i for y in labels for i in y]
    )
    width = features.shape[1]
    per_group = np.ones(len(groups)) if group_weights is None else np.asarray(group_weights, dtype=float)
    penalty = np.asarray(l2, dtype=float)  # a scalar, or one per weight (both exact as written below)
    start = np.zeros(width) if base is None else np.asarray(base, dtype=float)
    fitted = np.ones(width, dtype=bool) if free is None else np.asarray(free, dtype=bool)
    per_row = per_group[owner]

    def loss(x: np.ndarray) -> tuple[float, np.ndarray]:
        w = start.copy()
        w[fitted] = x
        scores = features @ w
        top = np.full(len(groups), -np.inf)
        np.maximum.at(top, owner, scores)
        exp = np.exp(scores - top[owner])
        totals = np.bincount(owner, exp, len(groups))
        log_z = np.log(totals) + top
        right_top = np.full(len(groups), -np.inf)  # the right set's log-sum-exp, likewise
        np.maximum.at(right_top, right_owner, scores[right])
        right_exp = np.exp(scores[right] - right_top[right_owner])
        right_totals = np.bincount(right_owner, right_exp, len(groups))
        log_right = np.log(right_totals) + right_top
        ridge = float(penalty * (w @ w)) if penalty.ndim == 0 else float(penalty @ (w * w))
        nll = float(np.sum(per_group * (log_z - log_right))) + ridge
        probabilities = exp / totals[owner]
        posterior = right_exp / right_totals[right_owner]  # within the right set (1 where it is one)
        gradient = (
            features.T @ (probabilities * per_row)
            - (features[right] * (per_group[right_owner] * posterior)[:, None]).sum(axis=0)
            + 2 * penalty * w
        )
        return nll, gradient[fitted]

    result = minimize(loss, start[fitted], jac=True, method="L-BFGS-B")
    weights = start.copy()
    weights[fitted] = result.x
    return weights


@dataclasses.dataclass(frozen=True)
class GateFit:
    """How `--sparse-gate` fits: which features have gated weights (``gated``: 1 or 0 per feature; None:
    no gated weights), the sparse-tag copies' turns each counted as ``copy_weight`` of a turn, the gated
    weights' l2 (None: the plain ones'), and with ``plain_fixed`` the plain weights fitted on the novels
    as written alone and kept while the gated ones are fitted on everything (the dense regime's weights
    as without the gate; the gated ones a correction toward the sparse regime). The discovered-cast
    copies' turns (`--train-predicted`) each count as ``cast_weight`` of a turn."""

    gated: np.ndarray | None = None
    copy_weight: float = 1.0
    gate_l2: float | None = None
    plain_fixed: bool = False
    cast_weight: float = 1.0


def fit_model(
    written: Groups, copies: Groups, l2: float, how: GateFit, discovered: Groups | None = None
) -> np.ndarray:
    """`fit` on the novels' groups as written, the sparse-tag copies' groups and the discovered-cast
    copies' (``discovered``), as ``how`` says."""
    cast = discovered or []
    groups = written + copies + cast
    group_weights = np.concatenate(
        [np.ones(len(written)), np.full(len(copies), how.copy_weight), np.full(len(cast), how.cast_weight)]
    )
    if how.gated is None:
        return fit(groups, l2, group_weights)
    half = len(how.gated)
    penalty = np.full(2 * half, l2)
    penalty[half:] = l2 if how.gate_l2 is None else how.gate_l2
    if not how.plain_fixed:
        return fit(groups, penalty, group_weights)
    plain = fit([(f[:, :half], y) for f, y in written], l2)
    base = np.concatenate([plain, np.zeros(half)])
    free = np.concatenate([np.zeros(half, dtype=bool), how.gated > 0])
    return fit(groups, penalty, group_weights, base, free)


def score_with(novel: PdncNovel, weights: np.ndarray, characters: str, beam: int) -> dict[str, Any]:
    """PDNC scores of one novel attributed with ``weights`` (the last pass decoded with a beam of ``beam``)."""
    book = novel.book
    if characters == "predicted":
        find_characters(book)
    else:
        find_characters(book, gold=novel.characters)
    predicted = rank_speakers(book, weights, beam=beam)
    return score_novel(novel, predicted)[0]


def summary(per_novel: dict[str, dict[str, Any]]) -> dict[str, float]:
    keys = ("accuracy", "explicit", "anaphoric", "implicit", "detection_f1")
    return {k: float(np.mean([s[k] for s in per_novel.values() if s[k] is not None])) for k in keys}


def validation_split(novels: list[PdncNovel]) -> tuple[list[PdncNovel], list[PdncNovel]]:
    """(tuning, validation), each in sorted folder order: the validation novels are the project's frozen 7
    (`PDNC_FROZEN`), whichever novels were loaded."""
    ordered = sorted(novels, key=lambda n: n.name)
    return [n for n in ordered if n.name not in PDNC_FROZEN], [n for n in ordered if n.name in PDNC_FROZEN]


def trained(
    novels: list[PdncNovel],
    groups: dict[str, Groups],
    l2: float,
    second_pass: bool,
    extra: dict[str, PdncNovel] | None = None,
    how: GateFit = GateFit(),
    recast: dict[str, PdncNovel] | None = None,
) -> np.ndarray:
    """Weights fitted on ``novels`` (refitted on second-pass features with ``second_pass``); with
    ``extra`` (novel name -> another copy, e.g. `hide_tags`'s, whose groups are in ``groups`` under
    its name + " hidden"), those copies' turns are trained on too (`fit_model`, as ``how`` says); with
    ``recast`` (novel name -> a fresh copy, whose discovered-cast groups are in ``groups`` under its
    name + " discovered"), those too."""
    copies = [extra[n.name] for n in novels] if extra else []
    recasts = [recast[n.name] for n in novels] if recast else []
    written = [g for n in novels for g in groups[n.name]]
    hidden = [g for c in copies for g in groups[f"{c.name} hidden"]]
    discovered = [g for c in recasts for g in groups[f"{c.name} discovered"]]
    weights = fit_model(written, hidden, l2, how, discovered)
    if second_pass:
        written = [g for n in novels for g in training_groups(n, weights, how.gated)]
        hidden = [g for c in copies for g in training_groups(c, weights, how.gated)]
        discovered = [g for c in recasts for g in training_groups(c, weights, how.gated, discovered=True)]
        weights = fit_model(written, hidden, l2, how, discovered)
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdnc")
    parser.add_argument("--folds", type=int, default=7)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument(
        "--predicted", action="store_true", help="also cross-validate with discovered characters"
    )
    parser.add_argument(
        "--second-pass",
        action="store_true",
        help="refit on features whose neighbouring speakers are a first fit's picks (as the ranker's"
        " second pass sees them at inference)",
    )
    parser.add_argument(
        "--beam",
        type=int,
        nargs="+",
        default=[BEAM_WIDTH],
        help=f"beam widths of the last pass to score (1 = turn by turn; default {BEAM_WIDTH}, as shipped);"
        " the first is the headline, the others are reported beside it",
    )
    parser.add_argument("--json", type=Path, help="write the cross-validation scores here")
    parser.add_argument("--no-write", action="store_true", help="do not write ranker.json")
    parser.add_argument(
        "--split",
        action="store_true",
        help="validation split: cross-validate within the 14 tuning novels, score the 7 frozen ones"
        " (every third folder) with a model trained on the 14",
    )
    parser.add_argument(
        "--hide-tags",
        type=float,
        default=0.0,
        metavar="FRACTION",
        help="also score each held-out novel with FRACTION of its tagged quotes' speech tags blanked"
        " (`hide_tags`: a sparse-tag novel simulated), as the 'gold hidden' mode",
    )
    parser.add_argument(
        "--train-hidden",
        type=float,
        default=0.0,
        metavar="FRACTION",
        help="train on each training novel twice: as it is and with FRACTION of its tags blanked",
    )
    parser.add_argument(
        "--sparse-gate",
        action="store_true",
        help="train a gated copy of every feature too (its value times the turn's `sparse_gates`: how few"
        " of the turns around it have a tag), so sparse-tag passages get weights of their own",
    )
    parser.add_argument(
        "--gate-families",
        nargs="+",
        metavar="FAMILY",
        help="with --sparse-gate: gated weights for these feature families only (`FEATURE_FAMILIES` names)",
    )
    parser.add_argument(
        "--copy-weight",
        type=float,
        default=1.0,
        help="each turn of a sparse-tag copy (--train-hidden) counts as this much of a turn in the fit",
    )
    parser.add_argument(
        "--gate-l2", type=float, help="with --sparse-gate: the gated weights' l2 (default --l2)"
    )
    parser.add_argument(
        "--train-predicted",
        type=float,
        default=0.0,
        metavar="WEIGHT",
        help="train on each training novel with its discovered cast too (as `fabula analyze` attributes),"
        " each such turn counting WEIGHT of a turn; its right candidates share a name with the gold speaker",
    )
    parser.add_argument(
        "--write-hidden",
        type=Path,
        metavar="DIR",
        help="write the --hide-tags copies to DIR, laid out like PDNC, and stop (no fit)",
    )
    parser.add_argument(
        "--plain-fixed",
        action="store_true",
        help="with --sparse-gate: fit the plain weights on the novels as written alone, then the gated ones"
        " on everything with the plain ones kept",
    )
    args = parser.parse_args()
    folders = find_pdnc_novels(args.pdnc)
    novels = [load_pdnc_novel(f) for f in folders]
    if args.write_hidden is not None:
        if args.hide_tags <= 0:
            parser.error("--write-hidden needs --hide-tags F (the share of tags to hide)")
        from format_variants import write_copy  # a sibling script's PDNC folder writer

        for folder, novel in zip(folders, novels, strict=True):
            write_copy(folder, hide_tags(novel, args.hide_tags).book.text, args.write_hidden / folder.name)
        print(
            f"wrote {len(novels)} novels with {args.hide_tags:.0%} of their tags hidden to {args.write_hidden}"
        )
        return
    gated = None
    if args.sparse_gate:
        chosen = {f.name: f.features for f in FEATURE_FAMILIES}
        unknown = set(args.gate_families or ()) - set(chosen)
        if unknown:
            parser.error(f"unknown feature families: {sorted(unknown)}")
        kept = {name for family in args.gate_families or chosen for name in chosen[family]}
        gated = np.array([1.0 if name in kept else 0.0 for name in FEATURES])
    how = GateFit(gated, args.copy_weight, args.gate_l2, args.plain_fixed, args.train_predicted)
    groups = {n.name: training_groups(n, gated=gated) for n in novels}
    hidden: dict[str, PdncNovel] = {}  # the sparse-tag copies scored ('gold hidden')
    if args.hide_tags > 0:
        hidden = {n.name: hide_tags(n, args.hide_tags) for n in novels}
        for copy in hidden.values():
            detect_quotes(copy.book)
    augmented: dict[str, PdncNovel] = {}  # the sparse-tag copies trained on (`--train-hidden`)
    if args.train_hidden > 0:
        augmented = {n.name: hide_tags(n, args.train_hidden) for n in novels}
        for copy in augmented.values():
            groups[f"{copy.name} hidden"] = training_groups(copy, gated=gated)
    recast: dict[str, PdncNovel] = {}  # fresh copies trained on with their discovered casts
    if args.train_predicted > 0:
        recast = {n.name: load_pdnc_novel(f) for n, f in zip(novels, folders, strict=True)}
        for copy in recast.values():
            groups[f"{copy.name} discovered"] = training_groups(copy, gated=gated, discovered=True)
        cast_groups = [g for c in recast.values() for g in groups[f"{c.name} discovered"]]
        several = sum(isinstance(y, tuple) for _, y in cast_groups)
        print(
            f"{len(cast_groups)} discovered-cast turns, {several} with several right candidates",
            file=sys.stderr,
        )
    print(f"{sum(len(g) for g in groups.values())} labelled turns from {len(novels)} novels", file=sys.stderr)
    modes = [
        f"{characters}{'' if beam == args.beam[0] else f' beam={beam}'}"
        for characters in ("gold", "predicted")
        for beam in args.beam
    ] + (["gold hidden"] if hidden else [])
    results: dict[str, dict[str, dict[str, Any]]] = {mode: {} for mode in modes}
    tuning, validation = validation_split(novels) if args.split else (novels, [])

    def score(novel: PdncNovel, weights: np.ndarray) -> None:
        for beam in args.beam:
            suffix = "" if beam == args.beam[0] else f" beam={beam}"
            results[f"gold{suffix}"][novel.name] = score_with(novel, weights, "gold", beam)
            if args.predicted:
                results[f"predicted{suffix}"][novel.name] = score_with(novel, weights, "predicted", beam)
        if hidden:
            results["gold hidden"][novel.name] = score_with(hidden[novel.name], weights, "gold", args.beam[0])

    for fold in range(args.folds):
        held_out = [n for i, n in enumerate(tuning) if i % args.folds == fold]
        weights = trained(
            [n for n in tuning if n not in held_out],
            groups,
            args.l2,
            args.second_pass,
            augmented,
            how,
            recast,
        )
        for novel in held_out:
            score(novel, weights)
    if validation:
        weights = trained(tuning, groups, args.l2, args.second_pass, augmented, how, recast)
        for novel in validation:
            score(novel, weights)
    for mode in modes:
        if not results[mode]:
            continue
        print(f"\n{mode} characters, {args.folds}-fold leave-novels-out CV")
        frozen = {n.name for n in validation}
        for name, scores in sorted(results[mode].items()):
            if name in frozen:
                continue  # the validation novels: means only, never their individual scores or errors
            cells = " ".join(
                f"{k}={100 * scores[k]:.1f}" if scores[k] is not None else f"{k}=-"
                for k in ("accuracy", "explicit", "anaphoric", "implicit")
            )
            print(f"  {name:32s} {cells}")
        print("  mean", {k: round(100 * v, 1) for k, v in summary(results[mode]).items()})
        if validation:
            for label, part in (("tuning 14 (CV)", tuning), ("validation 7", validation)):
                if not all(n.name in results[mode] for n in part):
                    continue  # --folds 0: the tuning novels were only trained on
                subset = {n.name: results[mode][n.name] for n in part}
                print(f"  mean, {label}", {k: round(100 * v, 1) for k, v in summary(subset).items()})
    if args.json is not None:
        split = {"tuning": [n.name for n in tuning], "validation": [n.name for n in validation]}
        args.json.write_text(json.dumps({**results, "split": split}, indent=1))
    weights = trained(novels, groups, args.l2, args.second_pass, augmented, how, recast)
    names = MODEL_FEATURES if gated is not None else FEATURES
    for name, w in sorted(zip(names, weights, strict=True), key=lambda x: -abs(x[1])):
        print(f"  {name:32s} {w:+.3f}", file=sys.stderr)
    if not args.no_write:
        model = {
            "model": "conditional logit over a turn's candidate speakers",
            "trained_on": [n.name for n in novels],
            "l2": args.l2,
            "second_pass": args.second_pass,
            **({"train_hidden": args.train_hidden} if args.train_hidden > 0 else {}),
            **({"sparse_gate": True} if gated is not None else {}),
            # the fit's other settings, where not the defaults (the file says how it was made)
            **({"copy_weight": args.copy_weight} if args.copy_weight != 1.0 else {}),
            **({"gate_families": args.gate_families} if args.gate_families else {}),
            **({"gate_l2": args.gate_l2} if args.gate_l2 is not None else {}),
            **({"plain_fixed": True} if args.plain_fixed else {}),
            **({"train_predicted": args.train_predicted} if args.train_predicted > 0 else {}),
            "features": names,
            "weights": [round(float(w), 5) for w in weights],
            "scale": 1.0,
        }
        MODEL_PATH.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_PATH}", file=sys.stderr)


if __name__ == "__main__":
    main()
