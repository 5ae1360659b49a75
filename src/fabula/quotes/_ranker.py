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
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from fabula.book import Book, Quote
from fabula.characters import PRONOUN_GENDER, SPEECH_VERBS
from fabula.quotes._registry import AttributionResult, attribution_method
from fabula.quotes._rules import _Context, _gender, _Turn, finish_turns, run_sieve

SIEVE_RULES = ("tag", "beat", "vocative", "alternation", "paragraph", "recent")
PRONOUN_STEPS = ("addressed", "paragraph", "narration", "participant", "layer")  # see _rules._resolve_pronoun
_WINDOW_PARAGRAPHS = 2  # narration this many paragraphs before/after a turn offers candidates
_FAR = 3000.0
_RECENT_TURNS = 12  # earlier turns whose speakers are candidates
_RECENT_SPEAKERS = 5  # at most this many distinct earlier speakers
_MAIN_CAST = 8  # the characters named most often: candidates for a gendered tag no one resolved
_RECENT_PARAGRAPHS = 6  # characters named in this many paragraphs before the turn are candidates  # distances are capped here (chars)

FEATURES = [
    *(f"sieve_{rule}" for rule in SIEVE_RULES),
    "sieve_confidence",
    "quote_tag_name",
    "quote_tag_pronoun",
    "quote_beat",
    "prev1_speaker",
    "prev2_speaker",
    "prev3_speaker",
    "next1_speaker",
    "next2_speaker",
    "prev2_tagged",
    "next2_tagged",
    "prev1_tagged",
    "addressed_by_prev",
    "addressed_by_next",
    "addressed_in_turn",
    "named_inside_quote",
    "own_paragraph_name",
    "own_paragraph_first_name",
    "own_paragraph_before_quote",
    "own_paragraph_after_quote",
    "prev_paragraph_name",
    "prev_paragraph_last_name",
    "next_paragraph_name",
    "log_distance_before",
    "log_distance_after",
    "pronoun_tag_gender_match",
    "pronoun_tag_gender_mismatch",
    "speaker_share",
    "mention_share",
    "narrator",
    "conversation_participant",
    "multi_party",
    "parity",
    "parity_multi_party",
    "own_paragraph_first_name_untagged",
    "recent_speaker",
    "recent_speaker_rank",
    "recent_speaker_other_conversation",
    "named_recently",
    "frequent_character",
    "two_party_run_before",
    "two_party_run_after",
    "conversation_turn_share",
    "prev_narration_first_name",
    "pronoun_recent_1",
    "pronoun_recent_2",
    "pronoun_subject_1",
    "pronoun_subject_2",
    "pronoun_prev_speaker_1",
    "pronoun_prev_speaker_2",
    "pronoun_mention_layer",
    "continuation_tag_prev_speaker",
    "reply_tag_prev_speaker",
    *(f"pronoun_step_{step}" for step in PRONOUN_STEPS),
    "tag_before_quote",
    "tag_inside_quote",
    "beat_pronoun",
]
_INDEX = {name: i for i, name in enumerate(FEATURES)}


@dataclass(slots=True)
class TurnCandidates:
    """The candidate speakers of one turn and their feature rows (for training and inference)."""

    turn: int
    candidates: list[str]
    features: np.ndarray  # (len(candidates), len(FEATURES))


@cache
def load_model() -> tuple[np.ndarray, float]:
    """The shipped weights (one per feature, matched by name) and the temperature."""
    raw = json.loads(resources.files("fabula.quotes").joinpath("ranker.json").read_text("utf-8"))
    weights = dict(zip(raw["features"], raw["weights"], strict=True))
    return np.array([float(weights.get(name, 0.0)) for name in FEATURES]), float(raw.get("scale", 1.0))


@attribution_method("ranker")
def attribute_with_ranker(book: Book, **options: Any) -> AttributionResult:
    """Attribute ``book.quotes`` with the sieve, then re-rank each turn's candidate speakers."""
    if options:
        raise TypeError(f"the ranker method takes no options, got {sorted(options)}")
    weights, _ = load_model()
    return AttributionResult(rank_speakers(book, weights))


def rank_speakers(book: Book, weights: np.ndarray, passes: int = 2) -> list[Quote]:
    """The sieve, then each turn's candidates scored with ``weights`` (one per `FEATURES` entry)."""
    context, turns = run_sieve(book)
    rerank(context, turns, weights, passes)
    for turn in turns:
        settle_quotes(turn)
    finish_turns(context, turns)
    return book.quotes


