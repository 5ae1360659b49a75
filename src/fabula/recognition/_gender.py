"""Gender cues for recognition: what a description says about its subject, and what a name or a
character says. A description whose pronouns and nouns say "she" rarely fits a man; every method
that uses the cue reads it from here.
"""

from __future__ import annotations

import re
from typing import Literal

from fabula.book import Character
from fabula.characters import HONORIFICS, given_name_gender

SimpleGender = Literal["female", "male", "unknown"]

_MALE_WORDS = frozenset(
    [
        "he",
        "him",
        "his",
        "himself",
        "man",
        "men",
        "gentleman",
        "gentlemen",
        "boy",
        "father",
        "son",
        "brother",
        "husband",
        "widower",
        "uncle",
        "nephew",
        "lord",
        "king",
        "prince",
        "baronet",
        "bachelor",
        "fellow",
        "grandfather",
        "stepson",
        "clergyman",
        "vicar",
        "rector",
        "curate",
        "chaplain",
        "parson",
    ]
)
_FEMALE_WORDS = frozenset(
    [
        "she",
        "her",
        "hers",
        "herself",
        "woman",
        "women",
        "lady",
        "ladies",
        "girl",
        "mother",
        "daughter",
        "sister",
        "wife",
        "widow",
        "aunt",
        "niece",
        "queen",
        "princess",
        "spinster",
        "governess",
        "heiress",
        "bride",
        "grandmother",
        "stepdaughter",
    ]
)
_WORD = re.compile(r"[A-Za-z]+(?:['’]s\b)?")


def description_gender(text: str) -> SimpleGender:
    """The gender a description gives its subject: its first gendered word ("A pompous clergyman",
    "The eldest daughter", "who ... her"), skipping possessives ("the family's cousin", "the
    heroine's brother" is a man); descriptions name other people later, so only the first counts."""
    for match in _WORD.finditer(text):
        word = match.group(0)
        if word.endswith(("'s", "’s")):
            continue
        lower = word.lower()
        if lower in _MALE_WORDS:
            return "male"
        if lower in _FEMALE_WORDS:
            return "female"
    return "unknown"


def name_gender(name: str, character: Character | None = None) -> SimpleGender:
    """The gender of an option's name: its honorific ("Mrs."), else the character's (characters layer),
    else the usual gender of its given name."""
    words = [w.strip(".").lower() for w in name.split()]
    if words and HONORIFICS.get(words[0]) in ("male", "female"):
        return HONORIFICS[words[0]]
    if character is not None and character.gender in ("male", "female"):
        return character.gender
    for word in words:
        gender = given_name_gender(word)
        if gender in ("male", "female"):
            return gender
    return "unknown"


def agreement(a: SimpleGender, b: SimpleGender) -> float:
    """+1 when both genders are known and equal, -1 when known and different, else 0."""
    if a == "unknown" or b == "unknown":
        return 0.0
    return 1.0 if a == b else -1.0
