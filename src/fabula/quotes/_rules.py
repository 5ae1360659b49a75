"""Rule-based speaker attribution: a sieve in the spirit of Muzny et al. (EACL 2017).

No model and no download: the sieve reads the narration around each quote and the mentions that
`fabula.characters.find_characters` put on the book. Passes, most precise first:

1. ``tag``: a speech tag next to the quote — ``"…," said Nora`` / ``Nora said, "…"`` / ``"…," he
   replied`` (speech verbs from `fabula.characters.SPEECH_VERBS` and those the book's own tags use,
   `fabula.characters.learned_speech_verbs`); a pronoun is resolved to a recent
   participant of the conversation of that gender, else through its mention. Type explicit (a name) or
   anaphoric (a pronoun or title).
2. ``beat``: no speech verb, but the narration right after (or before) the quote in the same paragraph
   is about one character (``"No." Nora turned away.``).
3. ``vocative``: the previous turn addressed someone by name (``"Oh, Tamsin!"``): they answer.
4. ``alternation``: in a run of turns, speakers alternate A-B-A-B; an untagged turn takes the speaker of
   the turn before last (or after next).
5. ``paragraph``: a character named in the paragraph's narration.
6. ``recent``: the most recent other speaker in the conversation (low confidence).

Quotes in one paragraph are one turn and share a speaker unless one of them has its own tag.
Addressees are vocatives in the quote, else the speaker of the neighbouring turn.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from fabula.book import Book, Character, Mention, MentionIndex, Quote, Span, text_memo
from fabula.characters import HONORIFICS, PRONOUN_GENDER, SPEECH_VERBS, is_vocative, learned_speech_verbs
from fabula.quotes._registry import AttributionResult, attribution_method

CONVERSATION_GAP_CHARS = 600  # more narration than this between two turns ends a conversation
PARTICIPANT_TURNS = 6  # how far back a pronoun looks for a matching speaker
_TAG_CHARS = 120  # how far a speech tag may reach from the quote
_LEAD_IN_CHARS = 240  # how far back a lead-in clause (before the quote) may start
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_CLAUSE_END = re.compile(r"[.!?;:]|--|—|\n\s*\n")
_PRONOUNS = {p: PRONOUN_GENDER.get(p, "first") for p in ("he", "she", "i", "we")}  # subject pronouns
_OPENING_MARKS = " \n\t\"'“‘«「"
_CLOSING_MARKS = '"”»」'
_STARTS_CLAUSE = re.compile(
    r"(?:^|[,;:—(”\"]|--|[.!?]\s|\n|\b(?:and|but|while|when|whereupon|then|till|until|so|which|whom))[\s\"“‘]*\Z"
)  # what comes right before a name that is the subject of its clause
_SUBJECT_CHARS = 160  # how far before its speech verb the subject of a lead-in clause may be
_SUBJECT_GAP_CHARS = 30  # a mention this close before the verb, with no comma between, is its subject
_TAG_VERB_REACH = 40  # after/inside a quote, the tag's mention is at most this far from its verb
_BEAT_NAME_REACH = 30  # a beat's name starts at most this far into its clause (it is the subject)
_BEAT_PRONOUN_REACH = 8  # a beat's pronoun must open its clause ('"No." She turned away.')
_NARRATION_ANTECEDENT_CHARS = 300  # a tag pronoun this close to its paragraph start may look one back
_CONVERSATION_ROUNDS = 4  # the conversation passes repeat while they fill turns, at most this often

# Confidences of each pass: the sieve's order of precision on PDNC, as the ranker's features read them
# (`sieve_confidence`); changing one changes the ranker's inputs, so retrain it after.
TAG_NAME_CONFIDENCE = 0.95  # "said Nora": right ~96 % of the time
TAG_PRONOUN_CONFIDENCE = 0.85  # "she said": right ~78 %
BEAT_NAME_CONFIDENCE = 0.6  # '"No." Nora turned away.'
BEAT_PRONOUN_CONFIDENCE = 0.5
VOCATIVE_CONFIDENCE = 0.7  # the one the previous turn addressed answers
ALTERNATION_CONFIDENCE = 0.65  # A-B-A: the speaker of the turn before last
ALTERNATION_AHEAD_CONFIDENCE = 0.6  # A-B-A read backwards from a tagged turn after next
PARAGRAPH_CONFIDENCE = 0.5  # the first character named in the turn's paragraph
RECENT_CONFIDENCE = 0.3  # the last other speaker of the conversation
RECENT_AHEAD_CONFIDENCE = 0.25  # the next other speaker, when no one spoke before


@dataclass(slots=True)
class Turn:
    """One turn of a conversation: the quotes of one paragraph (or a speech over several), and the
    speaker the sieve (then the ranker) gives it."""

    quotes: list[Quote]
    paragraph: int  # the last paragraph of the turn
    first_paragraph: int
    start: int
    end: int
    speaker: str | None = None
    rule: str | None = None
    confidence: float = 0.0
    vocatives: list[str] = field(default_factory=list)
    conversation: int = 0
    pronoun_steps: dict[int, str] = field(default_factory=dict)  # tag pronoun offset -> how it was resolved
    sieve: tuple[str | None, str | None, float] = (None, None, 0.0)  # the sieve's (speaker, rule, confidence)


@dataclass(slots=True)
class SieveContext:
    """What every pass reads: the book, its characters, its name mentions (indexed), the pronoun
    mentions by offset and the first-person narrator, if any."""

    book: Book
    characters: dict[str, Character]
    names: MentionIndex  # name and title mentions that have a character
    pronoun_at: dict[int, Mention]
    narrator_id: str | None
    clauses: dict[tuple[int, int], list[tuple[str, int, int, list[tuple[int, int, str]]]]] = field(
        default_factory=dict
    )  # (turn start, quote position) -> `_clauses`: the tag pass and the write-out both read them
    # `_clauses` kept across the cuts of one book (`fabula.book.text_memo`; None: a book not cut through
    # a store), and the start of this book's last paragraph (`_clauses` says why)
    clause_memo: dict[Any, Any] | None = None
    last_paragraph: int = 0
    #: the speech verbs the book's tags use beyond the lexicon (`fabula.characters.learned_speech_verbs`):
    #: part of the key of every value kept across cuts that reads them, since a cut learns from what it holds
    learned_verbs: tuple[str, ...] = ()
    verbs: frozenset[str] = SPEECH_VERBS  # the lexicon's and ``learned_verbs``

    def gender(self, character_id: str) -> str:
        character = self.characters.get(character_id)
        return character.gender if character is not None else "unknown"


@attribution_method("rules")
def attribute_with_rules(book: Book, **options: Any) -> AttributionResult:
    """Attribute ``book.quotes`` with the rule sieve (no options)."""
    if options:
        raise TypeError(f"the rules method takes no options, got {sorted(options)}")
    context, turns = run_sieve(book)
    finish_turns(context, turns)
    return AttributionResult(book.quotes)


def run_sieve(book: Book) -> tuple[SieveContext, list[Turn]]:
    """The sieve's passes without the final write-out: the turns with their guessed speakers (the
    learned ranker starts from these)."""
    for quote in book.quotes:
        quote.speaker_id, quote.method, quote.confidence, quote.mention = None, None, 0.0, None
    context = _context(book)
    turns = _turns(book)
    for turn in turns:
        turn.vocatives = _vocatives(context, turn)
    for index, _turn in enumerate(turns):
        _tag_pass(context, turns, index)
    _conversation_passes(context, turns)
    for turn in turns:
        turn.sieve = (turn.speaker, turn.rule, turn.confidence)
    return context, turns


def finish_turns(context: SieveContext, turns: list[Turn]) -> None:
    """Write each turn's speaker to its untagged quotes, set types and addressees."""
    clauses = [[_tag_clauses(context, turn, p) for p in range(len(turn.quotes))] for turn in turns]
    inward = [_inward(of_turn) for of_turn in clauses]
    for index, _turn in enumerate(turns):
        _finish(context, turns, index, inward, clauses[index])


