"""A small learned ranker over candidate speakers, on top of the rule sieve (method ``"ranker"``).

The sieve (`fabula.quotes._rules`) proposes one speaker per turn; its weakest guesses (alternation
in multi-party scenes, "most recent other speaker") are often wrong where the narration around the
turn says more. The ranker scores every plausible speaker of a turn — the characters named in the
narration of its paragraph and the paragraphs around it, the speakers of the turns around it, the
people addressed in the previous turn, the sieve's pick — with features of each (which sieve pass
proposed it, turn parity, mention distance and kind, vocatives, gender agreement with a pronoun tag,
how much the character speaks) and keeps the highest. The model is a conditional logit (a softmax
over the candidates of one turn) with weights in ``ranker.json`` next to this module: plain numpy at
inference, no scikit-learn, no download. ``scripts/train_quote_ranker.py`` trains it on PDNC novels
and reports leave-novels-out cross-validation.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from itertools import groupby
from typing import Any, Protocol

import numpy as np

from fabula._parallel import Channel, Talk, can_fork, fork_talk
from fabula.book import Book, Mention, Quote, text_memo
from fabula.characters import HONORIFICS, PRONOUN_GENDER, SPEECH_VERBS, is_vocative, surnames
from fabula.quotes._registry import AttributionResult, attribution_method
from fabula.quotes._rules import SieveContext, Turn, finish_turns, run_sieve

SIEVE_RULES = ("tag", "beat", "vocative", "alternation", "paragraph", "recent")
PRONOUN_STEPS = ("addressed", "paragraph", "narration", "participant", "layer")  # see _rules._resolve_pronoun
_FAR = 3000.0  # mention distances are capped here (characters): further is "not near"
_LOG_FAR = math.log1p(_FAR)  # distances are scaled by it to [0, 1]
_LOG_DISTANCES = [math.log1p(chars) / _LOG_FAR for chars in range(int(_FAR))]  # scaled, by distance
_DISTANCE_STEPS = 60  # a distance walk gives up after this many other names (a busy passage)
_RECENT_TURNS = 12  # earlier turns whose speakers are candidates
_RECENT_SPEAKERS = 5  # at most this many distinct earlier speakers
_MAIN_CAST = 8  # the characters named most often: candidates for a gendered tag no one resolved
_RECENT_PARAGRAPHS = 6  # characters named in this many paragraphs before the turn are candidates
_SCENE_TURNS = 20  # a candidate's share of the conversation is counted over this many turns each side
BEAM_WIDTH = 4  # readings of a conversation kept by the last pass (1: turn by turn; see `beam_decode`)
#: the log-probability a beam reading loses for giving an untagged dialogue paragraph the speaker of the
#: paragraph right before it, with no narration between: a new paragraph of dialogue is a new speaker
#: (PDNC's tuning novels: 96.5 % of such pairs), which the per-turn softmax cannot say (`beam_decode`)
REPEAT_PENALTY = 1.0
_GATE_TURNS = 10  # a turn's tag density is read over its conversation's turns this far on each side
_GATE_PRIOR = 5.0  # ... with this many pseudo-turns at the book's share (a short conversation says little)
_GATE_STEPS = 20  # the gate is rounded to 1/20: each gate's weights are made once per pass


@dataclass(slots=True)
class TurnCandidates:
    """The candidate speakers of one turn and their feature rows (for training and inference)."""

    turn: int
    candidates: list[str]
    features: np.ndarray  # (len(candidates), len(FEATURES))
    gate: float = 0.0  # the turn's `sparse_gates` value: the gated copies of the features are it times these


@cache
def load_model() -> tuple[np.ndarray, float]:
    """The shipped weights (one per `MODEL_FEATURES` entry, matched by name; 0 where the file has none,
    so a model without gated weights reads every turn with the plain ones) and the temperature."""
    raw = json.loads(resources.files("fabula.quotes").joinpath("ranker.json").read_text("utf-8"))
    weights = dict(zip(raw["features"], raw["weights"], strict=True))
    return np.array([float(weights.get(name, 0.0)) for name in MODEL_FEATURES]), float(raw.get("scale", 1.0))


@attribution_method("ranker")
def attribute_with_ranker(book: Book, **options: Any) -> AttributionResult:
    """Attribute ``book.quotes`` with the sieve, then re-rank each turn's candidate speakers."""
    if options:
        raise TypeError(f"the ranker method takes no options, got {sorted(options)}")
    weights, _ = load_model()
    return AttributionResult(rank_speakers(book, weights))


def rank_speakers(book: Book, weights: np.ndarray, passes: int = 2, beam: int = BEAM_WIDTH) -> list[Quote]:
    """The sieve, then each turn's candidates scored with ``weights`` (one per `FEATURES` entry, or per
    `MODEL_FEATURES` entry: the plain weights, then the gated ones, see `sparse_gates`).
    With ``beam`` > 1 the last pass decides each conversation as a whole (`beam_decode`)."""
    context, turns = run_sieve(book)
    statics = _StaticBook.of(context, turns)  # what no pass changes, computed once
    if beam > 1:
        if passes != 2 or not _rank_on_two_cores(context, turns, weights, beam, statics):
            rerank(context, turns, weights, passes - 1, statics)
            beam_decode(context, turns, weights, beam, statics)
    else:
        rerank(context, turns, weights, passes, statics)
    for turn in turns:
        settle_quotes(turn)
    finish_turns(context, turns)
    return book.quotes


def rerank(
    context: SieveContext,
    turns: list[Turn],
    weights: np.ndarray,
    passes: int,
    statics: _StaticBook | None = None,
) -> None:
    """Give every turn its top-scoring candidate, ``passes`` times: each pass sees the previous pass's
    speakers of the neighbouring turns (every turn is scored before any choice is applied)."""
    for _ in range(passes):
        stats = _BookStats.of(context, turns, statics, weights)
        picks = [(index, _scores(context, turns, index, stats)) for index in range(len(turns))]
        for index, scored in picks:
            if scored is not None:
                apply_choice(turns[index], *scored)


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ is several times slower
class _Hypothesis:
    """One partial reading of a conversation: the speakers chosen so far (a linked list, newest
    first), the sum of their log-probabilities, each choice's log-probability (None: the turn had no
    candidate; its probability is computed for the kept reading only), and the speakers of the last
    `_HISTORY` choices, newest first: what the next turn's features read (set once the reading is
    kept in the beam, from its previous one's)."""

    score: float
    turn: int
    speaker: str | None
    log_p: float | None
    previous: _Hypothesis | None
    history: tuple[str | None, ...] = ()


_HISTORY = max(_SCENE_TURNS, _RECENT_TURNS)  # how far back a turn's features read earlier speakers


def beam_decode(
    context: SieveContext,
    turns: list[Turn],
    weights: np.ndarray,
    width: int,
    statics: _StaticBook | None = None,
) -> None:
    """Decide every conversation's speakers as one sequence: a beam of ``width`` readings, each
    turn's candidates scored with the speakers *that reading* gave the turns before it (the turns
    after it as the previous pass left them), the reading with the highest summed log-probability
    kept. Turn by turn, one doubtful early guess in a two-party exchange fixes the A-B-A-B
    alternation for the rest of the scene; decided as a whole, a reading whose later turns fit
    badly (a tag that the alternation contradicts) loses to one that fits. The probabilities are
    the per-turn softmax the model was trained with (a maximum-entropy Markov model, not a CRF),
    so a strong tag that either reading can follow moves little: on the validation split this is
    worth +0.0 to +0.4 points, not more (docs/benchmarks.md). A reading pays `REPEAT_PENALTY` for
    each untagged dialogue paragraph it gives the speaker of the paragraph right before it
    (`_new_speaker_expected`): each turn's softmax sees the speakers before it only as features, so
    it cannot weigh a repeat against the whole sequence. Readings that agree on the turns a turn's
    features read share one computation."""
    stats = _BookStats.of(context, turns, statics, weights)
    for conversation in _conversations(turns, 0, len(turns)):
        _decode_conversation(context, turns, conversation, width, stats)


def _conversations(turns: list[Turn], start: int, end: int) -> Iterator[range]:
    """The turns of each conversation from turn ``start`` (a conversation's first) up to ``end``."""
    index = start
    while index < end:
        last = index
        while last < end and turns[last].conversation == turns[index].conversation:
            last += 1
        yield range(index, last)
        index = last


#: a book with at least this many turns is ranked in two halves on two cores (`_rank_on_two_cores`): a fork
#: and its messages cost 10-25 ms, half the first pass and beam of 400 turns about 0.05-0.1 s
FORK_TURNS = 400
#: the share of the turns the parent ranks; the rest (the later conversations) go to the child, which
#: starts at once, while the parent also forks, collects and checks
PARENT_SHARE = 0.5

_State = tuple[str | None, str | None, float]  # a turn's speaker, rule and confidence


def _rank_on_two_cores(
    context: SieveContext, turns: list[Turn], weights: np.ndarray, width: int, statics: _StaticBook
) -> bool:
    """The first pass and `beam_decode` of a long book with the later conversations in a forked child
    (`fabula._parallel.fork_talk`), with the same result as `rerank` then `beam_decode` here; False
    (nothing done) where the book is short or `can_fork` says no.

    Both passes score turns from what no pass changes and the speakers the turns had before the pass
    (`_BookStats`: the book's speaker counts, the turns read before and after): each process scores its
    own turns of the first pass, sends the speakers it chose (`_State`s, a few bytes a turn), takes the
    other's, and decodes its own conversations. A conversation's decoding reads nothing of another but
    the speakers of the `_HISTORY` turns before it; the child decoded its first conversations reading
    the first pass's speakers there, so each of its conversations is taken only where the speakers
    before it, as decoded here, are those it read (else decoded here again). A child that fails costs
    time only: what it did not send is computed here."""
    if len(turns) < FORK_TURNS or not can_fork():  # (a server's threads and one core stop here)
        return False
    cut = _conversation_cut(turns, round(len(turns) * PARENT_SHARE))
    if cut is None:
        return False
    talk = fork_talk(
        lambda channel: _later_conversations(channel, context, turns, weights, width, statics, cut)
    )
    if talk is None:
        return False
    try:
        _earlier_conversations(talk, context, turns, weights, width, statics, cut)
    except BaseException:  # Ctrl-C, or a failure here: the child's work is not wanted
        talk.cancel()
        raise
    return True


def _conversation_cut(turns: list[Turn], near: int) -> int | None:
    """The first turn of the conversation that starts nearest turn ``near`` (not the book's first)."""
    best = None
    for index in range(1, len(turns)):
        if turns[index].conversation != turns[index - 1].conversation and (
            best is None or abs(index - near) < abs(best - near)
        ):
            best = index
    return best


def _states(turns: list[Turn], start: int, end: int) -> list[_State]:
    return [(turn.speaker, turn.rule, turn.confidence) for turn in turns[start:end]]


def _set_states(turns: list[Turn], start: int, states: list[_State]) -> None:
    for index, (speaker, rule, confidence) in enumerate(states, start):
        turn = turns[index]
        turn.speaker, turn.rule, turn.confidence = speaker, rule, confidence


def _first_pass(
    context: SieveContext, turns: list[Turn], stats: _BookStats, indices: range
) -> list[tuple[int, tuple[list[str], list[float]] | None]]:
    """`rerank`'s scores of the turns ``indices`` (applied by the caller once every turn is scored)."""
    return [(index, _scores(context, turns, index, stats)) for index in indices]


def _apply(turns: list[Turn], picks: list[tuple[int, tuple[list[str], list[float]] | None]]) -> None:
    for index, scored in picks:
        if scored is not None:
            apply_choice(turns[index], *scored)


def _later_conversations(
    channel: Channel,
    context: SieveContext,
    turns: list[Turn],
    weights: np.ndarray,
    width: int,
    statics: _StaticBook,
    cut: int,
) -> list[_State]:  # pragma: no cover - runs in the forked child
    """The child's half (`_rank_on_two_cores`): the first pass of the turns from ``cut`` on, sent; the
    parent's first pass of those before, received; the conversations from ``cut`` decoded."""
    end = len(turns)
    _apply(
        turns, _first_pass(context, turns, _BookStats.of(context, turns, statics, weights), range(cut, end))
    )
    channel.send(_states(turns, cut, end))
    _set_states(turns, 0, channel.receive())
    stats = _BookStats.of(context, turns, statics, weights)
    for conversation in _conversations(turns, cut, end):
        _decode_conversation(context, turns, conversation, width, stats)
    return _states(turns, cut, end)


def _earlier_conversations(
    talk: Talk[list[_State]],
    context: SieveContext,
    turns: list[Turn],
    weights: np.ndarray,
    width: int,
    statics: _StaticBook,
    cut: int,
) -> None:
    """The parent's half (`_rank_on_two_cores`), and the child's results taken or computed here."""
    end = len(turns)
    stats = _BookStats.of(context, turns, statics, weights)
    picks = _first_pass(context, turns, stats, range(cut))
    done, theirs = talk.receive()
    if not done:  # the child failed: its turns scored here, before any choice is applied (as `rerank`)
        picks += _first_pass(context, turns, stats, range(cut, end))
    _apply(turns, picks)
    if done:
        _set_states(turns, cut, theirs)
        done = talk.send(_states(turns, 0, cut))
    # the speakers the child read before its conversations: the first pass's here, its own after
    seen = [turn.speaker for turn in turns]
    stats = _BookStats.of(context, turns, statics, weights)
    for conversation in _conversations(turns, 0, cut):
        _decode_conversation(context, turns, conversation, width, stats)
    done, decoded = talk.collect() if done else (False, None)
    if done:
        assert decoded is not None
        seen[cut:] = [speaker for speaker, _, _ in decoded]
    for conversation in _conversations(turns, cut, end):
        start = conversation.start
        before = range(start - 1, max(-1, start - 1 - _HISTORY), -1)  # what `_decode_conversation` reads
        if done and all(turns[k].speaker == seen[k] for k in before):
            assert decoded is not None
            _set_states(turns, start, decoded[start - cut : conversation.stop - cut])
        else:
            _decode_conversation(context, turns, conversation, width, stats)


