"""Pronoun mentions resolved to characters with a light recency + gender + subject heuristic.

Not a coreference system: good enough to find the passages about a character (retrieval) and to
estimate gender. Third-person pronouns in narration go to the most recent gender-compatible mention
(preferring a sentence subject), within a short window; each resolved pronoun becomes an antecedent
itself, so chains ("Nora ... She ... her") carry on. First-person pronouns in narration go to the
narrator of a first-person novel; inside a quotation they go to the quote's speaker when quote
attribution has already run, and are otherwise left alone ('I' in dialogue is not the narrator).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from fabula.book import Book, Character, Mention, prefix_layers, prefix_stable
from fabula.characters._lexicon import FIRST_PERSON_PRONOUNS, PERSON_VERBS, PRONOUN_GENDER
from fabula.characters._text import Regions, follows_speech, is_sentence_initial, whole_words

WINDOW = 600  # characters: an antecedent further back than this is not used
#: a whole word I, he, him, his, himself, she, her, hers, herself, me, my, myself or mine (the first letter
#: of either case)
_THIRD_PERSON_WORDS = ("he", "him", "his", "himself", "she", "her", "hers", "herself")
_PRONOUN = whole_words(
    ["I"]
    + [
        form
        for word in (*_THIRD_PERSON_WORDS, "me", "my", "myself", "mine")
        for form in (word, word.capitalize())
    ]
)
FIRST_PERSON_SHARE = 0.3  # share of narration pronouns that are first person in a first-person novel


@dataclass(slots=True)
class _Antecedent:
    position: int
    character_id: str
    subject: bool
    gender: (
        str  # the character's ("unknown" for one not in the cast), read once, not at every pronoun after it
    )


def _pronoun_gender(word: str) -> str:
    return PRONOUN_GENDER.get(word.lower(), "first")


PronounMatch = tuple[int, int, str]  # start, end and text of one personal pronoun of the body


def pronoun_matches(book: Book) -> list[PronounMatch]:
    """Every personal pronoun of the book's body: one scan for `is_first_person` and `resolve_pronouns`.
    A prefix-stable layer (`fabula.book.PrefixLayers`): a pronoun's match reads the word and one
    character before and after it; on a cut book those before `PrefixLayers.settled` come from the
    whole book's scan."""
    layers = prefix_layers(book)
    if layers is None:
        return _pronoun_scan(book.text, book.body.start, book.body.end)
    whole = layers.layer("characters.pronouns")
    kept = bisect.bisect_left(whole, layers.settled(book), key=lambda match: match[0])
    resume = whole[kept - 1][1] if kept else book.body.start
    return whole[:kept] + _pronoun_scan(book.text, resume, book.body.end)


@prefix_stable("characters.pronouns")
def _whole_pronouns(book: Book) -> list[PronounMatch]:
    return _pronoun_scan(book.text, book.body.start, book.body.end)


def _pronoun_scan(text: str, start: int, end: int) -> list[PronounMatch]:
    return [(m.start(), m.end(), m.group()) for m in _PRONOUN.finditer(text, start, end)]


def is_first_person(book: Book, dialogue: Regions, pronouns: list[PronounMatch] | None = None) -> bool:
    """Whether the narration (text outside quotes) is told in the first person (``pronouns``: the
    book's `pronoun_matches`, when the caller has them)."""
    first = third = 0
    for start, _, word in pronoun_matches(book) if pronouns is None else pronouns:
        if start in dialogue:
            continue
        if word.lower() in FIRST_PERSON_PRONOUNS:
            first += 1
        else:
            third += 1
    return first >= 50 and first >= FIRST_PERSON_SHARE * (first + third)


def resolve_pronouns(
    book: Book,
    name_mentions: list[Mention],
    characters: list[Character],
    dialogue: Regions,
    narrator_id: str | None,
    pronouns: list[PronounMatch] | None = None,
) -> list[Mention]:
    """Pronoun mentions (kind "pronoun") with the character each most likely refers to (``pronouns``:
    the book's `pronoun_matches`, when the caller has them)."""
    gender = {c.id: c.gender for c in characters}
    speaker_regions: list[str | None] = []
    if book.quotes:
        spans = [(s.start, s.end, q.speaker_id) for q in book.quotes for s in q.spans]
        spans.sort()
        speaker_regions = [sid for _, _, sid in spans]
    text = book.text
    out: list[Mention] = []
    recent: list[_Antecedent] = []  # antecedents in narration, oldest first
    names = iter(name_mentions)
    next_name = next(names, None)
    for pos, pos_end, word in pronoun_matches(book) if pronouns is None else pronouns:
        while next_name is not None and next_name.start < pos:
            if next_name.character_id is not None and next_name.start not in dialogue:
                cid = next_name.character_id
                recent.append(
                    _Antecedent(
                        next_name.start, cid, _is_subject(text, next_name), gender.get(cid, "unknown")
                    )
                )
            next_name = next(names, None)
        kind = _pronoun_gender(word)
        region = dialogue.index(pos)
        if kind == "first":
            if region >= 0:
                if speaker_regions and region < len(speaker_regions) and speaker_regions[region]:
                    out.append(Mention(pos, pos_end, speaker_regions[region], "pronoun", 0.9))
            elif narrator_id is not None:
                out.append(Mention(pos, pos_end, narrator_id, "pronoun", 0.9))
            continue
        if region >= 0:
            continue  # third-person pronouns inside dialogue: too unreliable for this heuristic
        while recent and pos - recent[0].position > WINDOW:
            recent.pop(0)
        compatible = [a for a in recent if a.gender == kind or a.gender == "unknown"]
        if not compatible:
            continue
        sure = [a for a in compatible if a.gender == kind]
        pool = sure or compatible
        subject_pronoun = word.lower() in {"he", "she"}
        best = pool[-1]
        if subject_pronoun and (is_sentence_initial(text, pos) or follows_speech(text, pos)):
            subjects = [a for a in pool if a.subject]
            if subjects and pos - subjects[-1].position <= WINDOW // 2:
                best = subjects[-1]
        rivals = (
            len({a.character_id for a in pool}) > 1
        )  # someone in the pool besides the best (who is in it)
        confidence = 0.75 if not rivals else 0.45
        if not sure:
            confidence -= 0.2
        confidence -= 0.2 * (pos - best.position) / WINDOW
        out.append(Mention(pos, pos_end, best.character_id, "pronoun", round(max(confidence, 0.05), 3)))
        recent.append(_Antecedent(pos, best.character_id, subject_pronoun, best.gender))
    return out


def _is_subject(text: str, mention: Mention) -> bool:
    """A name that starts its sentence or is followed by a verb-like word is taken as a subject."""
    if is_sentence_initial(text, mention.start) or follows_speech(text, mention.start):
        return True
    follow = text[mention.end : mention.end + 20].split(None, 1)
    return bool(follow) and follow[0].lower().strip(",;") in PERSON_VERBS
