"""Personhood learned from data: a logistic model over what the book itself says about a capitalised
name form (speech verbs beside it, honorifics, pronouns after it, determiners and place prepositions
before it, plural forms of other names, its lowercase uses), trained on the PDNC gold character
lists against the other forms the rules accept (`scripts/train_person_model.py`, leave-one-novel-out
numbers in `docs/benchmarks.md`). Its weights are ``person.json`` beside the characters package;
the ``person_model`` pass drops the forms it gives less than the file's threshold, so places,
groups ("the Italians", "the Emersons") and capitalised common words never reach the cast.

Features are shares over a form's occurrences (words alone: "Mr. Hale" and "Hale" are one form here),
so they mean the same in a short story and a long novel.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from fabula.characters._discover._candidates import _Occurrence
from fabula.characters._lexicon import given_name_gender

#: every feature, in the order of a row (``person.json`` names its weights)
PERSON_FEATURES: tuple[str, ...] = (
    "bias",
    "log_uses",
    "honorific",
    "speech",
    "person_verb",
    "pronoun_after",
    "place_prep",
    "possessed",
    "determiner",
    "titled",
    "initial",
    "possessive",
    "title_of",
    "lowercase_share",
    "several_words",
    "given_name",
    "plural_of_name",
    "part_of_full_name",
    "qualified_place",
    "after_to",
    "after_of",
    "before_ed_verb",
    "before_comma_or_stop",
    "plural_of_capitalised",
)


@dataclass(frozen=True, slots=True)
class PersonModel:
    """Logistic weights over `PERSON_FEATURES` and the probability below which a form is dropped."""

    weights: np.ndarray
    threshold: float

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """P(person) of each row of `person_rows`."""
        if not len(rows):
            return np.zeros(0)
        return 1.0 / (1.0 + np.exp(-(rows @ self.weights)))

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(PERSON_FEATURES),
            "weights": [round(float(w), 6) for w in self.weights],
            "threshold": self.threshold,
        }


@cache
def shipped_person_model() -> PersonModel:
    """The weights in ``fabula/characters/person.json`` (matched by feature name)."""
    raw = json.loads(resources.files("fabula.characters").joinpath("person.json").read_text("utf-8"))
    weights = dict(zip(raw["features"], raw["weights"], strict=True))
    return PersonModel(
        np.array([float(weights.get(f, 0.0)) for f in PERSON_FEATURES]), float(raw["threshold"])
    )


_OVERRIDE: ContextVar[PersonModel | None] = ContextVar("person_model", default=None)


def person_model() -> PersonModel:
    """The model discovery uses: the shipped one, unless `using_person_model` says otherwise."""
    return _OVERRIDE.get() or shipped_person_model()


@contextmanager
def using_person_model(model: PersonModel) -> Iterator[None]:
    """Discover with ``model`` inside the block (training and cross-validation scripts)."""
    token = _OVERRIDE.set(model)
    try:
        yield
    finally:
        _OVERRIDE.reset(token)


def _stems(word: str) -> list[str]:
    """What a plural ("Emersons", "Wilcoxes", "Hilberys") would be the plural of."""
    if len(word) < 4 or not word.endswith("s"):
        return []
    stems = [word[:-1]]
    if word.endswith("es"):
        stems.append(word[:-2])
    return stems


def judged(occurrences: list[_Occurrence]) -> dict[tuple[str, ...], list[_Occurrence]]:
    """The forms the model judges, with their occurrences: those never written with an honorific
    ("Mr. Perry" is a person whatever else the book says of him)."""
    by_words: dict[tuple[str, ...], list[_Occurrence]] = defaultdict(list)
    for o in occurrences:
        by_words[o.words].append(o)
    return {
        w: occ for w, occ in by_words.items() if not any(o.honorific and o.honorific != "the" for o in occ)
    }


def person_rows(
    occurrences: list[_Occurrence],
    lowercase: Counter[str],
    lowercase_titles: Counter[str],
    places: set[str] | frozenset[str],
    capitalised: Counter[str],
) -> tuple[list[tuple[str, ...]], np.ndarray]:
    """The forms `judged` among ``occurrences`` and one feature row each (`PERSON_FEATURES`);
    ``capitalised``: mid-sentence capitalised uses of each word among all candidates."""
    all_forms: dict[tuple[str, ...], list[_Occurrence]] = defaultdict(list)
    for o in occurrences:
        all_forms[o.words].append(o)
    by_words = judged(occurrences)
    uses = Counter({w: len(occ) for w, occ in all_forms.items()})
    single_words = Counter({w[0]: n for w, n in uses.items() if len(w) == 1})
    full_parts = {w for words in all_forms if len(words) > 1 for w in (words[0], words[-1])}
    keys = list(by_words)
    rows = np.zeros((len(keys), len(PERSON_FEATURES)))
    for i, words in enumerate(keys):
        occ = by_words[words]
        n = len(occ)

        def share(flag: str, occ: list[_Occurrence] = occ, n: int = n) -> float:
            return sum(1 for o in occ if getattr(o, flag)) / n

        titled_only = all(o.titled for o in occ)
        if titled_only and len(words) == 1:
            low = float(lowercase_titles.get(words[0].lower(), 0))
        else:
            low = sum(lowercase.get(w.lower(), 0) for w in words) / len(words)
        plural = len(words) == 1 and any(single_words.get(s, 0) + (s in full_parts) for s in _stems(words[0]))
        rows[i] = (
            1.0,
            math.log1p(n),
            sum(1 for o in occ if o.honorific and o.honorific != "the") / n,
            share("speech"),
            sum(1 for o in occ if o.person_verb and not o.auxiliary) / n,
            share("pronoun_after"),
            share("place_prep"),
            share("possessed"),
            share("determiner"),
            share("titled"),
            share("initial"),
            share("possessive"),
            share("title_of"),
            low / (low + n),
            float(len(words) > 1),
            float(given_name_gender(words[0]) != "unknown"),
            float(plural),
            float(len(words) == 1 and words[0] in full_parts),
            float(any(w in places for w in words)),
            sum(1 for o in occ if o.prev == "to") / n,
            sum(1 for o in occ if o.prev == "of") / n,
            sum(1 for o in occ if o.next.endswith("ed") and o.next.isalpha()) / n,
            sum(1 for o in occ if not o.next) / n,
            float(len(words) == 1 and any(capitalised.get(s, 0) >= 2 for s in _stems(words[0]))),
        )
    return keys, rows