def _decode_conversation(
    context: SieveContext,
    turns: list[Turn],
    conversation: range,
    width: int,
    stats: _BookStats,
) -> None:
    beams: list[_Hypothesis | None] = [None]
    # the speakers of the turns before the conversation, newest first (decided already): what a reading
    # with fewer than `_HISTORY` choices of its own reads after them
    earlier = tuple(
        turns[k].speaker
        for k in range(conversation.start - 1, max(-1, conversation.start - 1 - _HISTORY), -1)
    )
    for index in conversation:
        expected = index > conversation.start and _new_speaker_expected(turns, index)
        grown: list[tuple[float, int, _Hypothesis | None, list[str] | None, list[float] | None, int]] = []
        seen: dict[tuple[str | None, ...], tuple[list[str], list[float], list[int]] | None] = {}
        for hypothesis in beams:
            if hypothesis is not None and len(grown) >= width:
                # readings come best first, and a reading's continuations score at most its own score
                # (each log-probability is <= 0): once `width` continuations score at least that much,
                # none of this reading's (nor of the worse ones after it) can be kept; ties go to the
                # earlier grown, so they lose too
                floor = -hypothesis.score
                if sum(1 for entry in grown if entry[0] <= floor) >= width:
                    break
            history = hypothesis.history if hypothesis is not None else ()
            if history in seen:
                found = seen[history]
            else:
                # the reading's speakers of the turns before (its own choices, then the turns before the
                # conversation, decided already); the turns after are read as the previous pass left them
                back = history + earlier[: _HISTORY - len(history)] if len(history) < _HISTORY else history
                scored = _scores(context, turns, index, stats, back)
                found = None
                if scored is not None:
                    candidates, scores = scored
                    log_p = _log_softmax(scores)
                    # the `width` best, a tie in candidate order (a stable sort)
                    order = sorted(range(len(log_p)), key=log_p.__getitem__, reverse=True)[:width]
                    found = (candidates, log_p, order)
                seen[history] = found
            base = hypothesis.score if hypothesis is not None else 0.0
            if found is None:
                grown.append((-base, len(grown), hypothesis, None, None, -1))
                continue
            candidates, log_p, order = found
            repeat = history[0] if expected and history else None
            for pick in order:
                penalty = REPEAT_PENALTY if candidates[pick] == repeat else 0.0
                grown.append(
                    (-(base + log_p[pick] - penalty), len(grown), hypothesis, candidates, log_p, pick)
                )
        grown.sort()  # by score, best first; a tie in the order grown (a stable sort by score)
        beams = []
        for negative, _, previous, among, chosen, pick in grown[:width]:  # only the kept readings are made
            speaker = among[pick] if among is not None else turns[index].speaker
            reading = _Hypothesis(
                -negative, index, speaker, chosen[pick] if chosen is not None else None, previous
            )
            older = previous.history[: _HISTORY - 1] if previous is not None else ()
            reading.history = (speaker, *older)
            beams.append(reading)
    node: _Hypothesis | None = beams[0]
    while node is not None:  # the probabilities of the kept reading only
        turn = turns[node.turn]
        probability = math.exp(node.log_p) if node.log_p is not None else 0.0
        if probability > 0:
            turn.speaker, turn.rule, turn.confidence = node.speaker, "ranker", round(probability, 4)
        node = node.previous


def _new_speaker_expected(turns: list[Turn], index: int) -> bool:
    """Whether turn ``index`` is an untagged dialogue paragraph in the paragraph right after the previous
    turn's last (so no narration between): by the convention of printed dialogue, someone else speaks."""
    turn = turns[index]
    return turn.first_paragraph == turns[index - 1].paragraph + 1 and not _tagged(turn)


def _log_softmax(scores: list[float]) -> list[float]:
    """The log-probabilities of the softmax over ``scores`` (Python floats: a turn has a few candidates,
    where numpy's per-call cost is most of the work)."""
    top = max(scores)
    shifted = [score - top for score in scores]
    log_z = math.log(math.fsum([math.exp(value) for value in shifted]))
    return [value - log_z for value in shifted]


def apply_choice(turn: Turn, candidates: list[str], scores: list[float]) -> None:
    """Give the turn its top-scoring candidate (the first of a tie), with the softmax probability as
    confidence."""
    top = max(scores)
    best = scores.index(top)
    turn.speaker, turn.rule = candidates[best], "ranker"
    turn.confidence = round(1.0 / math.fsum([math.exp(score - top) for score in scores]), 4)


def settle_quotes(turn: Turn) -> None:
    """Quotes whose own tag agrees with the turn's speaker keep their tag (and mention); a tag the
    ranker overruled is dropped, unless the turn's quotes name different speakers in their tags."""
    if turn.rule != "ranker":
        return
    tagged = {q.speaker_id for q in turn.quotes if q.speaker_id is not None}
    for quote in turn.quotes:
        if quote.speaker_id is None:
            continue
        if quote.speaker_id == turn.speaker or len(tagged) > 1:
            quote.method = f"ranker:{(quote.method or 'rules:tag').split(':')[-1]}"
            if quote.speaker_id == turn.speaker:
                quote.confidence = max(turn.confidence, quote.confidence)
        else:
            quote.speaker_id, quote.mention, quote.method = None, None, None


def turn_candidates(
    context: SieveContext, turns: list[Turn], statics: _StaticBook | None = None
) -> list[TurnCandidates]:
    """Candidates and features for every turn with at least one candidate. ``statics`` keeps what no
    pass changes for the next call (`_StaticBook.of` the same context and turns)."""
    stats = _BookStats.of(context, turns, statics)
    out: list[TurnCandidates] = []
    for index in range(len(turns)):
        item = _features(context, turns, index, stats)
        if item is not None:
            out.append(item)
    return out


@dataclass(slots=True)
class _BookStats:
    """What every turn's features read of the whole book in one pass: the speaker counts (computed
    once per pass), and what no pass changes (`_StaticBook`)."""

    quote_counts: dict[str, int]  # quotes per speaker (the current speakers of the turns)
    total_quotes: int
    book: _StaticBook
    weights: np.ndarray | None = None  # the model's weights, when the pass scores turns (`_scores`)
    weight_list: list[float] = field(default_factory=list)  # the plain ones as Python floats
    shares: dict[str, tuple[float, float]] = field(default_factory=dict)  # speaker_share, mention_share
    share_scores: dict[str, float] = field(default_factory=dict)  # the shares times their weights
    gated: bool = False  # whether ``weights`` has gated weights that are not all 0 (`sparse_gates`)
    # gate -> the weights a turn with that gate is scored with (plain + gate * gated), and its share scores
    by_gate: dict[float, tuple[list[float], dict[str, float]]] = field(default_factory=dict)
    ahead: dict[int, _Ahead] = field(default_factory=dict)  # turn -> what it reads of the turns after it

    @classmethod
    def of(
        cls,
        context: SieveContext,
        turns: list[Turn],
        statics: _StaticBook | None = None,
        weights: np.ndarray | None = None,
    ) -> _BookStats:
        quote_counts: dict[str, int] = {}
        for turn in turns:
            if turn.speaker is not None:
                quote_counts[turn.speaker] = quote_counts.get(turn.speaker, 0) + len(turn.quotes)
        book = statics if statics is not None else _StaticBook.of(context, turns)
        if weights is not None:
            book.scoring_with(weights)
        gated = weights is not None and len(weights) > _WIDTH and bool(np.any(weights[_WIDTH:]))
        return cls(
            quote_counts,
            max(1, sum(quote_counts.values())),
            book,
            weights,
            weights[:_WIDTH].tolist() if weights is not None else [],
            gated=gated,
        )

    def weights_at(self, index: int) -> tuple[list[float], dict[str, float]]:
        """The weights turn ``index`` is scored with, as Python floats (the plain ones plus its gate
        times the gated ones, `sparse_gates`), and the book shares' scores under them (kept per gate)."""
        if not self.gated:
            return self.weight_list, self.share_scores
        gate = self.book.gates[index]
        found = self.by_gate.get(gate)
        if found is None:
            assert self.weights is not None
            mixed = self.weights[:_WIDTH] + gate * self.weights[_WIDTH : 2 * _WIDTH]
            found = self.by_gate[gate] = (mixed.tolist(), {})
        return found

    def share(self, who: str) -> tuple[float, float]:
        """How much ``who`` speaks (share of the quotes) and is named (log count, scaled to [0, 1])."""
        found = self.shares.get(who)
        if found is None:
            found = self.shares[who] = (
                self.quote_counts.get(who, 0) / self.total_quotes,
                math.log1p(self.book.mention_counts.get(who, 0)) / math.log1p(self.book.most_mentions),
            )
        return found


@dataclass(slots=True)
class _StaticBook:
    """What no pass changes: the name mentions (by position in `context.names`: their starts, their
    characters, the turn whose quotes hold them), counts of them, the conversations' name-tagged and
    he/she-tagged turns, and each turn's `_StaticTurn` (computed on first use)."""

    mention_counts: dict[str, int]  # name mentions per character
    most_mentions: int  # the largest of them (mention_share is scaled by it)
    frequent: list[str]  # the `_MAIN_CAST` most-named characters
    conversations: dict[int, tuple[int, int]]  # conversation -> its first turn, the turn after its last
    anchors: dict[int, list[tuple[int, str]]]  # conversation -> (turn, speaker) of its name-tagged turns
    anchor_speakers: dict[int, list[str]]  # conversation -> those speakers, each once, in order
    gendered: dict[int, list[tuple[int, str]]]  # conversation -> (turn, gender) of its he/she-tagged turns
    tag_genders: list[str | None]  # per turn, `_tag_gender` (the quote-tags family reads it too)
    kin_tags: list[str | None]  # per turn, `_kin_tag` ("her mother")
    families: dict[str, frozenset[str]]  # character -> their `fabula.characters.surnames`
    #: the entries of a gold list whose listed gender is neutral: PDNC's "X", which its annotators give
    #: the entries nobody quotes (of the 235 such entries in the 21 novels none speaks: a placeholder
    #: beside the full entry, a descriptor like "the coroner" whose speech they give the named person,
    #: a place); `_StaticTurn.cells` marks them, and the fitted weight keeps them from speaking
    listed_neutral: frozenset[str]
    #: character -> the offset of the first name mention that styles them as a married or titled woman
    #: (`_SENIOR_WOMEN`: "Mrs. Ashdown", "Lady Ashdown") or a titled man ("Mr.", "Sir", "Colonel"...);
    #: read only in a book with a kinship tag of a parent or spouse (`_styled_from`)
    styled_from: dict[str, int]
    name_starts: list[int]  # the start of every name mention of `context.names`, in its order
    name_ids: list[str]  # the character of each
    name_turns: list[int]  # the turn whose quote holds each (-1: narration; see `_QuotedText`)
    positions: dict[str, list[int]]  # character -> the positions of their mentions in that order
    paragraph_starts: list[int]  # the book's paragraphs (as Python ints)
    paragraph_ends: list[int]
    breaks: list[int]  # per turn: how many turns up to it follow a narration paragraph (`_chain_breaks`)
    narration_starts: list[int]  # the name mentions outside every quote (`name_turns` -1): their starts
    narration_ids: list[str]  # and characters
    turn_starts: list[int]  # each turn's start offset
    genders: dict[str, str]  # character -> gender (`SieveContext.gender`; missing: "unknown")
    gates: list[float]  # per turn, `sparse_gates`
    turns: dict[int, _StaticTurn] = field(default_factory=dict)  # turn -> `_StaticTurn`
    address_genders: dict[int, str | None] = field(default_factory=dict)  # turn -> `_address_gender`
    weights: np.ndarray | None = None  # the weights the turns' `_StaticTurn.score_of` were scored with
    # `_tag_verb_class` and `_address_gender` kept across the cuts of one book (`_text_kept`)
    verb_memo: dict[Any, Any] | None = None
    address_memo: dict[Any, Any] | None = None

    def address_gender(self, text: str, turns: list[Turn], index: int) -> str | None:
        """`_address_gender` of turn ``index``, computed once."""
        if index not in self.address_genders:
            self.address_genders[index] = _address_gender_kept(self.address_memo, text, turns[index])
        return self.address_genders[index]

    def scoring_with(self, weights: np.ndarray) -> None:
        """Forget the turns' static scores unless they were scored with these very weights."""
        if self.weights is not weights:
            for static in self.turns.values():
                static.score_of.clear()
            self.weights = weights

    @classmethod
    def of(cls, context: SieveContext, turns: list[Turn]) -> _StaticBook:
        mention_counts: dict[str, int] = {}
        name_starts: list[int] = []
        name_ids: list[str] = []
        positions: dict[str, list[int]] = {}
        for position, mention in enumerate(context.names):
            who = mention.character_id
            assert who is not None  # `context.names` keeps the mentions with a character only
            name_starts.append(mention.start)
            name_ids.append(who)
            mention_counts[who] = mention_counts.get(who, 0) + 1
            positions.setdefault(who, []).append(position)
        quoted = _QuotedText(turns)
        anchors = _name_tag_anchors(context, turns)
        conversations: dict[int, tuple[int, int]] = {}  # turns of a conversation are consecutive
        for index, turn in enumerate(turns):
            first, _ = conversations.get(turn.conversation, (index, index))
            conversations[turn.conversation] = (first, index + 1)
        text = context.book.text
        memo = text_memo(context.book, "quotes.tag_gender")
        tag_genders = [_tag_kept(memo, text, turn, context, _tag_gender) for turn in turns]
        kin_memo = text_memo(context.book, "quotes.kin_tag")
        kin_tags = [_tag_kept(kin_memo, text, turn, context, _kin_tag) for turn in turns]
        elders = any(tag is not None and _KIN_NOUNS[tag.split()[1]][1] for tag in kin_tags)
        name_turns = [quoted.turn_at(start) for start in name_starts]
        return cls(
            mention_counts,
            max(1, max(mention_counts.values(), default=1)),
            sorted(mention_counts, key=lambda who: -mention_counts[who])[:_MAIN_CAST],
            conversations,
            anchors,
            {
                conversation: list(dict.fromkeys(who for _, who in marks))
                for conversation, marks in anchors.items()
            },
            _gendered_tags(turns, tag_genders),
            tag_genders,
            kin_tags,
            {
                who: names
                for who, character in context.characters.items()
                if (names := surnames(character.all_names()))
            },
            frozenset(
                who
                for who, character in context.characters.items()
                if character.source == "gold" and character.gender == "neutral"
            ),
            _styled_from(context) if elders else {},
            name_starts,
            name_ids,
            name_turns,
            positions,
            context.book.paragraphs.starts.tolist(),
            context.book.paragraphs.ends.tolist(),
            _chain_breaks(turns),
            [start for start, held in zip(name_starts, name_turns, strict=True) if held == -1],
            [who for who, held in zip(name_ids, name_turns, strict=True) if held == -1],
            [turn.start for turn in turns],
            {who: character.gender for who, character in context.characters.items()},
            sparse_gates(turns),
            verb_memo=text_memo(context.book, "quotes.tag_verb_class"),
            address_memo=text_memo(context.book, "quotes.address_gender"),
        )

    def unbroken(self, a: int, b: int) -> bool:
        """Whether no narration paragraph stands between turns ``a`` and ``b`` (of one conversation)."""
        low, high = min(a, b), max(a, b)
        return self.breaks[high] == self.breaks[low]

    def named(self, start: int, end: int, skip: int = -2) -> list[tuple[int, str]]:
        """(offset, character id) of the name mentions in ``[start, end)``, but those inside the quotes
        of turn ``skip``."""
        starts, ids, held = self.name_starts, self.name_ids, self.name_turns
        lo, hi = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
        return [(starts[i], ids[i]) for i in range(lo, hi) if held[i] != skip]

    def log_distance(self, who: str, offset: int, here: int, *, before: bool) -> float:
        """log(1 + chars) to the nearest name mention of ``who`` before / after ``offset`` (``here``:
        the first mention at or after it), scaled to [0, 1]; 1.0 when it is `_FAR` or more away or
        more than `_DISTANCE_STEPS` other names lie between (a busy passage). One bisection, not a
        walk over the mentions in between."""
        own = self.positions.get(who, [])
        k = bisect.bisect_left(own, here)
        if before:
            if k == 0:
                return 1.0
            position = own[k - 1]
            steps, distance = here - 1 - position, offset - self.name_starts[position]
        else:
            if k == len(own):
                return 1.0
            position = own[k]
            steps, distance = position - here, self.name_starts[position] - offset
        if distance >= _FAR or steps >= _DISTANCE_STEPS:
            return 1.0
        return _LOG_DISTANCES[distance]  # math.log1p(distance) / _LOG_FAR


