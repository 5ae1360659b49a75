"""Gender guesses from honorifics in a character's names and the pronouns that follow its mentions;
failing those, or where fewer than `PRONOUNS_OVER_GIVEN_NAME` pronouns disagree with it, from the usual
gender of the character's given name (US census first names: "Mavis" named twice in scenes full of men
stays female; a man the book calls "he" again and again stays a man whatever his name).

A pronoun votes only where it stands on the same side of the quotation marks as the mention: in
'said the Basilisk, "It's all his fancy"' the speaker's "his" is someone else's. A title ("the Basilisk")
has no given name to check its pronouns against, so a "he"/"she" after it votes only when no other
character of that gender, known from an honorific or a given name, was named just before it: the "she"
near the Basilisk is the heroine's. What is left gives a gender to the creatures a book calls both "it" and
"he", and none to those it calls only "it" ("the Lamplighter")."""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from collections.abc import Collection

from fabula.book import Book, Character, Mention
from fabula.characters._lexicon import (
    CLEAR_GIVEN_NAME,
    HONORIFICS,
    PRONOUN_GENDER,
    given_name_gender,
)
from fabula.characters._text import dialogue_regions, split_honorific, whole_words

_LOOKAHEAD = 160  # characters after a mention searched for the first third-person pronoun
_THIRD_PERSON = whole_words(["he", "him", "his", "himself", "she", "her", "hers", "herself"], re.IGNORECASE)
_HONORIFIC_WEIGHT = 5.0
_GIVEN_NAME_CONFIDENCE = 0.5  # a census gender is a prior, not evidence from the book
#: after a title ("the Badger", "the Lamplighter") "it" counts too: a creature the book calls "it"
_THIRD_PERSON_OR_IT = whole_words(
    ["he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its", "itself"], re.IGNORECASE
)
#: characters before a mention where another character of a pronoun's gender makes it ambiguous
RIVAL_WINDOW = 300
#: "he"/"she" votes a creature the book mostly calls "it" needs to be given a gender ("the Basilisk")
MIN_GENDERED_BESIDE_IT = 2
#: pronoun votes that, with the 60 % share every pronoun gender needs, outweigh a clear given name of
#: the other gender (not an honorific: "Mrs." is read from the book); only votes with no other character
#: of that gender named in the `RIVAL_WINDOW` before count (in "she nodded to the servant, and he bowed"
#: just after a man is named, the "he" is not hers). The census prior is wrong for a man called by a
#: name most Americans give to women ("Jean", "Andrea" in translated novels). Leave-one-novel-out over
#: 1/3/5/10 picks 1 (the real names tie; the swap-gender runs favour 1); 3 is kept against that pick
#: because one vote agrees with the gold gender only ~75 % of the time, a likelihood ratio of ~3 against
#: a census ratio of ≥ 10 (docs/benchmarks.md, issue 28 eleventh session: genders)
PRONOUNS_OVER_GIVEN_NAME = 3