# --- set-up -----------------------------------------------------------------------------------------


def _context(book: Book) -> SieveContext:
    names = MentionIndex(
        book.mentions, keep=lambda m: m.kind in ("name", "title") and m.character_id is not None
    )
    pronouns = {m.start: m for m in book.mentions if m.kind == "pronoun" and m.character_id is not None}
    characters = {c.id: c for c in book.characters}
    narrator = next((c.id for c in book.characters if c.narrator or c.id == "narrator"), None)
    if narrator is None:
        narrator = _narrator_from_mentions(book, pronouns)
    last_paragraph = int(book.paragraphs.starts[-1]) if len(book.paragraphs) else 0
    learned = learned_speech_verbs(book.text)
    return SieveContext(
        book,
        characters,
        names,
        pronouns,
        narrator,
        clause_memo=text_memo(book, "quotes.clauses"),
        last_paragraph=last_paragraph,
        learned_verbs=learned,
        verbs=SPEECH_VERBS.union(learned),
    )


def _narrator_from_mentions(book: Book, pronouns: dict[int, Mention]) -> str | None:
    """The character that narration's "I" resolves to (first-person novels), if any."""
    counts: dict[str, int] = {}
    for start, mention in pronouns.items():
        if book.text[start : mention.end] == "I":
            counts[mention.character_id or ""] = counts.get(mention.character_id or "", 0) + 1
    counts.pop("", None)
    return max(counts, key=lambda k: counts[k]) if counts else None