_PRONOUN_TAGS = frozenset({"he", "she", "i", "they", "we"})


def _name_tag_anchors(context: SieveContext, turns: list[Turn]) -> dict[int, list[tuple[int, str]]]:
    """The turns whose speaker the sieve read off a tag that names them ("said Elizabeth"), by
    conversation: the scene's fixed points, which no pass changes."""
    text = context.book.text
    anchors: dict[int, list[tuple[int, str]]] = {}
    for index, turn in enumerate(turns):
        speaker, rule, _ = turn.sieve
        if speaker is None or rule != "tag":
            continue
        named = any(
            q.speaker_id == speaker
            and q.mention is not None
            and (q.method or "").endswith(":tag")
            and text[q.mention.start : q.mention.end].lower() not in _PRONOUN_TAGS
            for q in turn.quotes
        )
        if named:
            anchors.setdefault(turn.conversation, []).append((index, speaker))
    return anchors


def sparse_gates(turns: list[Turn]) -> list[float]:
    """Per turn, how sparse the speech tags are where it stands, in [0, 1]: the share of turns the sieve
    did not read off a tag or beat (`_tagged`) among its conversation's turns up to `_GATE_TURNS` away on
    each side (itself included), with `_GATE_PRIOR` pseudo-turns at the book's share, rounded to
    1/`_GATE_STEPS`. Read from the text alone (the sieve's tags), the same in training and at inference.
    Every feature has a gated copy, its value times this: the model learns one set of weights where tags
    are dense and a correction toward another where they are sparse (a dialogue-heavy novel with few
    speech tags, where turn-taking must carry the chain), without moving the first set toward the second.
    A turn the sieve read off a tag or beat of its own gets 0: it is scored with the plain weights alone,
    so an explicit tag counts the same in a sparse passage as in a dense one, and only the turns that must
    be read from the chain get the sparse regime's weights."""
    if not turns:
        return []
    flags = [not _tagged(turn) for turn in turns]
    book_share = sum(flags) / len(flags)
    sums = [0, *itertools.accumulate(flags)]  # sums[k]: untagged turns before turn k
    gates: list[float] = []
    first = 0
    for index, turn in enumerate(turns):
        if turn.conversation != turns[first].conversation:
            first = index
        last = index  # the window's last turn: up to `_GATE_TURNS` on, within the conversation
        while (
            last + 1 < len(turns)
            and last + 1 - index <= _GATE_TURNS
            and (turns[last + 1].conversation == turn.conversation)
        ):
            last += 1
        low = max(first, index - _GATE_TURNS)
        untagged, count = sums[last + 1] - sums[low], last + 1 - low
        share = (untagged + _GATE_PRIOR * book_share) / (count + _GATE_PRIOR)
        gates.append(round(share * _GATE_STEPS) / _GATE_STEPS if flags[index] else 0.0)
    return gates


def _after_narration(previous: Turn | None, turn: Turn) -> bool:
    """Whether a paragraph without speech (narration) stands between ``previous`` and ``turn``: the
    exchange may have moved on (someone acts, a third person comes in), so turn-taking read across it
    is weaker evidence (on the tuning novels the speaker two turns back speaks again 83 % of the time
    between adjacent paragraphs, 46 % across narration)."""
    return (
        previous is not None
        and previous.paragraph >= 0
        and turn.first_paragraph >= 0
        and turn.first_paragraph - previous.paragraph > 1
    )


def _named_between(book: _StaticBook, previous: Turn | None, turn: Turn) -> list[str]:
    """The characters named in the paragraphs between ``previous`` and ``turn`` (narration), each once."""
    if previous is None or previous.paragraph < 0 or turn.first_paragraph <= previous.paragraph + 1:
        return []
    start, end = book.paragraph_starts[previous.paragraph + 1], book.paragraph_starts[turn.first_paragraph]
    return list(dict.fromkeys(who for _, who in book.named(start, end)))


def _chain_breaks(turns: list[Turn]) -> list[int]:
    """Per turn, how many turns up to it (itself included) follow a narration paragraph (`_after_narration`)
    within their conversation: two turns of a conversation have no break between them when equal."""
    out: list[int] = []
    count = 0
    for index, turn in enumerate(turns):
        if index > 0 and turns[index - 1].conversation == turn.conversation:
            count += _after_narration(turns[index - 1], turn)
        out.append(count)
    return out


@dataclass(slots=True)
class _StaticTurn:
    """What one turn's features read that no pass changes, computed once: the candidates the families
    that read no other turn's speaker propose (per run of such families in table order, each in the
    order first proposed) and their values, the tag's gender, what the static describing features
    read (the names inside its quotes, where the name mentions around it are, the he/she-tagged
    turns near it), where the turn stands in its conversation (what `_features` reads of the turns
    around it), and per candidate the row of every static column (`vectors`, kept in `matrix`)."""

    runs: list[list[str]]  # per run of static proposing families: the candidates it adds, in order
    proposed: dict[str, dict[int, float]]  # candidate -> the static proposing families' values
    tag_gender: str | None
    verb_column: int | None  # the tag verb's column (`_tag_verb_class`: he added / he replied), if any
    named_inside: set[str]  # characters named inside the turn's quotes, not addressed
    untagged: bool  # no quote of the turn has a tag
    start: int  # the turn's start and end offsets, and the first name mention (its position in
    end: int  # `context.names`) at or after each
    here_start: int
    here_end: int
    gender_anchors: list[tuple[int, str, float]]  # (column, gender, value) of the gender anchors (`vectors`)
    before: int  # turns of the same conversation right before this one, at most `_HISTORY`
    after: tuple[Turn | None, ...]  # the next three turns of the conversation (None: outside it)
    tagged: tuple[bool, bool, bool]  # the sieve read turn -1 / -2 / +2 off a tag or beat
    breaks: tuple[bool, bool]  # narration before this turn / before the turn before (`_after_narration`)
    entering: list[str]  # characters named in the narration paragraphs right before this turn, if any
    other_conversation: tuple[bool, ...]  # per earlier turn (1, 2, ... `_RECENT_TURNS` back): not this one's
    previous_vocatives: list[str]  # whom the turn before addressed, each once (none outside the conversation)
    next_vocatives: list[str]  # whom the turn after addresses (likewise)
    scene_after: list[Turn]  # this turn and the conversation's next ones up to `_SCENE_TURNS`
    first_rows: dict[str, int]  # the first run's candidates -> their row's first cell (`_features`)
    neighbour_columns: tuple[tuple[int, int | None], ...]  # per neighbour turn -1, -2, -3, +1, +2: its
    # column, and its "tagged" column where the sieve read that turn off a tag or beat (`tagged`)
    #: the three people the scene shows present nearest the turn (`_scene_presence`), nearest first
    present: list[tuple[str, float]] = field(default_factory=list)
    presence: dict[str, dict[int, float]] = field(default_factory=dict)  # candidate -> scene presence cells
    address: list[tuple[int, str]] = field(default_factory=list)  # (column, gender) by `_address_gender`
    row_of: dict[str, int] = field(default_factory=dict)  # candidate -> their row of `matrix`
    matrix: np.ndarray = field(default_factory=lambda: _NO_ROWS)  # `vectors` rows (never changed in place)
    score_of: dict[str, float] = field(default_factory=dict)  # candidate -> `score` (`_StaticBook.weights`)

    def stack(self, candidates: list[str], context: SieveContext, book: _StaticBook) -> np.ndarray:
        """The candidates' `vectors` rows in their order, as a new array (`_kept_rows`)."""
        return _kept_rows(self, candidates, self.vectors, context, book)

    def vectors(self, candidates: list[str], context: SieveContext, book: _StaticBook) -> np.ndarray:
        """The candidates' rows with the static columns filled, zeros elsewhere: the static proposing
        families' values, and the static describing families, which describe each row on its own:
        named inside the quote; mention distances (how far, in log characters, the nearest name
        mention of the candidate is before / after the turn); gender agreement with a gendered tag;
        gender anchors (the nearest he/she-tagged turn of the conversation on each side, read by parity
        like the name anchors: in a two-party scene between a man and a woman an even distance to a
        "she said" says this turn is the woman's, an odd one the man's, without resolving the pronoun
        to anyone; 1/sqrt(turns) for the candidates of that gender); the first name of the paragraph
        when no quote of the turn has a tag; the gender the turn and its neighbours address with a word
        of address (`_address_gender`: "Yes, sir." is said to a man, and he answers); a gold list's entry of
        neutral gender (`_StaticBook.listed_neutral`)."""
        found = np.zeros((len(candidates), _WIDTH))
        flat = found.reshape(-1)  # set one by one: faster than ndarray.put of lists here
        for offset, who in zip(range(0, len(candidates) * _WIDTH, _WIDTH), candidates, strict=True):
            for column, value in self.cells(who, context, book).items():
                flat[offset + column] = value
        return found

    def cells(self, who: str, context: SieveContext, book: _StaticBook) -> dict[int, float]:
        """The static columns of ``who``'s row (`vectors`; `score` sums them): column -> value, the
        columns left out are 0."""
        proposed = self.proposed.get(who)
        out = dict(proposed) if proposed is not None else {}
        if proposed is not None:
            out[_FIRST_NAME_UNTAGGED] = proposed.get(_FIRST_NAME, 0.0) * self.untagged
        if who in self.named_inside:
            out[_NAMED_INSIDE] = 1.0
        shown = self.presence.get(who)
        if shown is not None:
            out.update(shown)
        if who in book.listed_neutral:
            out[_LISTED_NEUTRAL] = 1.0
        out[_DISTANCE_BEFORE] = book.log_distance(who, self.start, self.here_start, before=True)
        out[_DISTANCE_AFTER] = book.log_distance(who, self.end, self.here_end, before=False)
        tag_gender = self.tag_gender
        if tag_gender is not None or self.gender_anchors or self.address:
            sex = context.gender(who)
            for column, addressed in self.address:
                if sex == addressed:
                    out[column] = 1.0
            if tag_gender is not None:
                out[_GENDER_MATCH if sex == tag_gender else _GENDER_MISMATCH] = 1.0
            for column, anchor_gender, value in self.gender_anchors:
                if sex == anchor_gender and value > out.get(column, 0.0):
                    out[column] = value
        return out

    def score(self, who: str, context: SieveContext, book: _StaticBook, weight: list[float]) -> float:
        """``who``'s static columns times the weights (`_scores`), computed once per turn and candidate."""
        found = self.score_of.get(who)
        if found is None:
            found = self.score_of[who] = sum(
                [weight[column] * value for column, value in self.cells(who, context, book).items()]
            )
        return found