def rerank(context: _Context, turns: list[_Turn], weights: np.ndarray, passes: int) -> None:
    """Give every turn its top-scoring candidate, ``passes`` times: each pass sees the previous pass's
    speakers of the neighbouring turns."""
    for _ in range(passes):
        picks = [(item, item.features @ weights) for item in turn_candidates(context, turns)]
        for item, scores in picks:
            apply_choice(turns[item.turn], item, scores)


def apply_choice(turn: _Turn, item: TurnCandidates, scores: np.ndarray) -> None:
    """Give the turn its top-scoring candidate, with the softmax probability as confidence."""
    probabilities = np.exp(scores - scores.max())
    probabilities /= probabilities.sum()
    best = int(np.argmax(scores))
    turn.speaker, turn.rule = item.candidates[best], "ranker"
    turn.confidence = round(float(probabilities[best]), 4)


def settle_quotes(turn: _Turn) -> None:
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


def turn_candidates(context: _Context, turns: list[_Turn]) -> list[TurnCandidates]:
    """Candidates and features for every turn with at least one candidate."""
    quote_counts: dict[str, int] = {}
    for turn in turns:
        if turn.speaker is not None:
            quote_counts[turn.speaker] = quote_counts.get(turn.speaker, 0) + len(turn.quotes)
    total_quotes = max(1, sum(quote_counts.values()))
    mention_counts: dict[str, int] = {}
    for mention in context.name_mentions:
        if mention.character_id is not None:
            mention_counts[mention.character_id] = mention_counts.get(mention.character_id, 0) + 1
    total_mentions = max(1, max(mention_counts.values(), default=1))
    frequent = sorted(mention_counts, key=lambda who: -mention_counts[who])[:_MAIN_CAST]
    quoted = _QuotedText(turns)
    out: list[TurnCandidates] = []
    for index in range(len(turns)):
        item = _features(
            context,
            turns,
            index,
            quote_counts,
            total_quotes,
            mention_counts,
            total_mentions,
            frequent,
            quoted,
        )
        if item is not None:
            out.append(item)
    return out


def _neighbour(turns: list[_Turn], index: int, offset: int) -> _Turn | None:
    other = index + offset
    if 0 <= other < len(turns) and turns[other].conversation == turns[index].conversation:
        return turns[other]
    return None


def _speaker_of(turn: _Turn | None) -> str | None:
    return turn.speaker if turn is not None else None


