"""Gender guesses from honorifics in a character's names and the pronouns that follow its mentions;
failing those, from the usual gender of the character's given name (US census first names)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from fabula.book import Book, Character, Mention
from fabula.characters._lexicon import (
    CLEAR_GIVEN_NAME,
    HONORIFICS,
    PRONOUN_GENDER,
    given_name_gender,
)
from fabula.characters._text import split_honorific

_LOOKAHEAD = 160  # characters after a mention searched for the first third-person pronoun
_THIRD_PERSON = re.compile(r"(?<![\w'’])(?:he|him|his|himself|she|her|hers|herself)(?![\w'’])", re.IGNORECASE)
_HONORIFIC_WEIGHT = 5.0
_GIVEN_NAME_CONFIDENCE = 0.5  # a census gender is a prior, not evidence from the book
#: after a title ("the Rabbit", "the Caterpillar") "it" counts too: a creature the book calls "it"
_THIRD_PERSON_OR_IT = re.compile(
    r"(?<![\w'’])(?:he|him|his|himself|she|her|hers|herself|it|its|itself)(?![\w'’])", re.IGNORECASE
)


def estimate_genders(book: Book, characters: list[Character], names: list[Mention]) -> None:
    """Set ``gender``/``gender_confidence`` on characters whose gender is not already known."""
    votes: dict[str, dict[str, float]] = defaultdict(lambda: {"male": 0.0, "female": 0.0, "neuter": 0.0})
    given: dict[str, Counter[str]] = defaultdict(Counter)  # character -> untitled first words of its names
    text = book.text
    for i, m in enumerate(names):
        if m.character_id is None:
            continue
        surface = text[m.start : m.end]
        honorific, _ = split_honorific(surface)
        if honorific is None and m.kind == "name":
            given[m.character_id][surface.split()[0]] += 1
        implied = HONORIFICS.get(honorific or surface.lower().removeprefix("the ").rstrip("."), "unknown")
        if implied != "unknown":
            votes[m.character_id][implied] += _HONORIFIC_WEIGHT
        limit = min(m.end + _LOOKAHEAD, names[i + 1].start if i + 1 < len(names) else len(text))
        pronoun = (_THIRD_PERSON_OR_IT if m.kind == "title" else _THIRD_PERSON).search(text, m.end, limit)
        if pronoun is not None:
            votes[m.character_id][PRONOUN_GENDER.get(pronoun.group().lower(), "neuter")] += 1
    for character in characters:
        if character.gender != "unknown":
            continue
        v = votes.get(character.id, {"male": 0.0, "female": 0.0, "neuter": 0.0})
        total = v["male"] + v["female"]
        if v["neuter"] > total:
            continue  # "the Caterpillar ... it": no gender to give (not "her", Alice's, nearby)
        if total < 1:
            _from_given_name(character, given[character.id])
            continue
        gender = "male" if v["male"] >= v["female"] else "female"
        share = max(v["male"], v["female"]) / total
        confidence = share * total / (total + 2)  # few votes -> lower confidence
        if share >= 0.6:
            character.gender = gender  # type: ignore[assignment]
            character.gender_confidence = round(confidence, 3)
        else:
            _from_given_name(character, given[character.id])


def _from_given_name(character: Character, first_words: Counter[str]) -> None:
    """The usual gender of the character's most used untitled given name ("Robert", "Joan"), when
    honorifics and pronouns left it open; a modest confidence, since census names are a prior."""
    for word, _ in first_words.most_common():
        gender = given_name_gender(word, CLEAR_GIVEN_NAME)
        if gender != "unknown":
            character.gender = gender
            character.gender_confidence = _GIVEN_NAME_CONFIDENCE
            return