def _turns(book: Book) -> list[Turn]:
    """Quotes grouped by paragraph (one turn each), with conversation ids."""
    turns: list[Turn] = []
    for quote in book.quotes:
        paragraph = book.paragraphs.index_at(quote.start)
        key = paragraph if paragraph is not None else -1 - quote.start
        if turns and (turns[-1].paragraph == key or "continuation" in quote.flags):
            turns[-1].quotes.append(quote)
            turns[-1].end = quote.end
            turns[-1].paragraph = key
        else:
            turns.append(Turn([quote], key, key, quote.start, quote.end))
    conversation = 0
    for previous, turn in itertools.pairwise(turns):
        if _narration_between(book, previous, turn) > CONVERSATION_GAP_CHARS:
            conversation += 1
        turn.conversation = conversation
    return turns


def _narration_between(book: Book, previous: Turn, turn: Turn) -> int:
    if previous.paragraph < 0 or turn.paragraph < 0:
        return turn.start - previous.end
    chapter_a, chapter_b = book.chapter_at(previous.start), book.chapter_at(turn.start)
    if chapter_a is not chapter_b:
        return CONVERSATION_GAP_CHARS + 1
    paragraphs = book.paragraphs
    total = int(paragraphs.ends[previous.paragraph]) - previous.end
    for i in range(previous.paragraph + 1, turn.first_paragraph):
        total += int(paragraphs.ends[i] - paragraphs.starts[i])
    return total + turn.start - int(paragraphs.starts[turn.first_paragraph])


# --- pass 1: speech tags and beats ------------------------------------------------------------------


@dataclass(slots=True)
class _Candidate:
    character_id: str
    mention: Span
    kind: str  # "name" | "title" | "pronoun"
    rule: str  # "tag" | "beat"
    confidence: float


def _tag_pass(context: SieveContext, turns: list[Turn], index: int) -> None:
    turn = turns[index]
    found: list[tuple[Quote, _Candidate]] = []
    for position, quote in enumerate(turn.quotes):
        candidate = _find_tag(context, turns, index, quote, _clauses(context, turn, position))
        if candidate is not None:
            found.append((quote, candidate))
            _apply(quote, candidate.character_id, candidate.rule, candidate.confidence, candidate.mention)
            quote.type = "explicit" if candidate.kind == "name" else "anaphoric"
    if found:
        best = max(found, key=lambda qc: qc[1].confidence)[1]
        turn.speaker, turn.rule, turn.confidence = best.character_id, best.rule, best.confidence


def _clauses(
    context: SieveContext, turn: Turn, position: int
) -> list[tuple[str, int, int, list[tuple[int, int, str]]]]:
    """The clause of each narration region of the turn's ``position``-th quote (`_narration_regions`,
    `_clause`) that has one: (where, its start and end, its words lowercased with their offsets);
    computed once per quote.

    Across the cuts of one book they are kept (`SieveContext.clause_memo`) for a quote that ends at least
    `_TAG_CHARS` before the cut's last paragraph: they read the quote's paragraph (or the `_TAG_CHARS`
    around a quote outside every paragraph), the paragraph before it, the text in between and the ends of
    the neighbouring quotes of the turn (the key). Every paragraph but a cut's last is the whole book's
    (`Book.truncated` clips only the last), so in every cut where the quote ends that far before the last
    paragraph these are the same paragraphs and the same characters, and the clauses are the same."""
    key = (turn.start, position)
    found = context.clauses.get(key)
    if found is None:
        quote = turn.quotes[position]
        memo = context.clause_memo
        kept = None
        if memo is not None and quote.end + _TAG_CHARS <= context.last_paragraph:
            kept = (
                tuple((span.start, span.end) for span in quote.spans),
                turn.quotes[position - 1].end if position > 0 else None,
                turn.quotes[position + 1].start if position + 1 < len(turn.quotes) else None,
                context.learned_verbs,
            )
            found = memo.get(kept)
            if found is not None:
                context.clauses[key] = found
                return found
        text = context.book.text
        found = context.clauses[key] = []
        for start, end, where in _narration_regions(context.book, turn, position, context.verbs):
            clause = _clause(text, start, end, where)
            if clause is not None:
                c_start, c_end = clause
                words = [
                    (m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text, c_start, c_end)
                ]
                found.append((where, c_start, c_end, words))
        if memo is not None and kept is not None:
            memo[kept] = found
    return found


