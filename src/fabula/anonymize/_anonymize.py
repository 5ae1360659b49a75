"""Replace every unambiguous first name and surname of a book's characters, consistently.

Names are replaced as words, not per character: "Penrose" gets one replacement wherever it stands
("Mr. Penrose", "Jane Penrose", "the Penroses", "PENROSE"), so families stay families, and honorifics,
possessives ("Ashdown's") and capitalisation stay as they were. The character list decides what is a
name; titles and ranks ("Mr.", "Agent", "Detective-Inspector") are never names. A name word the book also
uses in lower case ("Hope", "Wood", "Hill") is *contextual*: replaced where it names a person — after a
title ("Mrs. Wood", "Agent Fox"), beside another name of the cast, or capitalised inside a sentence — and
kept elsewhere ("Wood smoke", "hope"). So is a word that stands after "in"/"at"/"near"/"into"/"through"/"across"
in a quarter or more of its uses (a place the character list took for a person, or a shop called after its
owner): replaced only after a title or beside another name, so "at Mill's" stays and "Mrs. Mill" does not.
`remaining_names` finds any cast name still standing in a person's place in a text (what `fabula
anonymize` reports, and fails on). Given names get given names of the character's gender (US census list shipped with the
characters layer); surnames get surnames from ``surnames.txt``; no replacement occurs anywhere in the
book (in any case), so the mapping is reversible: ``mapping.inverse().apply(new)`` gives the text back.

Modes (``mode``): ``census`` (default, fabula's) draws the new names as above; ``rep`` is GANDALF's "-Rep"
(Carlsson et al. 2021, section 4.7): the characters' own names shuffled among them, first names among first
names and surnames among surnames, gender not controlled (the paper shuffles across all of its books; here
within the book, whose cast is what a run has); the paper's suggested probes (section 7.1) are
``swap-gender`` (each given name replaced by one of the other gender), ``all-female`` and ``all-male``.

Why no library: anonymisation packages (Presidio, scrubadub) find PII with NER and replace it with
placeholders or unrelated fake names; GANDALF needs the novel's own character list, consistent
gender-matched names that never collide with the book's words, and an exact inverse.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import orjson

from fabula._files import write_bytes_atomic
from fabula._letters import LATIN_LOWER, LATIN_UPPER
from fabula.book import Book, Character
from fabula.characters import (
    HONORIFICS,
    NAME_PARTICLES,
    NICKNAMES,
    NON_NAMES,
    STANDALONE_TITLES,
    clear_given_names,
    given_name_gender,
    is_pseudo_name,
)
from fabula.errors import InputError

Role = Literal["first", "last"]
MODES = ("census", "rep", "swap-gender", "all-female", "all-male")
_OTHER_GENDER = {"female": "male", "male": "female"}
_UP, _LOW = LATIN_UPPER, LATIN_LOWER  # names are not all ASCII: "Zoë", "Łukasz" are replaced too
_LETTER = f"{_UP}{_LOW}"
#: a name word it can replace: "Tamsin", "Jean-Luc", "O'Hara", and capitals inside ("McAdam", "LaToya")
_NAME_WORD = re.compile(rf"^(?:[{_UP}]')?[{_UP}][{_LOW}]+(?:[-']?[{_UP}]?[{_LOW}]+)*$")
_WORDS = re.compile(rf"[{_LETTER}]+")
#: honorifics followed by a given name ("Sir Roland", "Lady Honoria"); the others take a surname
_GIVEN_NAME_TITLES = frozenset({"lady", "lord", "dame", "aunt", "uncle", "sister", "brother", "cousin"})
#: ranks and offices before a surname that the characters layer's honorifics do not list
_RANKS = frozenset(
    {
        "agent",
        "officer",
        "constable",
        "superintendent",
        "coroner",
        "chief",
        "deputy",
        "sheriff",
        "nurse",
        "private",
    }
)
_TITLES = frozenset(HONORIFICS) | frozenset(STANDALONE_TITLES) | _RANKS
_LOCATIVE = re.compile(r"\b(?:in|at|near|into|through|across)\s+$", re.IGNORECASE)
_PLACE_SHARE = 0.25  # of a word's uses after a locative preposition, for it to read as a place
_SENTENCE_START = set(".!?\"“”'‘’(\n:—-")


def is_title(word: str) -> bool:
    """A title, rank or office ("Mrs.", "Agent", "Detective-Inspector"), never a name."""
    parts = word.strip(".").lower().split("-")
    return all(part in _TITLES for part in parts)


@dataclass(slots=True)
class OffsetMap:
    """Where each replaced name stands in the original text and in the new one (sorted, disjoint), so
    any original offset or span (a gold quote, a mention, a snippet) maps exactly onto the new text."""

    original_starts: list[int] = field(default_factory=list)
    original_ends: list[int] = field(default_factory=list)
    new_starts: list[int] = field(default_factory=list)
    new_ends: list[int] = field(default_factory=list)

    def add(self, start: int, end: int, new_start: int, new_end: int) -> None:
        self.original_starts.append(start)
        self.original_ends.append(end)
        self.new_starts.append(new_start)
        self.new_ends.append(new_end)

    def __len__(self) -> int:
        return len(self.original_starts)

    def offset(self, position: int, *, end: bool = False) -> int:
        """The new offset of original ``position``; one inside a replaced name goes to the new name's
        start (or its end, with ``end=True``: the end of a span that cuts a name keeps the whole name)."""
        before = bisect.bisect_right(self.original_ends, position)  # replacements ending at or before it
        if before < len(self) and self.original_starts[before] < position:  # inside replacement ``before``
            return self.new_ends[before] if end else self.new_starts[before]
        if before == 0:
            return position
        return position + self.new_ends[before - 1] - self.original_ends[before - 1]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The new ``[start, end)`` of an original span."""
        return self.offset(start), max(self.offset(start), self.offset(end, end=True))


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A text with names replaced, and the offset map from the original to it."""

    text: str
    offsets: OffsetMap


@dataclass
class NameMapping:
    """Original name word -> replacement (both as capitalised in the book); ``seed`` made the draw."""

    names: dict[str, str]
    seed: int = 0
    roles: dict[str, str] = field(default_factory=dict)  # name word -> "first" or "last" (for the record)
    mode: str = "census"
    # name word -> replaced only where it names a person; True: also capitalised inside a sentence
    contextual: dict[str, bool] = field(default_factory=dict)

    def _pattern(self) -> re.Pattern[str] | None:
        if not self.names:
            return None
        return _compile(tuple(sorted(self.names)))

    def _lookup(self, word: str) -> str:
        if word in self.names:
            return self.names[word]
        for original, replacement in self.names.items():  # ALL-CAPS form
            if original.upper() == word:
                return replacement.upper()
        return word

    def apply(self, text: str) -> str:
        """``text`` with every mapped name word replaced (exact or ALL-CAPS; ``'s`` and plural ``s`` kept)."""
        return self.rewrite(text).text

    def apply_to_book(self, book: Book) -> str:
        """The book's text with names replaced in its body (front and back matter are left as they are)."""
        return self.rewrite(book.text, book.body.start, book.body.end).text

    def rewrite(self, text: str, start: int = 0, end: int | None = None) -> Rewrite:
        """``text`` with the names in ``[start, end)`` replaced, and where every replacement stands
        (an `OffsetMap` from the original offsets to the new ones)."""
        end = len(text) if end is None else end
        pattern = self._pattern()
        if pattern is None:
            return Rewrite(text, OffsetMap())
        pieces: list[str] = []
        offsets = OffsetMap()
        done = 0
        shift = 0
        for match in pattern.finditer(text, start, end):
            a, b = match.span(1)
            word = match.group(1)
            if word in self.contextual and not person_context(
                text, a, b, self.contextual[word], self.names.keys() - self.contextual.keys()
            ):
                continue
            if word not in self.names and word.capitalize() in self.contextual:
                continue  # an ALL-CAPS form of a contextual word: a heading or a shout, not a name
            new = self._lookup(word)
            pieces.append(text[done:a])
            pieces.append(new)
            offsets.add(a, b, a + shift, a + shift + len(new))
            shift += len(new) - (b - a)
            done = b
        pieces.append(text[done:])
        return Rewrite("".join(pieces), offsets)

    def character(self, character: Character) -> Character:
        """The character with its name and aliases renamed (the rest kept)."""
        return dataclasses.replace(
            character,
            name=self.apply(character.name),
            aliases={self.apply(a): n for a, n in character.aliases.items()},
        )

    def inverse(self) -> NameMapping:
        return NameMapping(
            {v: k for k, v in self.names.items()},
            self.seed,
            {self.names[k]: r for k, r in self.roles.items()},
            self.mode,
        )

    def to_json(self) -> dict[str, Any]:
        out = {"seed": self.seed, "mode": self.mode, "names": self.names, "roles": self.roles}
        return out | ({"contextual": self.contextual} if self.contextual else {})

    def save(self, path: str | Path) -> None:
        write_bytes_atomic(path, orjson.dumps(self.to_json(), option=orjson.OPT_INDENT_2) + b"\n")

    @classmethod
    def load(cls, path: str | Path) -> NameMapping:
        try:
            data = orjson.loads(Path(path).read_bytes())
            names = data["names"]
            if not isinstance(names, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in names.items()
            ):
                raise TypeError("names must map strings to strings")
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"not a name mapping ({exc})", path) from None
        return cls(
            dict(names),
            int(data.get("seed", 0)),
            dict(data.get("roles", {})),
            str(data.get("mode", "census")),
            {str(k): bool(v) for k, v in dict(data.get("contextual", {})).items()},
        )


