"""Characters: the cast of a novel (gold lists or discovered), alias clusters and mentions.

``find_characters(book)`` discovers characters with rules (optionally with spaCy NER evidence);
``find_characters(book, gold=load_character_list(path))`` matches a given list instead. Both set
``book.characters`` and ``book.mentions``. Declared as the ``characters`` component of `fabula.annotation`
(after quote detection): ``annotate(book, {"mentions"}, gold=...)`` is how commands and tasks get them. The word lists (honorifics, speech verbs, non-names) are
shared with quote attribution.
"""

from fabula.characters._component import characters_component, hide_unseen_names
from fabula.characters._discover import PASS_NAMES as DISCOVERY_PASSES
from fabula.characters._find import find_characters
from fabula.characters._gold import load_character_list
from fabula.characters._gold_match import is_pseudo_name, match_gold_names
from fabula.characters._lexicon import (
    ABBREVIATED_HONORIFICS,
    FEMALE_PRONOUNS,
    FIRST_PERSON_PRONOUNS,
    HONORIFICS,
    MALE_PRONOUNS,
    NAME_PARTICLES,
    NICKNAMES,
    NON_NAMES,
    PRONOUN_GENDER,
    SPEECH_VERBS,
    STANDALONE_TITLES,
    clear_given_names,
    given_name_gender,
)
from fabula.characters._resolve import resolve_name
from fabula.characters._set_aside import SET_ASIDE_REASON, set_aside_list, set_aside_message
from fabula.characters._speech_verbs import learned_speech_verbs
from fabula.characters._text import is_vocative, name_key, shown_aliases, surnames

__all__ = [
    "ABBREVIATED_HONORIFICS",
    "DISCOVERY_PASSES",
    "FEMALE_PRONOUNS",
    "FIRST_PERSON_PRONOUNS",
    "HONORIFICS",
    "MALE_PRONOUNS",
    "NAME_PARTICLES",
    "NICKNAMES",
    "NON_NAMES",
    "PRONOUN_GENDER",
    "SET_ASIDE_REASON",
    "SPEECH_VERBS",
    "STANDALONE_TITLES",
    "characters_component",
    "clear_given_names",
    "find_characters",
    "given_name_gender",
    "hide_unseen_names",
    "is_pseudo_name",
    "is_vocative",
    "learned_speech_verbs",
    "load_character_list",
    "match_gold_names",
    "name_key",
    "resolve_name",
    "set_aside_list",
    "set_aside_message",
    "shown_aliases",
    "surnames",
]