def _narration_regions(
    book: Book, turn: Turn, position: int, verbs: frozenset[str]
) -> list[tuple[int, int, str]]:
    """Where a tag of the turn's ``position``-th quote may be: its interruptions (``"inside"``), the
    narration after it up to the next quote or the paragraph's end, and the narration before it (for
    a quote that opens its paragraph, a lead-in paragraph before it: ``Mr. Ashdown replied,``)."""
    quote = turn.quotes[position]
    p_start, p_end = _paragraph_bounds(book, quote)
    after_end = min(p_end, turn.quotes[position + 1].start) if position + 1 < len(turn.quotes) else p_end
    before_start = max(p_start, turn.quotes[position - 1].end) if position > 0 else p_start
    if position == 0 and not book.text[p_start : quote.start].strip(_OPENING_MARKS):
        before_start = _lead_in_start(book, quote, p_start, verbs)
    regions = [(a.end, b.start, "inside") for a, b in itertools.pairwise(quote.spans)]
    regions.append((quote.end, after_end, "after"))
    regions.append((before_start, quote.start, "before"))
    return regions


_LAST_WORDS = re.compile(r"(?:[A-Za-z]+\s+){0,2}[A-Za-z]+\Z")


def _ends_with_speech_verb(tail: str, verbs: frozenset[str]) -> bool:
    """A paragraph that ends, with no punctuation, in a speech verb (or "thus") among its last three
    words: ``Mr. Mottram … replied thus`` / ``and exclaiming`` / ``thus accosted her``."""
    match = _LAST_WORDS.search(tail[-60:])
    return match is not None and any(w.lower() in verbs or w.lower() == "thus" for w in match.group().split())


def _lead_in_start(book: Book, quote: Quote, p_start: int, verbs: frozenset[str]) -> int:
    """Where the "before" region starts for a quote that opens its paragraph: the narration paragraph
    before it when that one leads into the speech (``Mr. Ashdown replied,`` / ``Nora continued:``)."""
    paragraph = book.paragraphs.index_at(quote.start)
    if paragraph is None or paragraph == 0:
        return p_start
    prev_start = int(book.paragraphs.starts[paragraph - 1])
    prev_end = int(book.paragraphs.ends[paragraph - 1])
    tail = book.text[prev_start:prev_end].rstrip()
    if not tail or tail[-1:] in _CLOSING_MARKS:
        return p_start
    if tail[-1] not in ":,-—" and not _ends_with_speech_verb(tail, verbs):
        return p_start
    last_mark = max(tail.rfind(mark) for mark in _CLOSING_MARKS)
    return prev_start + last_mark + 1 if last_mark >= 0 else prev_start


def _paragraph_bounds(book: Book, quote: Quote) -> tuple[int, int]:
    paragraph = book.paragraphs.index_at(quote.start)
    if paragraph is None:
        return max(book.body.start, quote.start - _TAG_CHARS), min(book.body.end, quote.end + _TAG_CHARS)
    return int(book.paragraphs.starts[paragraph]), int(book.paragraphs.ends[paragraph])


