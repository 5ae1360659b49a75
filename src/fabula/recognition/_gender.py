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
        "brothers",
        "sons",
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
        "sisters",
        "daughters",
        "stepdaughter",
    ]
)
_WORD = re.compile(r"[A-Za-z]+(?:['’]s\b)?|[,;:.!?()]")
#: a word before which "her" is an object ("leaves her there", "tells her she ..."), not "her brooch"
_AFTER_OBJECT = frozenset(
    [
        "to",
        "there",
        "that",
        "she",
        "he",
        "it",
        "in",
        "at",
        "on",
        "into",
        "from",
        "with",
        "for",
        "by",
        "up",
        "down",
        "out",
        "away",
        "home",
        "and",
        "or",
        "as",
        "again",
        "off",
        "back",
        "all",
        "about",
        "over",
    ]
)
#: a gendered noun shortly after one of these is someone else ("older than the heroine", "engaged to a
#: widower"); "of" is not among them ("the second of five sisters")
_PREPOSITIONS = frozenset(
    [
        "to",
        "with",
        "by",
        "for",
        "from",
        "than",
        "about",
        "at",
        "on",
        "into",
        "among",
        "like",
        "towards",
        "toward",
    ]
)
_BOUNDARIES = frozenset(["who", "whose", "whom", "which", "that"])


def _after_preposition(before: list[str]) -> bool:
    """Whether a preposition stands among the (up to three) words before, with no clause boundary
    (punctuation, a relative pronoun) between it and the word: "engaged to the heroine's brother"."""
    for word in reversed(before):
        if word in _BOUNDARIES or not word[0].isalpha():
            return False
        if word in _PREPOSITIONS:
            return True
    return False


def description_gender(text: str) -> SimpleGender:
    """The gender a description gives its subject: its first gendered word that refers to the subject
    ("A pompous clergyman", "The eldest daughter", "who loses her brooch"). Skipped, since they name
    someone else: possessives ("the heroine's brother" is a man), object pronouns ("marries him", "leaves
    her there", and a "she" right after one), and nouns after a preposition or "than" ("older than the
    heroine")."""
    words = [m.group(0) for m in _WORD.finditer(text)]
    for i, word in enumerate(words):
        if word.endswith(("'s", "’s")):
            continue
        lower = word.lower()
        if lower not in _MALE_WORDS and lower not in _FEMALE_WORDS:
            continue
        if lower == "him":
            continue
        if lower in ("he", "she") and i > 0 and words[i - 1].lower() in ("him", "her", "them"):
            continue  # "tells her she is ...": the object's pronoun
        after = words[i + 1].lower() if i + 1 < len(words) else "."
        if lower == "her" and (after in _AFTER_OBJECT or not after.isalpha()):
            continue
        if _after_preposition([w.lower() for w in words[max(0, i - 3) : i]]):
            continue
        return "male" if lower in _MALE_WORDS else "female"
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