@dataclass(slots=True)
class TurnRows:
    """One turn's candidate rows while the static proposing families fill them in."""

    context: SieveContext
    turns: list[Turn]
    index: int
    book: _StaticBook
    rows: dict[str, dict[int, float]] = field(default_factory=dict)  # candidate -> its non-zero features
    # (feature index -> value), in proposal order
    tag_gender: str | None = None  # the gender of the turn's speech tag ("she said", "said his wife")
    tag_pronoun_at: int | None = None  # where the tag's pronoun is, when the sieve resolved one
    present: dict[str, float] = field(default_factory=dict)  # who the scene shows present (`_scene_presence`)
    presence: dict[str, dict[int, float]] = field(default_factory=dict)  # their scene presence columns

    @property
    def turn(self) -> Turn:
        return self.turns[self.index]

    @property
    def inside(self) -> list[tuple[int, int]]:
        """The turn's own quote spans (names there are not narration)."""
        return [(s.start, s.end) for q in self.turn.quotes for s in q.spans]

    def put_one(self, character_id: str, i: int) -> None:
        """`put` with value 1.0 for a column whose values are 1.0 only, by its index."""
        row = self.rows.get(character_id)
        if row is None:
            self.rows[character_id] = {i: 1.0}
        else:
            row[i] = 1.0

    def put(self, character_id: str | None, feature: str, value: float = 1.0) -> None:
        """Propose ``character_id`` (a new row if needed) with ``feature`` at least ``value``."""
        if character_id is not None:
            self.put_at(character_id, _INDEX[feature], value)

    def put_at(self, character_id: str, i: int, value: float) -> None:
        """`put` by the feature's index."""
        row = self.rows.get(character_id)
        if row is None:
            row = self.rows[character_id] = {}
        if value > row.get(i, 0.0):
            row[i] = value


def _put_ones(rows: dict[str, dict[int, float]], proposed: Iterable[str], i: int) -> None:
    """`TurnRows.put_one` of each of ``proposed`` (``rows``: `TurnRows.rows`), in their order."""
    for who in proposed:
        row = rows.get(who)
        if row is None:
            rows[who] = {i: 1.0}
        else:
            row[i] = 1.0


# --- feature families that propose candidates (they run in table order: the order decides the
# candidates' order, and later families may read what earlier ones found) ------------------------


def _sieve_proposals(t: TurnRows) -> None:
    """Which sieve pass picked the candidate, and its confidence."""
    speaker, rule, confidence = t.turn.sieve
    if speaker is not None and rule in SIEVE_RULES:
        t.put(speaker, f"sieve_{rule}")
        t.put(speaker, "sieve_confidence", confidence)


def _quote_tags(t: TurnRows) -> None:
    """The per-quote tags and beats the sieve found: name or pronoun, where the tag sits, which step
    resolved the pronoun; also the gender of a tag that names no one (for `_gendered_tag`)."""
    book = t.context.book
    for quote in t.turn.quotes:
        if quote.speaker_id is None or quote.method is None:
            continue
        rule = quote.method.split(":")[-1]
        kind = "name"
        if quote.mention is not None:
            word = book.text[quote.mention.start : quote.mention.end].lower()
            if word in ("he", "she", "i"):
                kind = "pronoun"
                t.tag_gender = PRONOUN_GENDER.get(word)
                t.tag_pronoun_at = quote.mention.start
                step = t.turn.pronoun_steps.get(quote.mention.start)
                if step in PRONOUN_STEPS:
                    t.put(quote.speaker_id, f"pronoun_step_{step}")
        if rule == "tag":
            t.put(quote.speaker_id, "quote_tag_name" if kind == "name" else "quote_tag_pronoun")
            if quote.mention is not None and quote.mention.end <= quote.start:
                t.put(quote.speaker_id, "tag_before_quote")  # a lead-in: its subject is harder to find
            elif quote.mention is not None and quote.mention.start < quote.end:
                t.put(quote.speaker_id, "tag_inside_quote")  # "Yes," said he, "I will."
        elif rule == "beat":
            t.put(quote.speaker_id, "quote_beat")
            if kind == "pronoun":
                t.put(quote.speaker_id, "beat_pronoun")
    if t.tag_gender is None:
        t.tag_gender = t.book.tag_genders[t.index]  # `_tag_gender`, computed once per turn


def _gendered_tag(t: TurnRows) -> None:
    """For a gendered tag: the novel's main characters of that gender (a tag the sieve could not
    resolve, "returned she", "said his wife") and the pronoun's likely antecedents in the narration."""
    if t.tag_gender is None:
        return
    for who in t.book.frequent:
        if t.context.gender(who) == t.tag_gender:
            t.put(who, "frequent_character")
    _pronoun_antecedents(t, t.tag_gender, t.tag_pronoun_at)


def _pronoun_resolution(t: TurnRows) -> None:
    """For a gendered tag: what the mention layer resolved its pronoun to."""
    if t.tag_gender is None or t.tag_pronoun_at is None:
        return
    resolved = t.context.pronoun_at.get(t.tag_pronoun_at)
    if resolved is not None:
        t.put(resolved.character_id, "pronoun_mention_layer", 1.0)


def _narration_names(t: TurnRows) -> None:
    """Characters named in the narration of the turn's paragraph (first, before or after the quote),
    of the paragraphs before and after, and of the `_RECENT_PARAGRAPHS` paragraphs before."""
    turn = t.turn
    if turn.paragraph < 0:
        return
    index, named, put = t.index, t.book.named, t.put_one
    starts, ends = t.book.paragraph_starts, t.book.paragraph_ends
    p_start, p_end = starts[turn.first_paragraph], ends[turn.paragraph]
    for rank, (offset, who) in enumerate(named(p_start, p_end, index)):
        put(who, _OWN_NAME)
        if rank == 0:
            put(who, _FIRST_NAME)
        put(who, _OWN_BEFORE if offset < turn.start else _OWN_AFTER)
    if turn.first_paragraph > 0:
        q = turn.first_paragraph - 1
        before = named(starts[q], ends[q], index - 1 if index > 0 else -2)
        _put_ones(t.rows, dict.fromkeys(who for _, who in before), _PREV_PARAGRAPH)  # each once
        if before:
            put(before[-1][1], _PREV_PARAGRAPH_LAST)
            if index == 0 or t.turns[index - 1].paragraph != q:
                # a narration paragraph right before the turn: its first-named character acts, then speaks
                put(before[0][1], _PREV_NARRATION_FIRST)
    if turn.paragraph + 1 < len(starts):
        q = turn.paragraph + 1
        after = named(starts[q], ends[q], index + 1 if index + 1 < len(t.turns) else -2)
        _put_ones(t.rows, dict.fromkeys(who for _, who in after), _NEXT_PARAGRAPH)
    # every mention of the paragraphs before (none skipped: `named` with no turn), each character once
    name_starts = t.book.name_starts
    recent = t.book.name_ids[
        bisect.bisect_left(name_starts, starts[max(0, turn.first_paragraph - _RECENT_PARAGRAPHS)]) : (
            bisect.bisect_left(name_starts, p_start)
        )
    ]
    _put_ones(t.rows, dict.fromkeys(recent), _NAMED_RECENTLY)


def _addressed_in_turn(t: TurnRows) -> None:
    """People the turn itself addresses by name (rarely its speaker)."""
    for who in t.turn.vocatives:
        t.put(who, "addressed_in_turn")


#: A kinship noun of a speech tag ("said her mother") -> the speaker's gender, and whether the
#: relative is of the elder generation or a spouse (a married woman, a titled man) or not
_KIN_NOUNS: dict[str, tuple[str, bool]] = {
    **dict.fromkeys(("mother", "mamma", "mama", "wife"), ("female", True)),
    **dict.fromkeys(("father", "papa", "husband"), ("male", True)),
    **dict.fromkeys(("sister", "daughter"), ("female", False)),
    **dict.fromkeys(("brother", "son"), ("male", False)),
}
_POSSESSIVES = {"his": "male", "her": "female", "their": None, "my": "narrator", "our": "narrator"}
#: the titles of a married or titled woman ("Mrs.", "Lady", "Madame"), not a maiden's ("Miss", "Mlle.")
_SENIOR_WOMEN = frozenset(h for h, gender in HONORIFICS.items() if gender == "female") - {
    *("miss", "ms", "mademoiselle", "mlle", "fraulein", "fräulein", "signorina", "señorita"),
    *("princess", "sister"),  # a king's daughter; a nun
}


def _styled_from(context: SieveContext) -> dict[str, int]:
    """Character -> the offset of their first name mention that styles them as an elder
    (`_styled_senior`), for those the book so styles."""
    found: dict[str, int] = {}
    text = context.book.text
    for mention in context.names:
        who = mention.character_id
        if who is not None and who not in found and _styled_senior(text, mention, context.gender(who)):
            found[who] = mention.start
    return found


def _styled_senior(text: str, mention: Mention, gender: str) -> bool:
    """Whether a name mention styles a woman as married or titled (`_SENIOR_WOMEN`) or a man as titled."""
    first = text[mention.start : mention.end].split(None, 1)[0].rstrip(".").lower()
    title = HONORIFICS.get(first)
    if title is None:
        return False
    return first in _SENIOR_WOMEN if gender == "female" else gender == "male" and title != "female"


def _kinship_tag(t: TurnRows) -> None:
    """For a tag that names the speaker by kinship to someone else ("…," said her mother / his wife went
    on; `_kin_tag`): ``kin_tag_family`` proposes the characters of the noun's gender who share a
    surname (`fabula.characters.surnames`) with one of the possessive's gender the turn's other
    evidence proposes (the narrator for "my"); ``kin_tag_styled`` marks, for a parent or a spouse,
    the candidates of the noun's gender the book has styled as a married or titled woman, or a titled
    man ("Mrs. Ashdown", "Sir Kit"), before the turn (`_StaticBook.styled_from`), against the
    family's young ("Miss Ashdown", "Kit"; a daughter styled "Mrs. Y" once she marries is one
    from then on).
    Without it a kinship tag reads as "she said": the daughter the tag is about is as likely as
    her mother."""
    tag = t.book.kin_tags[t.index]
    if tag is None:
        return
    possessive, noun = tag.split()
    gender, senior = _KIN_NOUNS[noun]
    owner_gender = _POSSESSIVES[possessive]
    context, families = t.context, t.book.families
    if owner_gender == "narrator":
        owners = [context.narrator_id] if context.narrator_id is not None else []
    else:
        owners = [who for who in t.rows if owner_gender is None or context.gender(who) == owner_gender]
    other = "female" if gender == "male" else "male"
    bearers: dict[str, set[str]] = {}  # surname -> the owners who bear it
    for who in owners:
        for surname in families.get(who, ()):
            bearers.setdefault(surname, set()).add(who)
    if bearers:
        for who, family in families.items():
            if context.gender(who) != other and any(
                bearers.get(surname, {who}) - {who} for surname in family
            ):
                t.put_one(who, _KIN_FAMILY)
    if senior:
        styled_from, here = t.book.styled_from, t.turn.start
        for who in t.rows:
            if context.gender(who) == gender and styled_from.get(who, here) < here:
                t.put_one(who, _KIN_STYLED)


_PRESENCE_TURNS = 10  # the scene around a turn: this many turns of its conversation on each side


def _scene_presence(t: TurnRows) -> None:
    """Who the scene shows present, read from the narration and the vocatives of the conversation
    around the turn (not from any reading of the speakers): characters named in the narration of
    the last / next `_PRESENCE_TURNS` turns of the conversation (from the paragraph before the first
    of them; not the turn's own paragraph, which `_narration_names` reads), and those the
    conversation's turns address by name. Each value is 1/sqrt(turns) to the nearest such evidence
    on that side. A third person in the room may speak next whatever the turn-taking says (the
    A-B-A chain of a two-party reading: `parity_crowded` in `_reading`). The columns describe the
    candidates other families propose (kept in ``t.presence``; `_StaticTurn.cells`): proposing them
    too bought nothing under cross-validation and cost time (docs/benchmarks.md)."""
    turn, index, book, turns = t.turn, t.index, t.book, t.turns
    first, last = book.conversations[turn.conversation]
    low, high = max(first, index - _PRESENCE_TURNS), min(last, index + _PRESENCE_TURNS + 1)
    present, values = t.present, t.presence
    starts, ends = book.paragraph_starts, book.paragraph_ends
    # the name mentions of the narration (not inside a quote: named, not shown present); of a character
    # named more than once on a side only the mention nearest the turn counts (the largest value), and
    # each is taken in the order first named
    named_at, named, turn_starts = book.narration_starts, book.narration_ids, book.turn_starts
    if turn.first_paragraph > 0 and turns[low].first_paragraph > 0:  # the narration of the turns before
        lo = bisect.bisect_left(named_at, starts[turns[low].first_paragraph - 1])
        hi = bisect.bisect_left(named_at, starts[turn.first_paragraph])
        for who, k in {who: k for k, who in enumerate(named[lo:hi], lo)}.items():  # the last mention
            # turns from the name to this one: one more than the window's turns (low ...) after the name
            value = 1.0 / math.sqrt(index + 1 - bisect.bisect_right(turn_starts, named_at[k], low, index))
            values[who] = {_PRESENT_BEFORE: value}
            present[who] = value
    if turn.paragraph >= 0 and high - 1 > index and turns[high - 1].paragraph >= 0:  # ... and after
        lo = bisect.bisect_left(named_at, ends[turn.paragraph])
        hi = bisect.bisect_left(named_at, ends[turns[high - 1].paragraph])
        nearest: dict[str, int] = {}
        for k in range(lo, hi):  # the first mention
            if named[k] not in nearest:
                nearest[named[k]] = k
        for who, k in nearest.items():
            value = 1.0 / math.sqrt(bisect.bisect_right(turn_starts, named_at[k], index, high) - index)
            row = values.get(who)
            if row is None:
                values[who] = {_PRESENT_AFTER: value}
            else:
                row[_PRESENT_AFTER] = value
            present[who] = max(value, present.get(who, 0.0))
    for other in range(low, high):
        if other != index:
            value = 1.0 / math.sqrt(abs(other - index))
            for who in turns[other].vocatives:
                column = _ADDRESSED_BEFORE if other < index else _ADDRESSED_AFTER
                row = values.setdefault(who, {})
                row[column] = max(value, row.get(column, 0.0))
                present[who] = max(value, present.get(who, 0.0))