def _find_tag(
    context: SieveContext,
    turns: list[Turn],
    index: int,
    quote: Quote,
    clauses: list[tuple[str, int, int, list[tuple[int, int, str]]]],
) -> _Candidate | None:
    """A speech tag or beat for one quote in the clauses of its narration regions (`_clauses`)."""
    text = context.book.text
    beats: list[_Candidate] = []
    for where, c_start, c_end, words in clauses:
        verbs = [w for w in words if w[2] in context.verbs]
        mentions = _clause_mentions(context, turns, index, c_start, c_end, words)
        if not mentions:
            continue
        if verbs:
            verb = verbs[0] if where != "before" else verbs[-1]
            # the nearest mention; on a tie the one before the verb, the subject ("I asked Nick")
            best = min(
                mentions, key=lambda c: (_distance(c.mention, verb[0], verb[1]), c.mention.start > verb[0])
            )
            if where == "before":
                best = _subject(text, mentions, verbs, verb) or best
            reach = _SUBJECT_CHARS if where == "before" else _TAG_VERB_REACH
            if _distance(best.mention, verb[0], verb[1]) <= reach:
                best.rule = "tag"
                best.confidence = TAG_NAME_CONFIDENCE if best.kind == "name" else TAG_PRONOUN_CONFIDENCE
                return best
        if where != "before" or text[c_end - 1 : c_end] in ":,":
            first = min(mentions, key=lambda c: c.mention.start)
            # a beat: the clause is about this character (its first mention, early in the clause)
            if first.kind != "pronoun" and first.mention.start - c_start <= _BEAT_NAME_REACH:
                first.rule, first.confidence = "beat", BEAT_NAME_CONFIDENCE
                beats.append(first)
            elif (
                first.kind == "pronoun"
                and first.mention.start - c_start <= _BEAT_PRONOUN_REACH
                and where != "before"
            ):
                first.rule, first.confidence = "beat", BEAT_PRONOUN_CONFIDENCE
                beats.append(first)
    return beats[0] if beats else None


def _subject(
    text: str, mentions: list[_Candidate], verbs: list[tuple[int, int, str]], verb: tuple[int, int, str]
) -> _Candidate | None:
    """The subject of a lead-in clause's speech verb: a mention right before the verb (``than Nora
    exclaimed``), else the first mention after the previous speech verb, which skips names inside an
    aside (``Mr. Ashdown, drawing near Imogen, said to her,``)."""
    previous_verb_end = max((v[1] for v in verbs if v[1] <= verb[0]), default=-1)
    subjects = [c for c in mentions if previous_verb_end <= c.mention.start and c.mention.end <= verb[0]]
    if not subjects:
        return None
    nearest = max(subjects, key=lambda c: c.mention.start)
    between = text[nearest.mention.end : verb[0]]
    if "," not in between and len(between) <= _SUBJECT_GAP_CHARS:
        return nearest
    # the last mention that starts a clause ("Royce rose, but Ottilie rose too, and saying,"),
    # which skips objects ("Lucinda, embracing Honoria, thus began:")
    starts = [
        c
        for c in subjects
        if _STARTS_CLAUSE.search(text, max(0, c.mention.start - 40), c.mention.start) is not None
    ]
    if starts:
        return max(starts, key=lambda c: c.mention.start)
    first = min(subjects, key=lambda c: c.mention.start)
    return first if verb[0] - first.mention.end <= _SUBJECT_CHARS else nearest


def _distance(span: Span, start: int, end: int) -> int:
    if span.end <= start:
        return start - span.end
    if span.start >= end:
        return span.start - end
    return 0


def _clause(text: str, start: int, end: int, where: str) -> tuple[int, int] | None:
    """The narration clause adjacent to the quote: after it up to the first sentence end, before it
    back to the previous sentence end; inside an interruption, the whole gap."""
    if end <= start:
        return None
    if where == "inside":
        return start, min(end, start + _TAG_CHARS * 2)
    if where == "after":
        skip = start
        while skip < end and text[skip] in "\"'”’»」!?.,;: \n-—":
            skip += 1
        clause_end = _clause_end(text, skip, min(end, skip + _TAG_CHARS))
        return (skip, clause_end) if clause_end > skip else None
    # before: from the last clause end before the quote
    window_start = max(start, end - _LEAD_IN_CHARS)
    stop_at = end
    while stop_at > window_start and text[stop_at - 1] in "\"'“‘«「 \n":
        stop_at -= 1
    last = window_start
    for m in re.finditer(r"[.!?;]\s|\n\s*\n", text[window_start:stop_at]):
        word = re.search(
            r"([A-Za-z]+)$", text[max(window_start, window_start + m.start() - 6) : window_start + m.start()]
        )
        if m.group().startswith(".") and word is not None and word.group(1).lower() in HONORIFICS:
            continue
        last = window_start + m.end()
    return (last, stop_at) if stop_at > last else None