@functools.lru_cache(maxsize=16)
def _compile(names: tuple[str, ...]) -> re.Pattern[str]:
    forms = sorted({f for n in names for f in (n, n.upper())}, key=lambda f: (-len(f), f))
    return re.compile(
        rf"(?<![{_LETTER}])(" + "|".join(re.escape(f) for f in forms) + rf")(?=(?:e?s|E?S)?(?![{_LETTER}]))"
    )


@functools.lru_cache(maxsize=8)
def _book_words(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(every word in lower case, every word that occurs in lower case), once per text."""
    words = set(_WORDS.findall(text))
    return frozenset(w.lower() for w in words), frozenset(w for w in words if w.islower())


@functools.lru_cache(maxsize=32)
def free_names(text: str, pool: str) -> tuple[str, ...]:
    """The replacement names of ``pool`` ("female", "male" or "any" given names, "last" for surnames)
    that occur nowhere in ``text``, in any case, nor with a plural "s"/"es" added (once per text and pool):
    a mapping replaces a name with its plural ending kept, so a drawn "Hugh" in a book that has "Hughs"
    would turn that word back into the cast name on the inverse mapping."""
    words = _book_words(text)[0]
    return tuple(n for n in _pools()[pool] if not {(low := n.lower()), low + "s", low + "es"} & words)


def draw_person_name(text: str, gender: str, rng: random.Random) -> tuple[str, str] | None:
    """A given name of ``gender`` (else of either) and a surname, neither occurring in ``text``; None
    when the lists are exhausted. What the memorisation probes' corrupted-speaker passages use."""
    given = free_names(text, gender if gender in ("female", "male") else "any")
    surnames = free_names(text, "last")
    if not given or not surnames:
        return None
    return rng.choice(given), rng.choice(surnames)


def person_mapping(character: Character, given: str, surname: str) -> NameMapping:
    """One character renamed: each of its given-name words becomes ``given``, each surname word
    ``surname`` (`name_words` decides which is which), applied like any mapping (possessives, plurals,
    ALL-CAPS; honorifics and other characters' names kept)."""
    words = name_words([character])
    names = {word: given if role == "first" else surname for word, (role, _) in words.items()}
    return NameMapping(names, roles={word: role for word, (role, _) in words.items()})


def name_words(characters: list[Character]) -> dict[str, tuple[Role, Counter[str]]]:
    """Each name word of the characters' names and aliases, its role (given name or surname, by
    majority) and the genders of the characters bearing it as a given name."""
    roles: dict[str, Counter[Role]] = defaultdict(Counter)
    genders: dict[str, Counter[str]] = defaultdict(Counter)
    for character in characters:
        for alias in character.all_names():
            if is_pseudo_name(alias) or alias.lower().startswith(("the ", "a ", "an ")):
                continue
            words = alias.replace("_", " ").split()
            title = None
            while words and is_title(words[0]):
                title = words.pop(0).strip(".").lower()
            if "of" in (w.lower() for w in words):  # "Mr. Ashdown of Ashcombe": a place follows
                words = words[: [w.lower() for w in words].index("of")]
            words = [w for w in words if w.lower() not in NAME_PARTICLES]
            if not words or not all(_NAME_WORD.match(w) for w in words):
                continue
            if len(words) == 1:
                word = words[0]
                given = given_name_gender(word) != "unknown" or word.lower() in NICKNAMES
                if title == "sir" or (title in _GIVEN_NAME_TITLES and given):
                    role: Role = "first"
                elif title is not None:
                    role = "last"
                else:
                    role = "first" if given else "last"
                roles[word][role] += 1
                if role == "first":
                    genders[word][character.gender] += 1
                continue
            # a place in a full name outweighs a lone use (whose role is a guess), so a tie cannot hang on
            # the order of the aliases
            for word in words[:-1]:
                roles[word]["first"] += 2
                genders[word][character.gender] += 1
            roles[words[-1]]["last"] += 2
    # a tie goes to the surname (a title before a word outweighs the census's guess that it is a given
    # name), never to whichever alias came first
    return {w: ("first" if r["first"] > r["last"] else "last", genders[w]) for w, r in roles.items()}


def plan_mapping(
    book: Book | str, characters: list[Character], *, seed: int = 0, mode: str = "census"
) -> NameMapping:
    """Draw replacements for every unambiguous name word of ``characters`` (see the module docstring)."""
    if mode not in MODES:
        raise InputError(f"unknown anonymization mode {mode!r} (choose from {', '.join(MODES)})")
    text = book if isinstance(book, str) else book.text
    lower_words = _book_words(text)[1] | {w.lower() for w in NON_NAMES}
    found = name_words(characters)
    planned = {
        word: info
        for word, info in found.items()
        if word.lower() not in NAME_PARTICLES
        and not is_title(word)
        and len(word) > 1
        and not (word.endswith("s") and (word[:-1] in found or word[:-2] in found))  # "the Penroses"
    }
    contextual = {w: True for w in planned if w.lower() in lower_words}
    contextual |= {w: False for w in planned if _place_like(text, w)}
    rng = random.Random(seed)
    names: dict[str, str] = {}
    roles: dict[str, str] = {}
    if mode == "rep":  # GANDALF -Rep: a cycle through the shuffled first names, and one through the surnames
        for role_of in ("first", "last"):
            # contextual words stay out of the shuffle: a cast word they became would not invert exactly
            words = sorted(w for w, (role, _) in planned.items() if role == role_of and w not in contextual)
            rng.shuffle(words)
            if len(words) > 1:
                names |= {w: words[(i + 1) % len(words)] for i, w in enumerate(words)}
                roles |= {w: role_of for w in words}
        planned = {w: info for w, info in planned.items() if w not in names}  # a lone one: a drawn name
    taken = {w.lower() for w in found} | {w.lower() for w in names.values()}
    for word in sorted(planned):
        role, genders = planned[word]
        gender = _first_name_gender(word, genders)
        if mode == "swap-gender":
            gender = _OTHER_GENDER.get(gender, gender)
        elif mode in ("all-female", "all-male"):
            gender = mode.removeprefix("all-")
        pool = free_names(text, "last" if role == "last" else gender)
        choices = [c for c in pool if c.lower() not in taken]
        if not choices:
            raise InputError(f"no replacement left for {word!r} (the name lists are exhausted)")
        replacement = rng.choice(choices)
        taken.add(replacement.lower())
        names[word] = replacement
        roles[word] = role
    return NameMapping(names, seed, roles, mode, {w: c for w, c in contextual.items() if w in names})


def _place_like(text: str, word: str) -> bool:
    """Whether ``word`` stands after a locative preposition in at least `_PLACE_SHARE` of its uses
    (three uses at least)."""
    starts = [m.start() for m in re.finditer(rf"(?<![{_LETTER}]){re.escape(word)}(?![{_LETTER}])", text)]
    if len(starts) < 3:
        return False
    after = sum(bool(_LOCATIVE.search(text, max(0, s - 12), s)) for s in starts)
    return after >= _PLACE_SHARE * len(starts)


def person_context(text: str, start: int, end: int, mid_sentence: bool, names: Iterable[str]) -> bool:
    """Whether the name word at ``[start, end)`` names a person: after a title ("Mrs.", "Agent"), beside
    one of ``names`` ("Jane Long", "Long Jane"), or — with ``mid_sentence`` — capitalised inside a
    sentence (not at its start, where any word is capitalised)."""
    before = re.search(rf"([{_LETTER}][{_LETTER}-]*)\.?\s+$", text[max(0, start - 40) : start])
    if before is not None and (is_title(before.group(1)) or before.group(1) in names):
        return True
    after = re.match(rf"(?:'s)?\s+([{_UP}][{_LOW}]+)", text[end : end + 40])
    if after is not None and after.group(1) in names:
        return True
    if not mid_sentence:
        return False
    lead = text[max(0, start - 20) : start]
    prefix = lead.rstrip()
    if not prefix or lead.count("\n", len(prefix)) > 1:
        return False  # the text's or a paragraph's first word
    # a line break inside a paragraph is no sentence start: a hard-wrapped book's "the Grey\nHeron"
    # kept its Heron (and the check below it passed)
    return prefix[-1] not in _SENTENCE_START


def remaining_names(
    text: str, characters: list[Character], start: int = 0, end: int | None = None
) -> Counter[str]:
    """Each cast name word still standing in ``text[start:end]`` where it names a person (after a title,
    beside another cast name, or capitalised inside a sentence; a place-like word only the first two ways),
    with its count: what an anonymised text should not contain."""
    end = len(text) if end is None else end
    words = sorted(_cast_words(characters))
    others = set(words)
    remaining: Counter[str] = Counter()
    for word in words:
        mid = not _place_like(text, word)
        for match in re.finditer(rf"(?<![{_LETTER}]){re.escape(word)}(?![{_LETTER}])", text[start:end]):
            a = start + match.start()
            if person_context(text, a, a + len(word), mid, others - {word}):
                remaining[word] += 1
    return remaining


def _cast_words(characters: list[Character]) -> set[str]:
    """Every capitalised word of the characters' names and aliases that is not a title, a particle or an
    initial — looser than `name_words` (which plans only words it can replace), so a name it could not plan
    ("TJ") is still looked for. Initials are not replaced (nor by GANDALF's schema)."""
    words: set[str] = set()
    for character in characters:
        for alias in character.all_names():
            if is_pseudo_name(alias) or alias.lower().startswith(("the ", "a ", "an ")):
                continue
            parts = alias.replace("_", " ").split()
            if "of" in (w.lower() for w in parts):
                parts = parts[: [w.lower() for w in parts].index("of")]
            words |= {
                w.strip(".,")
                for w in parts
                if re.match(rf"^[{_UP}][{_LETTER}'’-]+\.?$", w)
                and not is_title(w)
                and w.lower() not in NAME_PARTICLES
            }
    return words


def _first_name_gender(word: str, genders: Counter[str]) -> str:
    known = Counter({g: n for g, n in genders.items() if g in ("female", "male")})
    if known:
        return known.most_common(1)[0][0]
    gender = given_name_gender(word)
    return gender if gender in ("female", "male") else "any"


@functools.cache
def _pools() -> dict[str, list[str]]:
    """Replacement names: clear given names by gender (ratio >= 10 in the census list), surnames."""
    female, male = clear_given_names("female"), clear_given_names("male")
    text = resources.files("fabula.anonymize").joinpath("surnames.txt").read_text("utf-8")
    surnames = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return {"female": female, "male": male, "any": sorted(female + male), "last": surnames}


def anonymize_book(
    book: Book, characters: list[Character] | None = None, *, seed: int = 0, mode: str = "census"
) -> tuple[str, NameMapping]:
    """The book's text with its characters renamed, and the mapping (characters: ``book.characters``,
    annotated by `fabula.annotation` when the book has none)."""
    if characters is None:
        characters = _cast(book)
    mapping = plan_mapping(book, characters, seed=seed, mode=mode)
    return mapping.apply_to_book(book), mapping


def _cast(book: Book) -> list[Character]:
    """The book's annotated cast (the one pipeline: quotes, then characters)."""
    from fabula.annotation import annotate

    return annotate(book, {"characters"}).characters


@dataclass(slots=True)
class AnonymizedBook:
    """A renamed copy of a book: the new `Book` (its layers built afresh from the new text), the
    mapping, and the offset map that carries any span of the original onto the copy."""

    book: Book
    original: Book
    mapping: NameMapping
    offsets: OffsetMap

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Where the original ``[start, end)`` stands in the copy."""
        return self.offsets.span(start, end)

    def offset(self, position: int) -> int:
        return self.offsets.offset(position)

    def names(self, text: str) -> str:
        """A text about the book (a question, a reference, a name) with the same names replaced."""
        return self.mapping.apply(text)

    def character(self, character: Character) -> Character:
        return self.mapping.character(character)


def anonymized_copy(
    book: Book, characters: list[Character] | None = None, *, seed: int = 0, mode: str = "census"
) -> AnonymizedBook:
    """The book renamed (`anonymize_book`) as a new `Book` with the offset map (characters: a gold list,
    else ``book.characters``, found when the book has none)."""
    if characters is None:
        characters = _cast(book)
    mapping = plan_mapping(book, characters, seed=seed, mode=mode)
    rewrite = mapping.rewrite(book.text, book.body.start, book.body.end)
    from fabula.book import book_from_text

    copy = book_from_text(rewrite.text, language=book.meta.language, source=book.meta.source)
    copy.meta.title = book.meta.title
    return AnonymizedBook(copy, book, mapping, rewrite.offsets)


@dataclass(frozen=True, slots=True)
class Anonymizer:
    """What ``fabula eval --anonymize`` hands to a task: how to make the anonymised copies (the seed of
    the new names); each task maps its own gold data with the copies' mappings and offset maps."""

    seed: int = 0
    mode: str = "census"

    def copy(self, book: Book, characters: list[Character] | None = None) -> AnonymizedBook:
        return anonymized_copy(book, characters, seed=self.seed, mode=self.mode)