def _named_inside(t: TurnRows) -> list[str]:
    """The characters the turn's quotes name without addressing them."""
    book, vocatives = t.book, t.turn.vocatives
    lo = bisect.bisect_left(book.name_starts, t.turn.start)
    hi = bisect.bisect_left(book.name_starts, t.turn.end)
    return [
        book.name_ids[i]
        for i in range(lo, hi)
        if book.name_turns[i] == t.index and book.name_ids[i] not in vocatives
    ]


def _gendered_tags(turns: list[Turn], genders: list[str | None]) -> dict[int, list[tuple[int, str]]]:
    """The turns whose tag gives the speaker's gender and no name ("…," she said), by conversation
    (``genders``: each turn's `_tag_gender`)."""
    tags: dict[int, list[tuple[int, str]]] = {}
    for index, (turn, gender) in enumerate(zip(turns, genders, strict=True)):
        if gender is not None:
            tags.setdefault(turn.conversation, []).append((index, gender))
    return tags


def _nearest(marks: list[tuple[int, str]], index: int) -> list[tuple[int, str]]:
    """The nearest of ``marks`` (sorted (turn, value) pairs) before and after turn ``index``."""
    position = bisect.bisect_left(marks, (index, ""))
    after_at = position + 1 if position < len(marks) and marks[position][0] == index else position
    return [
        m
        for m in (
            marks[position - 1] if position > 0 else None,
            marks[after_at] if after_at < len(marks) else None,
        )
        if m
    ]


def _tag_anchors(t: TurnRows) -> None:
    """The nearest name-tagged turn of the conversation on each side, by the parity of the distance:
    in a two-party exchange an anchor an even number of turns away is this turn's speaker, an odd one
    the other party, whichever way the turns in between were read (the value fades with distance,
    1/sqrt(turns)); and every speaker the conversation tags by name is a candidate."""
    book, here, conversation = t.book, t.index, t.turn.conversation
    anchors = book.anchors.get(conversation)
    if not anchors:
        return
    tagged = book.anchor_speakers[conversation]
    two_party = len(tagged) <= 2
    at = bisect.bisect_left(anchors, (here, ""))  # its own name tag outweighs its neighbours'
    own_tag = at < len(anchors) and anchors[at][0] == here
    _put_ones(t.rows, tagged, _TAGGED_IN_CONVERSATION)
    for index, speaker in _nearest(anchors, here):
        distance = abs(here - index)
        even = distance % 2 == 0
        value = 1.0 / math.sqrt(distance)
        t.put_at(speaker, _ANCHOR_SIDES[index < here, even], value)
        if two_party:
            t.put_at(speaker, _ANCHOR_TWO_PARTY[even], value)
        if not own_tag and book.unbroken(index, here):  # no narration between: the chain holds
            t.put_at(speaker, _ANCHOR_UNBROKEN[even], value)


def _untagged(turn: Turn) -> bool:
    return not any(q.speaker_id is not None for q in turn.quotes)


@dataclass(frozen=True, slots=True)
class FeatureFamily:
    """A group of features computed together: ``proposes`` families add candidates, the others
    describe every candidate the proposing families found. ``static`` families read nothing a pass
    or a reading of the beam changes (no other turn's speaker, no speaker count, no other family's
    row values): they run once per turn (describing ones once per turn and candidate) and their
    results are replayed (`_StaticTurn`). Only the static proposing families have a ``compute``
    function; the static describing ones are written out in `_StaticTurn.vectors`, and the others,
    which read the speakers of the turns around (every pass and every reading of the beam changes
    them), in `_features`, which runs for every reading."""

    name: str
    compute: Callable[[TurnRows], None] | None
    features: tuple[str, ...]
    proposes: bool = True
    static: bool = False


FEATURE_FAMILIES: tuple[FeatureFamily, ...] = (
    FeatureFamily(
        "sieve",
        _sieve_proposals,
        (*(f"sieve_{rule}" for rule in SIEVE_RULES), "sieve_confidence"),
        static=True,
    ),
    FeatureFamily(
        "quote tags",
        _quote_tags,
        (
            "quote_tag_name",
            "quote_tag_pronoun",
            "quote_beat",
            "beat_pronoun",
            "tag_before_quote",
            "tag_inside_quote",
            *(f"pronoun_step_{step}" for step in PRONOUN_STEPS),
        ),
        static=True,
    ),
    FeatureFamily(
        "gendered tag",
        _gendered_tag,
        (
            "frequent_character",
            "pronoun_recent_1",
            "pronoun_recent_2",
            "pronoun_subject_1",
            "pronoun_subject_2",
        ),
        static=True,
    ),
    FeatureFamily("same-gender speakers", None, ("pronoun_prev_speaker_1", "pronoun_prev_speaker_2")),
    FeatureFamily("pronoun resolution", _pronoun_resolution, ("pronoun_mention_layer",), static=True),
    FeatureFamily("tag verb", None, ("continuation_tag_prev_speaker", "reply_tag_prev_speaker")),
    FeatureFamily(
        "neighbour speakers",
        None,
        (
            "prev1_speaker",
            "prev2_speaker",
            "prev3_speaker",
            "next1_speaker",
            "next2_speaker",
            "prev1_tagged",
            "prev2_tagged",
            "next2_tagged",
        ),
    ),
    FeatureFamily(
        "recent speakers",
        None,
        ("recent_speaker", "recent_speaker_rank", "recent_speaker_other_conversation"),
    ),
    FeatureFamily("addressed by neighbours", None, ("addressed_by_prev", "addressed_by_next")),
    FeatureFamily(
        "narration names",
        _narration_names,
        (
            "own_paragraph_name",
            "own_paragraph_first_name",
            "own_paragraph_before_quote",
            "own_paragraph_after_quote",
            "prev_paragraph_name",
            "prev_paragraph_last_name",
            "prev_narration_first_name",
            "next_paragraph_name",
            "named_recently",
        ),
        static=True,
    ),
    FeatureFamily(
        "tag anchors",
        _tag_anchors,
        (
            "anchor_before_even",
            "anchor_before_odd",
            "anchor_after_even",
            "anchor_after_odd",
            "anchor_even_two_party",
            "anchor_odd_two_party",
            "anchor_even_unbroken",
            "anchor_odd_unbroken",
            "tagged_in_conversation",
        ),
        static=True,
    ),
    FeatureFamily("addressed in turn", _addressed_in_turn, ("addressed_in_turn",), static=True),
    FeatureFamily("kinship tag", _kinship_tag, ("kin_tag_family", "kin_tag_styled"), static=True),
    FeatureFamily(
        "scene presence",
        None,
        ("present_named_before", "present_named_after", "addressed_before", "addressed_after"),
        False,
        static=True,
    ),
    FeatureFamily("named inside quote", None, ("named_inside_quote",), False, static=True),
    FeatureFamily(
        "mention distances",
        None,
        ("log_distance_before", "log_distance_after"),
        False,
        static=True,
    ),
    FeatureFamily(
        "gender agreement",
        None,
        ("pronoun_tag_gender_match", "pronoun_tag_gender_mismatch"),
        False,
        static=True,
    ),
    FeatureFamily("book shares", None, ("speaker_share", "mention_share", "narrator"), False),
    FeatureFamily(
        "conversation structure",
        None,
        (
            "conversation_participant",
            "multi_party",
            "parity",
            "parity_multi_party",
            "two_party_run_before",
            "two_party_run_after",
            "conversation_turn_share",
        ),
        False,
    ),
    FeatureFamily(
        "chain breaks",
        None,
        ("prev1_after_narration", "parity_after_narration", "entering_after_narration"),
    ),
    FeatureFamily("crowded scene", None, ("parity_crowded",), False),
    FeatureFamily(
        "gender anchors",
        None,
        ("gender_anchor_even_match", "gender_anchor_odd_match"),
        False,
        static=True,
    ),
    FeatureFamily(
        "address genders",
        None,
        ("addressed_gender_prev", "addressed_gender_own", "addressed_gender_next"),
        False,
        static=True,
    ),
    FeatureFamily("listed gender", None, ("listed_neutral",), False, static=True),
    FeatureFamily(
        "untagged first name",
        None,
        ("own_paragraph_first_name_untagged",),
        False,
        static=True,
    ),
)

#: every feature, family by family: the order of the weights in ``ranker.json``
FEATURES = [name for family in FEATURE_FAMILIES for name in family.features]
#: every feature's gated copy (its value times the turn's `sparse_gates`), then the model's full list: the
#: order of the weights in a gated ``ranker.json``
GATED_FEATURES = [f"{name}*sparse_tags" for name in FEATURES]
MODEL_FEATURES = FEATURES + GATED_FEATURES
_INDEX = {name: i for i, name in enumerate(FEATURES)}
_PREV1, _PREV2, _PREV3 = _INDEX["prev1_speaker"], _INDEX["prev2_speaker"], _INDEX["prev3_speaker"]
_PREV1_TAGGED, _PREV2_TAGGED = _INDEX["prev1_tagged"], _INDEX["prev2_tagged"]
_NEXT1, _NEXT2, _NEXT2_TAGGED = _INDEX["next1_speaker"], _INDEX["next2_speaker"], _INDEX["next2_tagged"]
_PARTICIPANT, _MULTI_PARTY = _INDEX["conversation_participant"], _INDEX["multi_party"]
_PARITY, _PARITY_MULTI_PARTY = _INDEX["parity"], _INDEX["parity_multi_party"]
_RUN_BEFORE, _RUN_AFTER = _INDEX["two_party_run_before"], _INDEX["two_party_run_after"]
_TURN_SHARE = _INDEX["conversation_turn_share"]
_PREV1_AFTER_NARRATION = _INDEX["prev1_after_narration"]
_PARITY_AFTER_NARRATION = _INDEX["parity_after_narration"]
_ENTERING_AFTER_NARRATION = _INDEX["entering_after_narration"]
_ADDRESSED_GENDER_PREV, _ADDRESSED_GENDER_OWN, _ADDRESSED_GENDER_NEXT = (
    _INDEX["addressed_gender_prev"],
    _INDEX["addressed_gender_own"],
    _INDEX["addressed_gender_next"],
)
_PRESENT_BEFORE, _PRESENT_AFTER = _INDEX["present_named_before"], _INDEX["present_named_after"]
_ADDRESSED_BEFORE, _ADDRESSED_AFTER = _INDEX["addressed_before"], _INDEX["addressed_after"]
_PARITY_CROWDED = _INDEX["parity_crowded"]  # the A-B-A candidate where the scene shows a third person present
_PREV_SPEAKER_SAME_GENDER = (_INDEX["pronoun_prev_speaker_1"], _INDEX["pronoun_prev_speaker_2"])
_RECENT_SPEAKER, _RECENT_SPEAKER_RANK = _INDEX["recent_speaker"], _INDEX["recent_speaker_rank"]
_RECENT_OTHER_CONVERSATION = _INDEX["recent_speaker_other_conversation"]
_ADDRESSED_BY_PREV, _ADDRESSED_BY_NEXT = _INDEX["addressed_by_prev"], _INDEX["addressed_by_next"]
_SPEAKER_SHARE, _MENTION_SHARE = _INDEX["speaker_share"], _INDEX["mention_share"]
_NARRATOR = _INDEX["narrator"]
_NAMED_INSIDE = _INDEX["named_inside_quote"]
_DISTANCE_BEFORE, _DISTANCE_AFTER = _INDEX["log_distance_before"], _INDEX["log_distance_after"]
_GENDER_MATCH, _GENDER_MISMATCH = _INDEX["pronoun_tag_gender_match"], _INDEX["pronoun_tag_gender_mismatch"]
_GENDER_ANCHOR_EVEN, _GENDER_ANCHOR_ODD = (
    _INDEX["gender_anchor_even_match"],
    _INDEX["gender_anchor_odd_match"],
)
_FIRST_NAME = _INDEX["own_paragraph_first_name"]
_OWN_NAME, _OWN_BEFORE = _INDEX["own_paragraph_name"], _INDEX["own_paragraph_before_quote"]
_OWN_AFTER, _PREV_PARAGRAPH = _INDEX["own_paragraph_after_quote"], _INDEX["prev_paragraph_name"]
_PREV_PARAGRAPH_LAST, _PREV_NARRATION_FIRST = (
    _INDEX["prev_paragraph_last_name"],
    _INDEX["prev_narration_first_name"],
)
_NEXT_PARAGRAPH, _NAMED_RECENTLY = _INDEX["next_paragraph_name"], _INDEX["named_recently"]
_KIN_FAMILY, _KIN_STYLED = _INDEX["kin_tag_family"], _INDEX["kin_tag_styled"]
_LISTED_NEUTRAL = _INDEX["listed_neutral"]
_FIRST_NAME_UNTAGGED = _INDEX["own_paragraph_first_name_untagged"]
_TAGGED_IN_CONVERSATION = _INDEX["tagged_in_conversation"]
_ANCHOR_SIDES = {
    (before, even): _INDEX[f"anchor_{'before' if before else 'after'}_{'even' if even else 'odd'}"]
    for before in (True, False)
    for even in (True, False)
}  # (anchor before the turn?, even distance?) -> column
_ANCHOR_TWO_PARTY = {even: _INDEX[f"anchor_{'even' if even else 'odd'}_two_party"] for even in (True, False)}
_ANCHOR_UNBROKEN = {even: _INDEX[f"anchor_{'even' if even else 'odd'}_unbroken"] for even in (True, False)}
_WIDTH = len(FEATURES)
_RECENT_RANKS = [1.0 - k / (_RECENT_SPEAKERS + 1) for k in range(_RECENT_SPEAKERS + 1)]  # by the rank k