def _clause_end(text: str, start: int, end: int) -> int:
    """The first sentence or clause end in ``[start, end)``; the period of "Mr." is not one."""
    position = start
    while True:
        stop = _CLAUSE_END.search(text, position, end)
        if stop is None:
            return end
        if stop.group() == ".":
            word = re.search(r"([A-Za-z]+)$", text[max(start, stop.start() - 6) : stop.start()])
            if word is not None and word.group(1).lower() in HONORIFICS:
                position = stop.end()
                continue
        return stop.start()


def _clause_mentions(
    context: SieveContext,
    turns: list[Turn],
    index: int,
    start: int,
    end: int,
    words: list[tuple[int, int, str]],
) -> list[_Candidate]:
    out: list[_Candidate] = []
    for mention in context.names.between(start, end):
        if mention.character_id is not None:
            out.append(_Candidate(mention.character_id, mention.span, mention.kind, "", 0.0))
    for w_start, w_end, word in words:
        gender = _PRONOUNS.get(word)
        if gender is None:
            continue
        character_id, step = _resolve_pronoun(context, turns, index, w_start, gender)
        if character_id is not None:
            turns[index].pronoun_steps[w_start] = step
            out.append(_Candidate(character_id, Span(w_start, w_end), "pronoun", "", 0.0))
    return out


def _resolve_pronoun(
    context: SieveContext, turns: list[Turn], index: int, offset: int, gender: str
) -> tuple[str | None, str]:
    """A tag pronoun: "I" is the narrator; he/she is the most recent conversation participant of that
    gender other than the previous turn's speaker, else what the mention layer says. Also returns
    which step decided (the ranker weighs the steps differently)."""
    if gender == "first":
        return context.narrator_id, "narrator"
    turn = turns[index]
    addressed = set(turn.vocatives)  # a speaker does not name themself: "Hello, Hal," he said
    previous_turn = (
        turns[index - 1] if index > 0 and turns[index - 1].conversation == turn.conversation else None
    )
    previous = previous_turn.speaker if previous_turn is not None else None
    if previous_turn is not None:
        for candidate in previous_turn.vocatives:
            if candidate != previous and candidate not in addressed and context.gender(candidate) == gender:
                return candidate, "addressed"  # the one just addressed answers
    local, where = _narration_antecedent(context, turn, offset, gender, addressed)
    if local is not None:
        return local, where
    seen: list[str] = []
    for back in range(index - 1, max(-1, index - 1 - PARTICIPANT_TURNS), -1):
        other = turns[back]
        if other.conversation != turn.conversation:
            break
        for who in [other.speaker, *other.vocatives]:
            if who is not None and who not in seen and who not in addressed:
                seen.append(who)
    matching = [c for c in seen if context.gender(c) == gender]
    if previous is not None and len(matching) > 1:
        matching = [c for c in matching if c != previous] or matching
    mention = context.pronoun_at.get(offset)
    layer = mention.character_id if mention is not None else None
    if (
        layer is not None
        and layer not in addressed
        and (not matching or (layer in matching and layer != previous))
    ):
        return layer, "layer"
    if matching:
        return matching[0], "participant"
    return layer, "layer"


def _narration_antecedent(
    context: SieveContext, turn: Turn, offset: int, gender: str, excluded: set[str]
) -> tuple[str | None, str]:
    """The last character of that gender named in the narration before the pronoun: in its own
    paragraph, else in the paragraph before it when that one is pure narration."""
    paragraphs = context.book.paragraphs
    paragraph = paragraphs.index_at(offset)
    if paragraph is None:
        return None, ""
    inside = [(s.start, s.end) for q in turn.quotes for s in q.spans]
    start = int(paragraphs.starts[paragraph])
    found = _last_named(context, start, offset, gender, excluded, inside)
    if found is not None:
        return found, "paragraph"
    if paragraph > 0 and offset - start < _NARRATION_ANTECEDENT_CHARS:
        p_start, p_end = int(paragraphs.starts[paragraph - 1]), int(paragraphs.ends[paragraph - 1])
        if not _has_quote_mark(context.book.text[p_start:p_end]):
            return _last_named(context, p_start, p_end, gender, excluded, []), "narration"
    return None, ""


def _has_quote_mark(text: str) -> bool:
    return any(mark in text for mark in '"“”«»「」')