def _named(context: _Context, start: int, end: int, inside: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """(offset, character id) of name mentions in ``[start, end)`` outside the given quote spans."""
    lo = bisect.bisect_left(context.name_starts, start)
    hi = bisect.bisect_left(context.name_starts, end)
    return [
        (m.start, m.character_id)
        for m in context.name_mentions[lo:hi]
        if m.character_id is not None and not any(a <= m.start < b for a, b in inside)
    ]


def _features(
    context: _Context,
    turns: list[_Turn],
    index: int,
    quote_counts: dict[str, int],
    total_quotes: int,
    mention_counts: dict[str, int],
    total_mentions: int,
    frequent: list[str],
    quoted: _QuotedText,
) -> TurnCandidates | None:
    book = context.book
    turn = turns[index]
    rows: dict[str, np.ndarray] = {}

    def row(character_id: str | None) -> np.ndarray | None:
        if character_id is None:
            return None
        if character_id not in rows:
            rows[character_id] = np.zeros(len(FEATURES))
        return rows[character_id]

    def put(character_id: str | None, feature: str, value: float = 1.0) -> None:
        r = row(character_id)
        if r is not None:
            r[_INDEX[feature]] = max(r[_INDEX[feature]], value)

    # the sieve's proposals
    sieve_speaker, sieve_rule, sieve_confidence = turn.sieve
    if sieve_speaker is not None and sieve_rule in SIEVE_RULES:
        put(sieve_speaker, f"sieve_{sieve_rule}")
        put(sieve_speaker, "sieve_confidence", sieve_confidence)
    pronoun_gender: str | None = None
    pronoun_offset: int | None = None
    for quote in turn.quotes:
        if quote.speaker_id is None or quote.method is None:
            continue
        rule = quote.method.split(":")[-1]
        kind = "name"
        if quote.mention is not None:
            word = book.text[quote.mention.start : quote.mention.end].lower()
            if word in ("he", "she", "i"):
                kind = "pronoun"
                pronoun_gender = PRONOUN_GENDER.get(word)
                pronoun_offset = quote.mention.start
                step = turn.pronoun_steps.get(quote.mention.start)
                if step in PRONOUN_STEPS:
                    put(quote.speaker_id, f"pronoun_step_{step}")
        if rule == "tag":
            put(quote.speaker_id, "quote_tag_name" if kind == "name" else "quote_tag_pronoun")
            if quote.mention is not None and quote.mention.end <= quote.start:
                put(quote.speaker_id, "tag_before_quote")  # a lead-in: its subject is harder to find
            elif quote.mention is not None and quote.mention.start < quote.end:
                put(quote.speaker_id, "tag_inside_quote")  # "Yes," said he, "I will."
        elif rule == "beat":
            put(quote.speaker_id, "quote_beat")
            if kind == "pronoun":
                put(quote.speaker_id, "beat_pronoun")
    if pronoun_gender is None:
        pronoun_gender = _tag_gender(book.text, turn)
    if pronoun_gender is not None:
        # a gendered tag the sieve could not resolve ("returned she", "said his wife"): the
        # novel's main characters of that gender are candidates
        for who in frequent:
            if _gender(context, who) == pronoun_gender:
                put(who, "frequent_character")
        _pronoun_antecedents(context, turns, index, pronoun_gender, pronoun_offset, quoted, put)
    verb_class = _tag_verb_class(book.text, turn)
    previous_speaker = _speaker_of(_neighbour(turns, index, -1))
    if verb_class is not None:
        put(previous_speaker, f"{verb_class}_tag_prev_speaker")
    # turn structure
    participants: list[str] = []
    for offset, feature in ((-1, "prev1_speaker"), (-2, "prev2_speaker"), (-3, "prev3_speaker")):
        other = _neighbour(turns, index, offset)
        if other is not None and other.speaker is not None:
            put(other.speaker, feature)
            participants.append(other.speaker)
            if offset == -2 and other.sieve[1] in ("tag", "beat"):
                put(other.speaker, "prev2_tagged")
            if offset == -1 and other.sieve[1] in ("tag", "beat"):
                put(other.speaker, "prev1_tagged")
    for offset, feature in ((1, "next1_speaker"), (2, "next2_speaker")):
        other = _neighbour(turns, index, offset)
        if other is not None and other.speaker is not None:
            put(other.speaker, feature)
            participants.append(other.speaker)
            if offset == 2 and other.sieve[1] in ("tag", "beat"):
                put(other.speaker, "next2_tagged")
    # speakers of earlier turns, further back than the conversation neighbours: a third (fourth)
    # party of a scene who spoke a while ago, ranked by how many other speakers came since
    seen: list[str] = []
    for back in range(index - 1, max(-1, index - 1 - _RECENT_TURNS), -1):
        earlier = turns[back].speaker
        if earlier is None or earlier in seen:
            continue
        seen.append(earlier)
        put(earlier, "recent_speaker")
        put(earlier, "recent_speaker_rank", 1.0 - len(seen) / (_RECENT_SPEAKERS + 1))
        if turns[back].conversation != turn.conversation:
            put(earlier, "recent_speaker_other_conversation")
        if len(seen) >= _RECENT_SPEAKERS:
            break
    previous = _neighbour(turns, index, -1)
    if previous is not None:
        for who in previous.vocatives:
            if who != previous.speaker:
                put(who, "addressed_by_prev")
    following = _neighbour(turns, index, 1)
    if following is not None:
        for who in following.vocatives:
            if rows.get(who) is not None:
                put(who, "addressed_by_next")
    # narration around the turn
    inside = [(s.start, s.end) for q in turn.quotes for s in q.spans]
    if turn.paragraph >= 0:
        paragraphs = book.paragraphs
        p_start = int(paragraphs.starts[turn.first_paragraph])
        p_end = int(paragraphs.ends[turn.paragraph])
        own = _named(context, p_start, p_end, inside)
        for rank, (offset, who) in enumerate(own):
            put(who, "own_paragraph_name")
            if rank == 0:
                put(who, "own_paragraph_first_name")
            put(who, "own_paragraph_before_quote" if offset < turn.start else "own_paragraph_after_quote")
        if turn.first_paragraph > 0:
            q = turn.first_paragraph - 1
            before = _named(
                context, int(paragraphs.starts[q]), int(paragraphs.ends[q]), _quote_spans(turns, index - 1)
            )
            for _, who in before:
                put(who, "prev_paragraph_name")
            if before:
                put(before[-1][1], "prev_paragraph_last_name")
                if index == 0 or turns[index - 1].paragraph != q:
                    # a narration paragraph right before the turn: its first-named character acts, then speaks
                    put(before[0][1], "prev_narration_first_name")
        if turn.paragraph + 1 < len(paragraphs):
            q = turn.paragraph + 1
            after = _named(
                context, int(paragraphs.starts[q]), int(paragraphs.ends[q]), _quote_spans(turns, index + 1)
            )
            for _, who in after:
                put(who, "next_paragraph_name")
        lookback = int(paragraphs.starts[max(0, turn.first_paragraph - _RECENT_PARAGRAPHS)])
        for _, who in _named(context, lookback, p_start, []):
            put(who, "named_recently")
    for who in _vocatives_in(turn):
        put(who, "addressed_in_turn")
    # quotes' own named characters (not vocatives): rarely the speaker
    for offset, who in _named(context, turn.start, turn.end, []):
        if any(a <= offset < b for a, b in inside) and who not in turn.vocatives and who in rows:
            put(who, "named_inside_quote")
    if not rows:
        return None
    # A-B-A-B runs: (speaker of i-1, i-2, i-3) and (i+1, i+2, i+3), each None outside the conversation
    behind = [_speaker_of(_neighbour(turns, index, -k)) for k in (1, 2, 3)]
    ahead = [_speaker_of(_neighbour(turns, index, k)) for k in (1, 2, 3)]
    conversation_list = [
        t.speaker for t in turns[max(0, index - 20) : index + 20] if t.conversation == turn.conversation
    ]
    conversation_turns: dict[str, int] = {}
    for speaker in conversation_list:
        if speaker is not None:
            conversation_turns[speaker] = conversation_turns.get(speaker, 0) + 1
    candidates = list(rows)
    for who in candidates:
        r = rows[who]
        r[_INDEX["log_distance_before"]] = _log_distance(context, who, turn.start, before=True, inside=inside)
        r[_INDEX["log_distance_after"]] = _log_distance(context, who, turn.end, before=False, inside=inside)
        gender = _gender(context, who)
        if pronoun_gender is not None:
            r[
                _INDEX[
                    "pronoun_tag_gender_match" if gender == pronoun_gender else "pronoun_tag_gender_mismatch"
                ]
            ] = 1.0
        r[_INDEX["speaker_share"]] = quote_counts.get(who, 0) / total_quotes
        r[_INDEX["mention_share"]] = math.log1p(mention_counts.get(who, 0)) / math.log1p(total_mentions)
        r[_INDEX["narrator"]] = float(who == context.narrator_id)
        r[_INDEX["conversation_participant"]] = float(who in participants)
        r[_INDEX["multi_party"]] = float(len(set(participants)) > 2)
        # A-B-A: the speaker of the turn before last, not of the last one
        parity = float(r[_INDEX["prev2_speaker"]] > 0 and r[_INDEX["prev1_speaker"]] == 0)
        r[_INDEX["parity"]] = parity
        r[_INDEX["parity_multi_party"]] = parity * r[_INDEX["multi_party"]]
        r[_INDEX["two_party_run_before"]] = float(
            who == behind[1] and behind[0] is not None and behind[0] == behind[2]
        )
        r[_INDEX["two_party_run_after"]] = float(
            who == ahead[1] and ahead[0] is not None and ahead[0] == ahead[2]
        )
        r[_INDEX["conversation_turn_share"]] = conversation_turns.get(who, 0) / max(1, len(conversation_list))
        untagged = not any(q.speaker_id is not None for q in turn.quotes)
        r[_INDEX["own_paragraph_first_name_untagged"]] = r[_INDEX["own_paragraph_first_name"]] * untagged
    return TurnCandidates(index, candidates, np.stack([rows[c] for c in candidates]))


_GENDERED_NOUNS = {
    "he": "male", "she": "female", "man": "male", "woman": "female", "husband": "male",
    "wife": "female", "lady": "female", "gentleman": "male", "father": "male", "mother": "female",
    "brother": "male", "sister": "female", "son": "male", "daughter": "female", "uncle": "male",
    "aunt": "female", "boy": "male", "girl": "female",
}  # fmt: skip
_TAG_AFTER = re.compile(r"[\s,!?.;:'\"”’—-]{0,4}((?:[A-Za-z]+\b[ \t\n]*){1,4})")
_DETERMINERS = {"the", "his", "her", "my", "our", "their"}


def _tag_gender(text: str, turn: _Turn) -> str | None:
    """The gender of a speech tag right after one of the turn's quotes that names no one:
    ``"…," returned she`` / ``"…," he said`` / ``"…," said his wife`` / ``"…," said the old man``."""
    for quote in turn.quotes:
        for span in quote.spans:
            match = _TAG_AFTER.match(text, span.end, span.end + 60)
            if match is None:
                continue
            words = match.group(1).lower().split()
            if len(words) >= 2 and words[0] in ("he", "she") and words[1] in SPEECH_VERBS:
                return _GENDERED_NOUNS[words[0]]
            if len(words) >= 2 and words[0] in SPEECH_VERBS:
                if words[1] in ("he", "she"):
                    return _GENDERED_NOUNS[words[1]]
                if words[1] in _DETERMINERS:
                    noun = next((w for w in words[2:4] if w in _GENDERED_NOUNS), None)
                    if noun is not None:
                        return _GENDERED_NOUNS[noun]
    return None


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


def _tag_verb_class(text: str, turn: _Turn) -> str | None:
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
    """Which offsets of the book lie inside a quote (names there are not narration)."""

    def __init__(self, turns: list[_Turn]) -> None:
        spans = sorted((s.start, s.end) for t in turns for q in t.quotes for s in q.spans)
        self.starts = [a for a, _ in spans]
        self.ends = [b for _, b in spans]

    def __contains__(self, offset: int) -> bool:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i >= 0 and offset < self.ends[i]


_SUBJECT_START = re.compile(
    r"(?:^|[.!?;:]\s|\n|[”\"]\s*|—|--|\b(?:and|but|then|while|when|so|till|until|as)\s)[\s\"“‘(]*\Z"
)  # what comes right before a name that is the subject of its sentence or clause
_ANTECEDENT_CHARS = 3000  # how far back a tag pronoun's antecedent is looked for
_ANTECEDENT_TURNS = 12  # how many earlier turns offer same-gender speakers


def _pronoun_antecedents(
    context: _Context,
    turns: list[_Turn],
    index: int,
    gender: str,
    offset: int | None,
    quoted: _QuotedText,
    put: Callable[[str | None, str, float], None],
) -> None:
    """Candidates for a gendered speech tag (``"…," he said``): the last two characters of that
    gender named in the narration before the tag (not inside quotes), the last two such characters
    named as the subject of a sentence or clause, the last two earlier speakers of that gender, and
    what the mention layer resolved the pronoun to."""
    turn = turns[index]
    at = offset if offset is not None else turn.quotes[0].end
    text = context.book.text
    recent: list[str] = []
    subjects: list[str] = []
    i = bisect.bisect_left(context.name_starts, at) - 1
    while (
        i >= 0 and at - context.name_starts[i] < _ANTECEDENT_CHARS and (len(recent) < 2 or len(subjects) < 2)
    ):
        mention = context.name_mentions[i]
        i -= 1
        who = mention.character_id
        if who is None or mention.start in quoted or _gender(context, who) != gender:
            continue
        if who not in recent:
            recent.append(who)
        if who not in subjects and _SUBJECT_START.search(text, max(0, mention.start - 40), mention.start):
            subjects.append(who)
    for rank, who in enumerate(recent[:2], 1):
        put(who, f"pronoun_recent_{rank}", 1.0)
    for rank, who in enumerate(subjects[:2], 1):
        put(who, f"pronoun_subject_{rank}", 1.0)
    speakers: list[str] = []
    for back in range(index - 1, max(-1, index - 1 - _ANTECEDENT_TURNS), -1):
        who = turns[back].speaker
        if who is not None and who not in speakers and _gender(context, who) == gender:
            speakers.append(who)
            put(who, f"pronoun_prev_speaker_{len(speakers)}", 1.0)
            if len(speakers) == 2:
                break
    if offset is not None:
        resolved = context.pronoun_at.get(offset)
        if resolved is not None:
            put(resolved.character_id, "pronoun_mention_layer", 1.0)


def _vocatives_in(turn: _Turn) -> list[str]:
    return list(turn.vocatives)


def _quote_spans(turns: list[_Turn], index: int) -> list[tuple[int, int]]:
    if 0 <= index < len(turns):
        return [(s.start, s.end) for q in turns[index].quotes for s in q.spans]
    return []


def _log_distance(
    context: _Context, who: str, offset: int, *, before: bool, inside: list[tuple[int, int]]
) -> float:
    """log(1 + chars) to the nearest name mention of ``who`` before / after ``offset``, scaled to [0, 1]."""
    starts = context.name_starts
    mentions = context.name_mentions
    if before:
        i = bisect.bisect_left(starts, offset) - 1
        steps = 0
        while i >= 0 and offset - starts[i] < _FAR and steps < 60:
            if mentions[i].character_id == who:
                return math.log1p(offset - starts[i]) / math.log1p(_FAR)
            i -= 1
            steps += 1
    else:
        i = bisect.bisect_left(starts, offset)
        steps = 0
        while i < len(starts) and starts[i] - offset < _FAR and steps < 60:
            if mentions[i].character_id == who:
                return math.log1p(starts[i] - offset) / math.log1p(_FAR)
            i += 1
            steps += 1
    return 1.0