def _features(
    context: SieveContext,
    turns: list[Turn],
    index: int,
    stats: _BookStats,
    back: tuple[str | None, ...] | None = None,
) -> TurnCandidates | None:
    """One turn's candidates and feature rows: the proposing families in table order, then (if any
    candidate was found) the describing ones. ``back`` holds the speakers of the turns before it,
    newest first (at least `_HISTORY` of them, or all there are; default: the turns' own speakers):
    the beam passes each reading's. The static families' part of each row comes from the turn's
    `_StaticTurn` (computed on first use); the per-reading families are written out in `_reading`,
    each on its own columns, so the rows are the ones every family running in table order would give:
    the candidates in the order first proposed, and each per-reading cell as its family sets it."""
    found = _reading(context, turns, index, stats, back)
    if found is None:
        return None
    candidates, ones, rank_cells, rank_values, multi_party, static, ahead = found
    matrix = ahead.stack(candidates, context, stats, static)
    flat = matrix.reshape(-1)  # cells set one by one: faster than ndarray.put of these short lists
    if multi_party:
        for cell in range(_MULTI_PARTY, len(candidates) * _WIDTH, _WIDTH):
            flat[cell] = 1.0
    for cell in ones:
        flat[cell] = 1.0
    for cell, value in zip(rank_cells, rank_values, strict=True):  # no cell twice, none of `ones`
        flat[cell] = value
    return TurnCandidates(index, candidates, matrix, stats.book.gates[index])


def _turn_parts(
    context: SieveContext,
    turns: list[Turn],
    index: int,
    stats: _BookStats,
    back: tuple[str | None, ...] | None,
) -> tuple[_StaticTurn, tuple[str | None, ...], _Ahead]:
    """What `_scores` and `_reading` start from: the turn's static part (made once per book), the speakers
    of the ``_HISTORY`` turns before it (``back``, newest first; read off ``turns`` when not given) and
    its static scores for this pass (made once per pass)."""
    book = stats.book
    static = book.turns.get(index)
    if static is None:
        static = book.turns[index] = _static_turn(context, turns, index, book)
    if back is None:
        back = tuple(turns[k].speaker for k in range(index - 1, max(-1, index - 1 - _HISTORY), -1))
    ahead = stats.ahead.get(index)
    if ahead is None:
        ahead = stats.ahead[index] = _Ahead.of(static, *stats.weights_at(index))
    return static, back, ahead


def _scores(
    context: SieveContext,
    turns: list[Turn],
    index: int,
    stats: _BookStats,
    back: tuple[str | None, ...] | None = None,
) -> tuple[list[str], list[float]] | None:
    """One turn's candidates and their scores under ``stats.weights``: what `_features`' rows times the
    weights give, summed per candidate instead of per row, with no cells or rows made. Each candidate's
    static columns and book shares are scored once per pass (`_Ahead.score`); a reading adds the weight
    of each per-reading cell it sets (times the cell's value) as `_reading` sets them, family by family,
    so each candidate's sum is made in the same order as the cells `_reading` lists: the cells set to
    1.0 in the order first set (the multi-party column first), then the others
    (`tests/quotes/test_ranker.py` compares the two, bit for bit, and with the matrix product)."""
    book = stats.book
    static, back, ahead = _turn_parts(context, turns, index, stats, back)
    weight = ahead.weight
    before = static.before  # the conversation's turns -1, -2, -3 are back[0], back[1], back[2]
    previous = back[0] if before >= 1 else None
    second_back = back[1] if before >= 2 else None
    third_back = back[2] if before >= 3 else None
    next1, next2, _ = ahead.speakers
    # conversation structure: a multi-party scene (more than two speakers among the turns around)
    around = {previous, second_back, third_back, next1, next2}
    around.discard(None)
    multi_party = len(around) > 2
    # candidate -> its score so far, in proposal order: the static part first (`_Ahead.score`)
    first = ahead.first_scores(static, context, stats)
    if multi_party:
        extra = weight[_MULTI_PARTY]
        acc = {who: score + extra for who, score in first.items()}
    else:
        extra = 0.0
        acc = first.copy()
    score_of = ahead.score_of
    get = acc.get

    def new(who: str) -> float:  # a candidate not proposed yet: its static part
        found = score_of.get(who)
        if found is None:
            found = ahead.score(who, static, context, stats)
        return found + extra if multi_party else found

    tag_gender = static.tag_gender
    if tag_gender is not None:  # same-gender speakers: the last two earlier speakers of the tag's gender
        genders, speakers = book.genders, 0
        last = None
        for who in back[:_ANTECEDENT_TURNS]:
            if who is not None and who != last and genders.get(who, "unknown") == tag_gender:
                found = get(who)
                acc[who] = (found if found is not None else new(who)) + weight[
                    _PREV_SPEAKER_SAME_GENDER[speakers]
                ]
                speakers += 1
                if speakers == 2:
                    break
                last = who
    for who in static.runs[1]:
        if who not in acc:
            acc[who] = new(who)
    if static.verb_column is not None and previous is not None:  # tag verb
        found = get(previous)
        acc[previous] = (found if found is not None else new(previous)) + weight[static.verb_column]
    # neighbour speakers, each a participant of the conversation structure (counted once)
    counted: list[str] = []
    participant = weight[_PARTICIPANT]
    for who, (column, tagged_column) in zip(
        (previous, second_back, third_back, next1, next2), static.neighbour_columns, strict=True
    ):
        if who is not None:
            found = get(who)
            found = (found if found is not None else new(who)) + weight[column]
            if who not in counted:
                counted.append(who)
                found += participant
            if tagged_column is not None:
                found += weight[tagged_column]
            acc[who] = found
    # recent speakers; their rank is a cell of another value, added after the cells of 1.0 (`late`)
    seen: list[str] = []
    late: list[tuple[str, float]] = []
    other_conversation = static.other_conversation
    recent, rank, other = (
        weight[_RECENT_SPEAKER],
        weight[_RECENT_SPEAKER_RANK],
        weight[_RECENT_OTHER_CONVERSATION],
    )
    for k, who in enumerate(back[:_RECENT_TURNS]):
        if who is None or who in seen:
            continue
        seen.append(who)
        found = get(who)
        found = (found if found is not None else new(who)) + recent
        late.append((who, rank * _RECENT_RANKS[len(seen)]))
        if other_conversation[k]:
            found += other
        acc[who] = found
        if len(seen) >= _RECENT_SPEAKERS:
            break
    for who in static.previous_vocatives:  # addressed by neighbours (each once)
        if who != previous:
            found = get(who)
            acc[who] = (found if found is not None else new(who)) + weight[_ADDRESSED_BY_PREV]
    for who in static.next_vocatives:
        if who in acc:
            acc[who] += weight[_ADDRESSED_BY_NEXT]
    for who in static.runs[2]:
        if who not in acc:
            acc[who] = new(who)
    window = back[:before]  # this reading's speakers of the conversation's turns before this one
    for who in static.entering:  # chain breaks: named in the narration between, not yet a speaker here
        if who not in window:
            found = get(who)
            acc[who] = (found if found is not None else new(who)) + weight[_ENTERING_AFTER_NARRATION]
    if not acc:
        return None
    if second_back is not None and second_back != previous:  # A-B-A: the speaker of the turn before last
        found = acc[second_back] + weight[_PARITY]
        if multi_party:
            found += weight[_PARITY_MULTI_PARTY]
        if static.breaks[0] or static.breaks[1]:
            found += weight[_PARITY_AFTER_NARRATION]
        acc[second_back] = found
        for who, value in static.present:  # crowded scene (`_reading`)
            if who != previous and who != second_back:
                if value:
                    late.append((second_back, weight[_PARITY_CROWDED] * value))
                break
    if previous is not None and static.breaks[0]:
        acc[previous] += weight[_PREV1_AFTER_NARRATION]
    if previous is not None and previous == third_back and second_back is not None:
        acc[second_back] += weight[_RUN_BEFORE]
    run_after = ahead.run_after
    if run_after is not None and run_after in acc:
        acc[run_after] += weight[_RUN_AFTER]
    # the candidate's share of the scene's turns (this reading's before it, the previous pass's after)
    scene_size = max(1, before + len(static.scene_after))
    share, counts = weight[_TURN_SHARE], ahead.counts
    for who in acc:
        count = counts.get(who, 0) + window.count(who)
        if count:
            late.append((who, share * (count / scene_size)))
    for who, value in late:
        acc[who] += value
    return list(acc), list(acc.values())


def _reading(
    context: SieveContext,
    turns: list[Turn],
    index: int,
    stats: _BookStats,
    back: tuple[str | None, ...] | None = None,
) -> tuple[list[str], list[int], list[int], list[float], bool, _StaticTurn, _Ahead] | None:
    """The per-reading families written out for `_features` (training, tests): the turn's candidates in the
    order first proposed, the cells (row start + column) the per-reading families set to 1.0, those they
    set to other values and the values, whether the scene is multi-party, and the turn's `_StaticTurn`
    and `_Ahead`. `_scores` walks the same families in the same order but sums weights instead of
    listing cells (a change here goes there too; `tests/quotes/test_ranker.py` compares the two)."""
    static, back, ahead = _turn_parts(context, turns, index, stats, back)
    _, second, third = static.runs
    rows = static.first_rows.copy()  # candidate -> its row's first cell, in proposal order
    ones: list[int] = []  # the cells (row start + column) the per-reading families set to 1.0
    # (a candidate's row: `rows.setdefault(who, len(rows) * _WIDTH)`, new ones at the end)
    tag_gender = static.tag_gender
    if tag_gender is not None:  # same-gender speakers: the last two earlier speakers of the tag's gender
        gender, speakers = context.gender, []
        for who in back[:_ANTECEDENT_TURNS]:
            if who is not None and who not in speakers and gender(who) == tag_gender:
                speakers.append(who)
                start = rows.setdefault(who, len(rows) * _WIDTH)
                ones.append(start + _PREV_SPEAKER_SAME_GENDER[len(speakers) - 1])
                if len(speakers) == 2:
                    break
    for who in second:
        rows.setdefault(who, len(rows) * _WIDTH)
    before = static.before  # the conversation's turns -1, -2, -3 are back[0], back[1], back[2]
    previous = back[0] if before >= 1 else None
    if static.verb_column is not None and previous is not None:
        # tag verb: "he added" / "she went on" continue the previous speaker, "he replied" answers them
        ones.append(rows.setdefault(previous, len(rows) * _WIDTH) + static.verb_column)
    # neighbour speakers: the speakers of the three turns before and two after in the conversation
    participants: list[str] = []
    behind = (previous, back[1] if before >= 2 else None, back[2] if before >= 3 else None)
    for who, (column, tagged_column) in zip(
        (*behind, ahead.speakers[0], ahead.speakers[1]), static.neighbour_columns, strict=True
    ):
        if who is not None:
            start = rows.setdefault(who, len(rows) * _WIDTH)
            ones.append(start + column)
            ones.append(start + _PARTICIPANT)  # conversation structure: a participant of the turns around
            participants.append(who)
            if tagged_column is not None:
                ones.append(start + tagged_column)
    # recent speakers: a third (fourth) party who spoke a while ago, ranked by the speakers since
    seen: list[str] = []
    rank_cells: list[int] = []  # the cells the per-reading families set to other values, and the values
    rank_values: list[float] = []
    other_conversation = static.other_conversation
    for k, who in enumerate(back[:_RECENT_TURNS]):
        if who is None or who in seen:
            continue
        seen.append(who)
        start = rows.setdefault(who, len(rows) * _WIDTH)
        ones.append(start + _RECENT_SPEAKER)
        rank_cells.append(start + _RECENT_SPEAKER_RANK)
        rank_values.append(_RECENT_RANKS[len(seen)])
        if other_conversation[k]:
            ones.append(start + _RECENT_OTHER_CONVERSATION)
        if len(seen) >= _RECENT_SPEAKERS:
            break
    # addressed by neighbours: whom the previous turn addressed by name (they answer); whom the next
    # turn addresses (only for candidates already proposed)
    for who in static.previous_vocatives:
        if who != previous:
            ones.append(rows.setdefault(who, len(rows) * _WIDTH) + _ADDRESSED_BY_PREV)
    for who in static.next_vocatives:
        if who in rows:
            ones.append(rows[who] + _ADDRESSED_BY_NEXT)
    for who in third:
        rows.setdefault(who, len(rows) * _WIDTH)
    for who in static.entering:  # chain breaks: named in the narration between, not yet a speaker here
        if who not in back[:before]:
            ones.append(rows.setdefault(who, len(rows) * _WIDTH) + _ENTERING_AFTER_NARRATION)
    if not rows:
        return None
    candidates = list(rows)
    # conversation structure: turn-taking around the turn (participants: above; a multi-party scene: below)
    multi_party = len(set(participants)) > 2
    if behind[1] is not None and behind[1] != behind[0]:  # A-B-A: the speaker of the turn before last
        ones.append(rows[behind[1]] + _PARITY)
        if multi_party:
            ones.append(rows[behind[1]] + _PARITY_MULTI_PARTY)
        if static.breaks[0] or static.breaks[1]:  # chain breaks: narration between the three turns
            ones.append(rows[behind[1]] + _PARITY_AFTER_NARRATION)
        crowded = 0.0  # a third person shown present in the scene, 1/sqrt(turns) to the nearest evidence
        for who, value in static.present:  # the nearest three: at most two are the speakers before
            if who != behind[0] and who != behind[1]:
                crowded = value
                break
        if crowded:
            rank_cells.append(rows[behind[1]] + _PARITY_CROWDED)
            rank_values.append(crowded)
    if behind[0] is not None and static.breaks[0]:  # the speaker before the narration goes on?
        ones.append(rows[behind[0]] + _PREV1_AFTER_NARRATION)
    if behind[0] is not None and behind[0] == behind[2] and behind[1] is not None:  # an A-B-A-B run before
        ones.append(rows[behind[1]] + _RUN_BEFORE)
    if ahead.run_after is not None and ahead.run_after in rows:  # ... and after
        ones.append(rows[ahead.run_after] + _RUN_AFTER)
    # the candidate's share of the scene's turns (this reading's before it)
    counts = dict(ahead.counts)
    for who in back[:before]:  # None (no speaker) is counted too, and skipped below: it has no row
        counts[who] = counts.get(who, 0) + 1
    scene_size = max(1, before + len(static.scene_after))
    for who, count in counts.items():
        if who in rows:
            rank_cells.append(rows[who] + _TURN_SHARE)
            rank_values.append(count / scene_size)
    return candidates, ones, rank_cells, rank_values, multi_party, static, ahead