def _last_named(
    context: SieveContext,
    start: int,
    end: int,
    gender: str,
    excluded: set[str],
    inside: list[tuple[int, int]],
) -> str | None:
    for mention in reversed(context.names.between(start, end)):
        character_id = mention.character_id
        if character_id is None or character_id in excluded or any(a <= mention.start < b for a, b in inside):
            continue
        if context.gender(character_id) == gender:
            return character_id
    return None


# --- passes 3-6: conversation structure -------------------------------------------------------------


def _conversation_passes(context: SieveContext, turns: list[Turn]) -> None:
    changed = True
    rounds = 0
    while changed and rounds < _CONVERSATION_ROUNDS:
        changed = False
        rounds += 1
        for index, turn in enumerate(turns):
            if turn.speaker is not None:
                continue
            guess = _conversation_guess(context, turns, index)
            if guess is not None:
                turn.speaker, turn.rule, turn.confidence = guess
                changed = True
    for index, turn in enumerate(turns):
        if turn.speaker is None:
            guess = _fallback(turns, index)
            if guess is not None:
                turn.speaker, turn.rule, turn.confidence = guess


def _same_conversation(turns: list[Turn], a: int, b: int) -> bool:
    return 0 <= a < len(turns) and 0 <= b < len(turns) and turns[a].conversation == turns[b].conversation


def _conversation_guess(
    context: SieveContext, turns: list[Turn], index: int
) -> tuple[str, str, float] | None:
    turn = turns[index]
    previous = turns[index - 1] if _same_conversation(turns, index - 1, index) else None
    if previous is not None and previous.speaker is not None:
        addressed = [v for v in previous.vocatives if v != previous.speaker]
        if addressed:
            return addressed[0], "vocative", VOCATIVE_CONFIDENCE
    if _same_conversation(turns, index - 2, index):
        before_last, last = turns[index - 2], turns[index - 1]
        if (
            before_last.speaker is not None
            and before_last.speaker != last.speaker
            and last.speaker is not None
        ):
            return before_last.speaker, "alternation", ALTERNATION_CONFIDENCE
    if _same_conversation(turns, index, index + 2):
        after_next, following = turns[index + 2], turns[index + 1]
        if (
            after_next.speaker is not None
            and following.speaker is not None
            and after_next.speaker != following.speaker
        ) and after_next.rule in ("tag", "beat", "vocative"):
            return after_next.speaker, "alternation", ALTERNATION_AHEAD_CONFIDENCE
    mention = _paragraph_mention(context, turn)
    if mention is not None:
        return mention, "paragraph", PARAGRAPH_CONFIDENCE
    return None


def _paragraph_mention(context: SieveContext, turn: Turn) -> str | None:
    """The first character named in the narration of the turn's paragraph."""
    if turn.paragraph < 0:
        return None
    start = int(context.book.paragraphs.starts[turn.first_paragraph])
    end = int(context.book.paragraphs.ends[turn.first_paragraph])
    inside = [(s.start, s.end) for q in turn.quotes for s in q.spans]
    for mention in context.names.between(start, end):
        if not any(a <= mention.start < b for a, b in inside):
            return mention.character_id
    return None


def _fallback(turns: list[Turn], index: int) -> tuple[str, str, float] | None:
    turn = turns[index]
    previous = turns[index - 1].speaker if _same_conversation(turns, index - 1, index) else None
    for back in range(index - 1, max(-1, index - 1 - PARTICIPANT_TURNS), -1):
        other = turns[back]
        if other.conversation != turn.conversation:
            break
        if other.speaker is not None and other.speaker != previous:
            return other.speaker, "recent", RECENT_CONFIDENCE
    for forward in range(index + 1, min(len(turns), index + 1 + PARTICIPANT_TURNS)):
        other = turns[forward]
        if other.conversation != turn.conversation:
            break
        if other.speaker is not None and other.speaker != previous:
            return other.speaker, "recent", RECENT_AHEAD_CONFIDENCE
    return None


def _vocatives(context: SieveContext, turn: Turn) -> list[str]:
    """Characters addressed by name inside the turn's quotes (``"Oh, Tamsin!"``, ``"Tamsin, come."``)."""
    text = context.book.text
    out: list[str] = []
    for quote in turn.quotes:
        for span in quote.spans:
            for mention in context.names.between(span.start, span.end):
                if (
                    is_vocative(text, mention.start, mention.end, (span.start, span.end))
                    and mention.character_id is not None
                    and mention.character_id not in out
                ):
                    out.append(mention.character_id)
    return out