def estimate_genders(
    book: Book, characters: list[Character], names: list[Mention], names_only: Collection[str] = ()
) -> None:
    """Set ``gender``/``gender_confidence`` on characters whose gender is not already known; those in
    ``names_only`` (entries the book gives too little person evidence for: a "he" after a book's or a
    place's name is someone else's) get theirs from a clear given name alone ("Griselda", "Mavis"), the
    prior every entry falls back on, and none from pronouns or honorifics (measured: docs/benchmarks.md,
    issue 28 eleventh session)."""
    votes: dict[str, dict[str, float]] = defaultdict(lambda: {"male": 0.0, "female": 0.0, "neuter": 0.0})
    given: dict[str, Counter[str]] = defaultdict(Counter)  # character -> untitled first words of its names
    text = book.text
    dialogue = dialogue_regions(book)
    for m in names:
        if m.character_id is None:
            continue
        surface = text[m.start : m.end]
        honorific, _ = split_honorific(surface)
        if honorific is None and m.kind == "name":
            given[m.character_id][surface.split()[0]] += 1
        implied = HONORIFICS.get(honorific or surface.lower().removeprefix("the ").rstrip("."), "unknown")
        if implied != "unknown":
            votes[m.character_id][implied] += _HONORIFIC_WEIGHT
    known = _known_genders(characters, votes, given)
    # known by a given name alone (no honorific): the census prior, which enough pronouns outweigh
    by_given_name = {cid for cid in known if cid not in votes or votes[cid]["male"] == votes[cid]["female"]}
    seen: dict[str, tuple[list[int], list[str]]] = {g: ([], []) for g in ("male", "female")}
    unrivalled: dict[str, Counter[str]] = defaultdict(Counter)  # votes with no rival named just before
    for m in names:
        g = known.get(m.character_id or "")
        if g in seen:
            seen[g][0].append(m.start)
            seen[g][1].append(m.character_id or "")
    for i, m in enumerate(names):
        if m.character_id is None:
            continue
        limit = min(m.end + _LOOKAHEAD, names[i + 1].start if i + 1 < len(names) else len(text))
        pronoun = (_THIRD_PERSON_OR_IT if m.kind == "title" else _THIRD_PERSON).search(text, m.end, limit)
        if pronoun is None or dialogue.index(pronoun.start()) != dialogue.index(m.start):
            continue  # '"It's all his fancy," said the Basilisk': a speaker's "his" is someone else's
        gender = PRONOUN_GENDER.get(pronoun.group().lower(), "neuter")
        rival = gender in seen and _rival(seen[gender], m.character_id, m.start)
        if m.kind == "title" and rival:
            continue
        votes[m.character_id][gender] += 1
        if not rival:
            unrivalled[m.character_id][gender] += 1
    for character in characters:
        if character.gender != "unknown":
            continue
        if character.id in names_only:
            _from_given_name(character, given[character.id])
            continue
        v = votes.get(character.id, {"male": 0.0, "female": 0.0, "neuter": 0.0})
        total = v["male"] + v["female"]
        if v["neuter"] > total and total < MIN_GENDERED_BESIDE_IT:
            continue  # "the Lamplighter ... it": no gender to give
        if total < 1:
            _from_given_name(character, given[character.id])
            continue
        gender = "male" if v["male"] >= v["female"] else "female"
        share = max(v["male"], v["female"]) / total
        confidence = share * total / (total + 2)  # few votes -> lower confidence
        agrees = known.get(character.id, gender) == gender or (
            character.id in by_given_name and unrivalled[character.id][gender] >= PRONOUNS_OVER_GIVEN_NAME
        )
        if share >= 0.6 and agrees:
            character.gender = gender  # type: ignore[assignment]
            character.gender_confidence = round(confidence, 3)
        else:  # the pronouns are unclear, or too few to outweigh a clear given name ("Mavis")
            _from_given_name(character, given[character.id])


def _known_genders(
    characters: list[Character], votes: dict[str, dict[str, float]], given: dict[str, Counter[str]]
) -> dict[str, str]:
    """Genders that need no pronoun: already set, from honorifics, or a clear given name."""
    out: dict[str, str] = {}
    for c in characters:
        if c.gender in ("male", "female"):
            out[c.id] = c.gender
            continue
        v = votes.get(c.id)
        if v and v["male"] != v["female"]:
            out[c.id] = "male" if v["male"] > v["female"] else "female"
            continue
        for word, _ in given[c.id].most_common(1):
            g = given_name_gender(word, CLEAR_GIVEN_NAME)
            if g != "unknown":
                out[c.id] = g
    return out


def _rival(seen: tuple[list[int], list[str]], character_id: str, start: int) -> bool:
    """Whether another character of this gender was named in the `RIVAL_WINDOW` before ``start``."""
    positions, ids = seen
    i = bisect.bisect_left(positions, start) - 1
    while i >= 0 and positions[i] >= start - RIVAL_WINDOW:
        if ids[i] != character_id:
            return True
        i -= 1
    return False


def _from_given_name(character: Character, first_words: Counter[str]) -> None:
    """The usual gender of the character's most used untitled given name ("Robert", "Agnes"), when
    honorifics and pronouns left it open; a modest confidence, since census names are a prior."""
    for word, _ in first_words.most_common():
        gender = given_name_gender(word, CLEAR_GIVEN_NAME)
        if gender != "unknown":
            character.gender = gender
            character.gender_confidence = _GIVEN_NAME_CONFIDENCE
            return