@dataclass(slots=True)
class _Ahead:
    """What one pass leaves unchanged of a turn's features (the beam included): the speakers of the
    next three turns of the conversation, as the previous pass set them, the A-B-A-B run they form,
    and the speakers' counts over the turn and the scene after it; and per candidate its row of the
    static columns (`_StaticTurn.stack`) and the book shares (how much the candidate speaks and is
    named in the whole book, and whether they narrate), kept in ``matrix``."""

    speakers: tuple[str | None, str | None, str | None]
    run_after: str | None
    counts: dict[str | None, int]  # (a reading's counts add None: no speaker, no row)
    weight: list[float]  # the weights the turn is scored with (`_BookStats.weights_at`)
    share_scores: dict[str, float]  # the book shares' scores under them (shared by the turns of one gate)
    row_of: dict[str, int] = field(default_factory=dict)  # candidate -> their row of `matrix`
    matrix: np.ndarray = field(default_factory=lambda: _NO_ROWS)
    score_of: dict[str, float] = field(default_factory=dict)  # candidate -> their row's score (`score`)
    first: dict[str, float] | None = None  # `first_scores`

    @classmethod
    def of(cls, static: _StaticTurn, weight: list[float], share_scores: dict[str, float]) -> _Ahead:
        a, b, c = (_speaker_of(other) for other in static.after)
        counts: dict[str | None, int] = {}
        for other in static.scene_after:
            if other.speaker is not None:
                counts[other.speaker] = counts.get(other.speaker, 0) + 1
        return cls((a, b, c), b if a is not None and a == c else None, counts, weight, share_scores)

    def stack(
        self, candidates: list[str], context: SieveContext, stats: _BookStats, static: _StaticTurn
    ) -> np.ndarray:
        """The candidates' rows (static columns and book shares) in their order, as a new array
        (`_kept_rows`)."""
        return _kept_rows(self, candidates, _Ahead._rows, context, stats, static)

    def score(self, who: str, static: _StaticTurn, context: SieveContext, stats: _BookStats) -> float:
        """``who``'s row (as `stack` gives it) times the turn's weights (`weight`), kept: the static columns'
        part once per turn and candidate (`_StaticTurn.score`), the book shares once per pass and gate."""
        weight = self.weight
        shares = self.share_scores.get(who)
        if shares is None:
            speaks, named = stats.share(who)
            shares = self.share_scores[who] = weight[_SPEAKER_SHARE] * speaks + weight[_MENTION_SHARE] * named
        found = static.score_of.get(who)
        if found is None:
            found = static.score(who, context, stats.book, weight)
        found += shares
        if who == context.narrator_id:
            found += weight[_NARRATOR]
        self.score_of[who] = found
        return found

    def first_scores(self, static: _StaticTurn, context: SieveContext, stats: _BookStats) -> dict[str, float]:
        """`score` of the candidates of the turn's first static run, in their order (every reading's first
        candidates), kept."""
        first = self.first
        if first is None:
            score_of = self.score_of
            first = self.first = {}
            for who in static.runs[0]:
                found = score_of.get(who)
                first[who] = found if found is not None else self.score(who, static, context, stats)
        return first

    @staticmethod
    def _rows(
        candidates: list[str], context: SieveContext, stats: _BookStats, static: _StaticTurn
    ) -> np.ndarray:
        """New rows of these candidates: the static columns and the book shares (`scores` sums the same
        columns without the rows: a column added here goes there too; `tests/quotes/test_ranker.py`
        compares the two)."""
        found = static.stack(candidates, context, stats.book)
        narrator, share = context.narrator_id, stats.share
        cells = found.reshape(-1)  # set one by one: faster than a fancy-indexed assignment of a list
        for offset, who in zip(range(0, len(candidates) * _WIDTH, _WIDTH), candidates, strict=True):
            cells[offset + _SPEAKER_SHARE], cells[offset + _MENTION_SHARE] = share(who)
            if who == narrator:
                cells[offset + _NARRATOR] = 1.0
        return found


class _KeepsRows(Protocol):
    row_of: dict[str, int]  # candidate -> their row of `matrix`
    matrix: np.ndarray


def _kept_rows(
    holder: _KeepsRows, candidates: list[str], make: Callable[..., np.ndarray], *args: Any
) -> np.ndarray:
    """The candidates' rows of ``holder.matrix`` in their order, as a new array. The rows of those it has
    none of yet are made (``make(missing, *args)``) and kept: the readings of the beam give a turn the
    same few candidates in different orders, so each row is made once."""
    row_of = holder.row_of
    if row_of:
        if candidates == list(row_of):  # the rows as kept (often: the readings agree on the order)
            return holder.matrix.copy()
        try:
            return holder.matrix.take([row_of[who] for who in candidates], axis=0)
        except KeyError:  # some rows not made yet
            pass
    missing = [who for who in candidates if who not in row_of]
    if missing:
        found = make(missing, *args)
        if not row_of:  # the first reading: its rows in its order
            row_of.update(zip(missing, range(len(missing)), strict=True))
            holder.matrix = found
            return found.copy()
        for who in missing:
            row_of[who] = len(row_of)
        holder.matrix = np.vstack([holder.matrix, found])
    return holder.matrix.take([row_of[who] for who in candidates], axis=0)


_PROPOSING_PLAN = [
    (is_static, tuple(group))
    for is_static, group in groupby((f for f in FEATURE_FAMILIES if f.proposes), key=lambda f: f.static)
]  # runs of static and per-reading proposing families, in table order: `_features` reads three static runs


def _static_turn(context: SieveContext, turns: list[Turn], index: int, book: _StaticBook) -> _StaticTurn:
    """Run the static proposing families of one turn and keep the candidates each run of them
    proposes (in order) and the values they give (families fill disjoint columns); what the static
    describing features read; and where the turn stands in its conversation."""
    t = TurnRows(context, turns, index, book)
    runs: list[list[str]] = []
    for is_static, families in _PROPOSING_PLAN:
        if is_static:
            known = set(t.rows)
            for family in families:
                assert family.compute is not None
                family.compute(t)
            runs.append([who for who in t.rows if who not in known])
    _scene_presence(t)
    turn = turns[index]
    # it reads 16 characters around each tag mention, or 30 after a quote without one (`_text_kept`)
    verb_key = tuple(
        (q.end, q.mention.start, q.mention.end) if q.mention is not None else (q.end, None, None)
        for q in turn.quotes
    )
    verb_end = max(q.mention.end + 16 if q.mention is not None else q.end + 30 for q in turn.quotes)
    verb_class = _text_kept(book.verb_memo, verb_key, verb_end, context.book.text, _tag_verb_class, turn)
    conversation = turn.conversation
    first, last = book.conversations[conversation]  # its first turn and the one after its last
    near = [
        turns[other] if first <= other < last else None for other in range(index - _NEAR, index + _NEAR + 1)
    ]
    previous, following = near[_NEAR - 1], near[_NEAR + 1]
    before = min(_HISTORY, index - first)
    end = min(last, index + _SCENE_TURNS)
    earlier = min(_RECENT_TURNS, index)  # the turns `_features` reads back: those of another conversation
    inside = min(earlier, index - first)
    tagged = (_tagged(near[_NEAR - 1]), _tagged(near[_NEAR - 2]), _tagged(near[_NEAR + 2]))
    gender_anchors = []  # the nearest he/she-tagged turn of the conversation on each side (`vectors`)
    for other, gender in _nearest(book.gendered.get(conversation, []), index):
        distance = abs(index - other)
        column = _GENDER_ANCHOR_EVEN if distance % 2 == 0 else _GENDER_ANCHOR_ODD
        gender_anchors.append((column, gender, 1.0 / math.sqrt(distance)))
    broken = _after_narration(previous, turn)
    address = []  # (column, gender): the genders the previous turn, this one and the next address
    for column, other in (
        (_ADDRESSED_GENDER_PREV, index - 1),
        (_ADDRESSED_GENDER_OWN, index),
        (_ADDRESSED_GENDER_NEXT, index + 1),
    ):
        if first <= other < last:
            addressed = book.address_gender(context.book.text, turns, other)
            if addressed is not None:
                address.append((column, addressed))
    return _StaticTurn(
        runs,
        t.rows,
        t.tag_gender,
        _INDEX[f"{verb_class}_tag_prev_speaker"] if verb_class is not None else None,
        set(_named_inside(t)),
        _untagged(turn),
        turn.start,
        turn.end,
        bisect.bisect_left(book.name_starts, turn.start),
        bisect.bisect_left(book.name_starts, turn.end),
        gender_anchors,
        before,
        tuple(near[_NEAR + 1 :]),
        tagged,
        (broken, previous is not None and _after_narration(near[_NEAR - 2], previous)),
        _named_between(book, previous, turn) if broken else [],
        (False,) * inside + (True,) * (earlier - inside),
        list(dict.fromkeys(previous.vocatives)) if previous is not None else [],
        list(dict.fromkeys(following.vocatives)) if following is not None else [],
        turns[index:end],
        dict(zip(runs[0], range(0, len(runs[0]) * _WIDTH, _WIDTH), strict=True)),
        (
            (_PREV1, _PREV1_TAGGED if tagged[0] else None),
            (_PREV2, _PREV2_TAGGED if tagged[1] else None),
            (_PREV3, None),
            (_NEXT1, None),
            (_NEXT2, _NEXT2_TAGGED if tagged[2] else None),
        ),
        sorted(t.present.items(), key=lambda item: -item[1])[:3],
        t.presence,
        address,
    )


_NEAR = 3  # the furthest neighbouring turn a family reads


_NO_ROWS: np.ndarray = np.zeros(
    (0, len(FEATURES))
)  # no rows yet (a shared empty array: rows are stacked onto a new one)


def _tagged(turn: Turn | None) -> bool:
    """Whether the sieve read the turn's speaker off a tag or beat."""
    return turn is not None and turn.sieve[1] in ("tag", "beat")


def _speaker_of(turn: Turn | None) -> str | None:
    return turn.speaker if turn is not None else None


_GENDERED_NOUNS = {
    "he": "male", "she": "female", "man": "male", "woman": "female", "husband": "male",
    "wife": "female", "lady": "female", "gentleman": "male", "father": "male", "mother": "female",
    "brother": "male", "sister": "female", "son": "male", "daughter": "female", "uncle": "male",
    "aunt": "female", "boy": "male", "girl": "female",
}  # fmt: skip
_TAG_AFTER = re.compile(r"[\s,!?.;:'\"”’—-]{0,4}((?:[A-Za-z]+\b[ \t\n]*){1,4})")
_DETERMINERS = {"the", "his", "her", "my", "our", "their"}


def _spans_of(turn: Turn) -> tuple[tuple[int, int], ...]:
    """The turn's quote spans, in order: the key of what is read of them alone (`_text_kept`)."""
    return tuple((span.start, span.end) for quote in turn.quotes for span in quote.spans)


def _text_kept(
    memo: dict[Any, Any] | None,
    key: Any,
    end: int,
    text: str,
    compute: Callable[[str, Turn], str | None],
    turn: Turn,
) -> str | None:
    """``compute(text, turn)``, kept in ``memo`` (`fabula.book.text_memo`: one book's cuts share it) under
    ``key``, which holds every offset of the turn ``compute`` reads, when it reads no character at or after
    ``end``: then, within a cut whose text reaches ``end``, it reads the same characters in every cut of
    the book and gives the same value; past the cut's end it is computed (a read there is clipped)."""
    if memo is None or end > len(text):
        return compute(text, turn)
    found = memo.get(key, _UNKNOWN)
    if found is _UNKNOWN:
        found = memo[key] = compute(text, turn)
    return found