# --- output -----------------------------------------------------------------------------------------


def _apply(quote: Quote, speaker: str, rule: str, confidence: float, mention: Span | None) -> None:
    quote.speaker_id = speaker
    quote.method = "ranker" if rule == "ranker" else f"rules:{rule}"
    quote.confidence = confidence
    quote.mention = mention


def _finish(
    context: SieveContext,
    turns: list[Turn],
    index: int,
    inward: list[bool],
    clauses: list[list[tuple[str, list[tuple[int, int, str]]]]],
) -> None:
    turn = turns[index]
    neighbours: list[str] = []
    for other in (index - 1, index + 1):
        if _same_conversation(turns, other, index) and turns[other].speaker is not None and not inward[other]:
            neighbours.append(turns[other].speaker or "")
    for position, quote in enumerate(turn.quotes):
        if quote.speaker_id is None and turn.speaker is not None:
            _apply(quote, turn.speaker, turn.rule or "turn", turn.confidence, None)
            quote.type = "implicit"
        elif quote.speaker_id is None:
            quote.method, quote.confidence, quote.type = "rules:none", 0.0, "implicit"
        words = [w for _, clause in clauses[position] for w in clause]
        quote.addressee_ids = _addressees(context, turn, position, neighbours, inward[index], words)


# --- addressees -------------------------------------------------------------------------------------

_SELF = frozenset({"himself", "herself", "itself", "themselves", "myself", "ourselves", "yourself"})
_THOUGHT_VERBS = frozenset(
    {
        "thought",
        "thinks",
        "think",
        "thinking",
        "wondered",
        "wonders",
        "mused",
        "muses",
        "reflected",
        "reasoned",
    }
)
_TO_BEFORE_NAME = re.compile(
    r"\bto\s+(?:the\s+)?\Z", re.IGNORECASE
)  # "said the Mock Heron to (the) |Basilisk"
_TO_REACH = 14  # how far before a name its "to" may start ("to the " is 7)


def _tag_clauses(
    context: SieveContext, turn: Turn, position: int
) -> list[tuple[str, list[tuple[int, int, str]]]]:
    """The tag clauses next to the turn's ``position``-th quote: (where, its words lowercased)."""
    return [(where, words) for where, _, _, words in _clauses(context, turn, position)]


_INWARD_REACH = (
    3  # a thought verb is a tag only this close to the quote ('"…," thought Alice' / 'she thought')
)


def _inward(clauses: list[list[tuple[str, list[tuple[int, int, str]]]]]) -> bool:
    """A thought or self-talk: a thought verb right next to the quote (``thought Alice``, ``she
    thought``) or ``to herself`` in a tag clause (``clauses``: `_tag_clauses` of each of the turn's
    quotes)."""
    for of_quote in clauses:
        for where, clause in of_quote:
            words = [w for _, _, w in clause]
            near = words[-_INWARD_REACH:] if where == "before" else words[:_INWARD_REACH]
            if any(w in _THOUGHT_VERBS for w in near):
                return True
            if any(a == "to" and b in _SELF for a, b in itertools.pairwise(words)):
                return True
    return False


def _addressees(
    context: SieveContext,
    turn: Turn,
    position: int,
    neighbours: list[str],
    inward: bool,
    words: list[tuple[int, int, str]],
) -> list[str]:
    """Whom a quote addresses: no one for a thought or self-talk; a character named after ``to`` in
    its tag clause (``said the Mock Heron to the Basilisk``: ``words`` are those of the tag clauses
    next to the quote, lowercased); else the people it addresses by name; else the speaker of a
    neighbouring turn of the conversation (no one when nobody else spoke)."""
    quote = turn.quotes[position]
    if inward:
        return []
    if words and any(w in context.verbs for _, _, w in words):
        text = context.book.text
        for mention in context.names.between(words[0][0], words[-1][1]):
            if mention.character_id != quote.speaker_id and _TO_BEFORE_NAME.search(
                text, max(0, mention.start - _TO_REACH), mention.start
            ):
                return [mention.character_id or ""]
    addressees = [v for v in turn.vocatives if v != quote.speaker_id]
    return addressees or [n for n in neighbours if n and n != quote.speaker_id][:1]