_UNKNOWN = object()
_TAG_AFTER_CHARS = 60  # how far after a quote `_tag_gender` reads


def _tag_kept(
    memo: dict[Any, Any] | None,
    text: str,
    turn: Turn,
    context: SieveContext,
    compute: Callable[[str, Turn, frozenset[str]], str | None],
) -> str | None:
    """``compute`` (`_tag_gender`, `_kin_tag`), kept (`_text_kept`): it reads `_TAG_AFTER_CHARS` after
    each quote span and the book's speech verbs, whose learned part is in the key (a cut learns them
    from what it holds)."""
    spans, verbs = _spans_of(turn), context.verbs
    return _text_kept(
        memo,
        (spans, context.learned_verbs),
        max(end for _, end in spans) + _TAG_AFTER_CHARS,
        text,
        lambda text, turn: compute(text, turn, verbs),
        turn,
    )


def _address_gender_kept(memo: dict[Any, Any] | None, text: str, turn: Turn) -> str | None:
    """`_address_gender`, kept (`_text_kept`): it reads the quotes' text and the character before each,
    inside every cut that holds the turn."""
    spans = _spans_of(turn)
    return _text_kept(memo, spans, max(end for _, end in spans), text, _address_gender, turn)


def keep_text_values(book: Book) -> None:
    """Compute for every quotation of ``book`` (cut through a `fabula.book.PrefixLayers`: the whole book's
    text, ``layers.truncated(whole.body.end)``) the values of the text alone that the store keeps for all
    the book's cuts (`fabula.book.text_memo`): the sieve's tag clauses and each turn's tag gender and words
    of address. ``fabula serve`` runs it on its loader thread, so the first analysis of a late checkpoint
    finds them made; each cut still uses only what it would compute itself (`_text_kept`,
    `fabula.quotes._rules._clauses`). Sets ``book.quotes`` (the book is the caller's cut, made for this)."""
    from fabula.quotes._detect import detect_quotes
    from fabula.quotes._rules import _clauses, _context, _turns

    if text_memo(book, "quotes.clauses") is None:
        return  # not cut through a store: nothing would be kept
    detect_quotes(book)
    context, turns, text = _context(book), _turns(book), book.text
    tag_memo, address_memo = text_memo(book, "quotes.tag_gender"), text_memo(book, "quotes.address_gender")
    kin_memo = text_memo(book, "quotes.kin_tag")
    for turn in turns:
        for position in range(len(turn.quotes)):
            _clauses(context, turn, position)
        _tag_kept(tag_memo, text, turn, context, _tag_gender)
        _tag_kept(kin_memo, text, turn, context, _kin_tag)
        _address_gender_kept(address_memo, text, turn)


def _tag_gender(text: str, turn: Turn, verbs: frozenset[str] = SPEECH_VERBS) -> str | None:
    """The gender of a speech tag right after one of the turn's quotes that names no one:
    ``"…," returned she`` / ``"…," he said`` / ``"…," said his wife`` / ``"…," said the old man``."""
    for quote in turn.quotes:
        for span in quote.spans:
            match = _TAG_AFTER.match(text, span.end, span.end + _TAG_AFTER_CHARS)
            if match is None:
                continue
            words = match.group(1).lower().split()
            if len(words) >= 2 and words[0] in ("he", "she") and words[1] in verbs:
                return _GENDERED_NOUNS[words[0]]
            if len(words) >= 2 and words[0] in verbs:
                if words[1] in ("he", "she"):
                    return _GENDERED_NOUNS[words[1]]
                if words[1] in _DETERMINERS:
                    noun = next((w for w in words[2:4] if w in _GENDERED_NOUNS), None)
                    if noun is not None:
                        return _GENDERED_NOUNS[noun]
    return None


def _kin_tag(text: str, turn: Turn, verbs: frozenset[str] = SPEECH_VERBS) -> str | None:
    """The possessive and the kinship noun (`_KIN_NOUNS`) of a speech tag right after one of the turn's
    quotes that names the speaker by kinship (`kinship_tag_at`)."""
    for quote in turn.quotes:
        for span in quote.spans:
            found = kinship_tag_at(text, span.end, verbs)
            if found is not None:
                return found
    return None


def kinship_tag_at(text: str, end: int, verbs: frozenset[str] = SPEECH_VERBS) -> str | None:
    """The possessive and kinship noun of a speech tag that starts after a quotation ending at ``end``
    and names the speaker by kinship to someone else: ``"…," said her mother`` / ``cried his elder
    sister`` / ``her mother went on`` -> "her mother"; None for any other tag."""
    match = _TAG_AFTER.match(text, end, end + _TAG_AFTER_CHARS)
    if match is None:
        return None
    words = match.group(1).lower().split()
    if len(words) >= 3 and words[0] in verbs and words[1] in _POSSESSIVES:
        noun = next((w for w in words[2:4] if w in _KIN_NOUNS), None)
        if noun is not None:
            return f"{words[1]} {noun}"
    elif len(words) >= 3 and words[0] in _POSSESSIVES:
        for at in (1, 2):
            if at + 1 < len(words) and words[at] in _KIN_NOUNS and words[at + 1] in verbs:
                return f"{words[0]} {words[at]}"
    return None


_ADDRESS_WORDS: dict[str, str] = {
    **{word: gender for word, gender in HONORIFICS.items() if len(word) > 3 and gender != "unknown"},
    "sir": "male", "papa": "male", "pa": "male", "dad": "male", "daddy": "male", "grandpapa": "male",
    "grandfather": "male", "boy": "male", "lad": "male", "son": "male", "man": "male", "fellow": "male",
    "mamma": "female", "mama": "female", "ma": "female", "mum": "female", "mummy": "female",
    "ma'am": "female", "grandmamma": "female", "grandmother": "female", "girl": "female",
    "daughter": "female", "woman": "female", "missis": "female", "missus": "female", "miss": "female",
}  # fmt: skip
_ADDRESS_BACKWARDS = frozenset(word[::-1] for word in _ADDRESS_WORDS)  # each word of address reversed
_LETTER = r"[^\W\d_]"
# a word right before punctuation (or the end of the speech), read backwards: the stop, white space, then
# the word reversed (letters with single apostrophes inside); see `_words_before_stops`
_STOP_THEN_WORD = re.compile(rf"[,!?.;—-]\s*+((?:{_LETTER}+')*{_LETTER}+)")
_WORD_AT_END = re.compile(rf"\s*+((?:{_LETTER}+')*{_LETTER}+)")
_A_LETTER = re.compile(_LETTER)


def _words_before_stops(text: str, start: int, end: int) -> list[tuple[int, int]]:
    r"""The spans of the words of ``text[start:end]`` right before punctuation or its end (white space
    between), where a word of address can be (`is_vocative`): what
    ``(?<![^\W\d_'])'*([^\W\d_](?:[^\W\d_]|'(?=[^\W\d_]))*)\s*(?:[,!?.;—-]|$)`` finds with
    ``finditer(text, start, end)`` (group 1), found from the stops backwards on the reversed text: a
    search led by the rare stop characters, where the forward pattern tries its lookbehind at every
    offset (twice as slow; `tests/quotes/test_ranker.py` compares the two). A word is the whole run of
    letters and single inner apostrophes before the stop; the forward pattern starts it after a
    non-letter, so a run that reaches ``start`` after a letter keeps only what follows its first
    apostrophe (or is no word)."""
    backwards = text[start:end][::-1]
    found = []
    match = _WORD_AT_END.match(backwards)
    if match is not None:
        found.append((end - match.end(1), end - match.start(1)))
    found.extend((end - m.end(1), end - m.start(1)) for m in _STOP_THEN_WORD.finditer(backwards))
    found.reverse()
    if found and found[0][0] == start and start > 0 and _A_LETTER.match(text, start - 1):
        first, last = found[0]
        apostrophe = text.find("'", first, last)
        if apostrophe < 0:
            del found[0]
        else:
            found[0] = (apostrophe + 1, last)
    return found


def _address_gender(text: str, turn: Turn) -> str | None:
    """The gender the turn's speech addresses with a word of address and no name (``"Yes, sir."``,
    ``"Oh, mamma!"``, ``"my dear madam,"``): the listener's, so most often the next or the previous
    speaker's, never the speaker's own. None when it addresses no one so, or both genders."""
    found: set[str] = set()
    for quote in turn.quotes:
        for span in quote.spans:
            if span.start == 0 or _A_LETTER.match(text, span.start - 1) is None:
                # most speeches hold no word of address before a stop: the words (reversed, lowercased:
                # the same as lowercased and reversed for a word of address, which holds no capital
                # sigma) looked up in one set, without their spans (every word `_words_before_stops`
                # finds, when no letter stands right before the speech)
                backwards = text[span.start : span.end][::-1]
                words = _STOP_THEN_WORD.findall(backwards)
                last = _WORD_AT_END.match(backwards)
                if last is not None:
                    words.append(last.group(1))
                if _ADDRESS_BACKWARDS.isdisjoint(map(str.lower, words)):
                    continue
            for start, end in _words_before_stops(text, span.start, span.end):
                gender = _ADDRESS_WORDS.get(text[start:end].lower())
                if gender is not None and is_vocative(text, start, end, (span.start, span.end)):
                    found.add(gender)
    return found.pop() if len(found) == 1 else None


_CONTINUATION_VERBS = {
    "added", "adding", "adds", "continued", "continues", "continuing", "resumed", "resumes",
    "pursued", "pursues", "concluded", "concludes", "concluding", "went",
}  # fmt: skip
_REPLY_VERBS = {
    "replied", "replies", "replying", "reply", "answered", "answering", "answers", "answer",
    "returned", "returning", "returns", "rejoined", "rejoins", "rejoining", "retorted", "retorts",
    "responded", "responds", "echoed", "echoes",
}  # fmt: skip
_TAG_WORDS = re.compile(r"[A-Za-z]+")


def _tag_verb_class(text: str, turn: Turn) -> str | None:
    """Whether the turn's speech tag says the speaker goes on (``he added``, ``she went on``:
    ``"continuation"``) or answers someone (``he replied``, ``returned she``: ``"reply"``): the word
    right before or after the tag's mention, else the first words after a quote."""
    for quote in turn.quotes:
        if quote.mention is not None:
            before = _TAG_WORDS.findall(text, max(0, quote.mention.start - 16), quote.mention.start)[-1:]
            after = _TAG_WORDS.findall(text, quote.mention.end, quote.mention.end + 16)[:2]
            words = [w.lower() for w in before + after]
        else:
            words = [w.lower() for w in _TAG_WORDS.findall(text, quote.end, quote.end + 30)[:3]]
        for position, word in enumerate(words):
            if word == "went" and words[position + 1 : position + 2] != ["on"]:
                continue
            if word in _CONTINUATION_VERBS:
                return "continuation"
            if word in _REPLY_VERBS:
                return "reply"
    return None


class _QuotedText:
    """Which offsets of the book lie inside a quote (names there are not narration), and whose."""

    def __init__(self, turns: list[Turn]) -> None:
        spans = sorted(
            (s.start, s.end, index) for index, t in enumerate(turns) for q in t.quotes for s in q.spans
        )
        self.starts = [a for a, _, _ in spans]
        self.ends = [b for _, b, _ in spans]
        self.turns = [index for _, _, index in spans]

    def turn_at(self, offset: int) -> int:
        """The turn whose quote holds ``offset`` (-1: none). Quote spans do not overlap."""
        i = bisect.bisect_right(self.starts, offset) - 1
        return self.turns[i] if i >= 0 and offset < self.ends[i] else -1


_SUBJECT_START = re.compile(
    r"(?:^|[.!?;:]\s|\n|[”\"]\s*|—|--|\b(?:and|but|then|while|when|so|till|until|as)\s)[\s\"“‘(]*\Z"
)  # what comes right before a name that is the subject of its sentence or clause
_ANTECEDENT_CHARS = 3000  # how far back a tag pronoun's antecedent is looked for
_ANTECEDENT_TURNS = 12  # how many earlier turns offer same-gender speakers


def _pronoun_antecedents(t: TurnRows, gender: str, offset: int | None) -> None:
    """Candidates for a gendered speech tag (``"…," he said``): the last two characters of that
    gender named in the narration before the tag (not inside quotes) and the last two such characters
    named as the subject of a sentence or clause (the earlier speakers of that gender and what the
    mention layer resolved the pronoun to are the same-gender speakers of `_features` and
    `_pronoun_resolution`)."""
    context, put = t.context, t.put
    at = offset if offset is not None else t.turn.quotes[0].end
    text = context.book.text
    recent: list[str] = []
    subjects: list[str] = []
    starts, ids, held = t.book.name_starts, t.book.name_ids, t.book.name_turns
    for i in range(bisect.bisect_left(starts, at) - 1, -1, -1):  # the name mentions before, nearest first
        start = starts[i]
        if at - start >= _ANTECEDENT_CHARS or (len(recent) >= 2 and len(subjects) >= 2):
            break
        who = ids[i]
        if held[i] != -1 or context.gender(who) != gender:  # inside a quote, or another gender
            continue
        if who not in recent:
            recent.append(who)
        if who not in subjects and _SUBJECT_START.search(text, max(0, start - 40), start):
            subjects.append(who)
    for rank, who in enumerate(recent[:2], 1):
        put(who, f"pronoun_recent_{rank}", 1.0)
    for rank, who in enumerate(subjects[:2], 1):
        put(who, f"pronoun_subject_{rank}", 1.0)
