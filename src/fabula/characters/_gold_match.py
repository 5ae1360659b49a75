"""Find the mentions of a given (gold) character list in the text.

Every gold name and alias is searched with one regular expression whose alternatives are sorted
longest first, so "Mr. Ashdown" wins over "Ashdown" and "Lady Honoria" over "Honoria". Besides the
listed names we also search derived forms (the surname of "Mr. Ashdown", the parts of "Kingsley
Ashdown", "Mr" for "Mr.") with a lower confidence. A form that belongs to several characters (a shared
surname, two Catherines) goes to the holder whose discovered cluster holds the mention where discovery
ran (`_book_forms.book_readings`), else to the candidate mentioned most recently, else to the one
mentioned most.
Naming conventions narrow some forms first: a role the list capitalises ("The Boatman") also matches
in lowercase after "the"; a foreign address alone ("Mademoiselle") names the one character listed only
under it; a shared first name is not the one always titled with it ("Sir Roland") and goes to the one
whose family is in the cast ("Charles" among the Penhallows).

Gold lists in the wild carry placeholder entries: a bare name of unknown (or "X") gender and minor (or no)
category, every spelling of which another entry also holds ("Bounderby" beside "Josiah Bounderby",
who is listed as "Mr. Bounderby"). A form listed only under placeholders goes to the entries the
evidence supports, those that hold it too and are more than a placeholder (see `_placeholders`), as if
the list had no placeholder (the form stays a derived one, and a placeholder makes no family); an
entry that is the only one holding its name stays, and two full entries for one person (a list that
splits a narrator from the same man inside the story) stay two owners of a shared form, each mention
going to one of them. Entries told apart by a qualifier after a spaced dash ("Marlow - Story",
"Marlow - External") are searched under the name without it (`unqualified`).

Lists also differ in whether they write the title the speech tags use. A name listed without one
implies it by the entry's gender, below every listed and derived form (`_implied`): "Mr. Ashdown" of a
man listed as "Kit Ashdown", "Miss Penrose" or "Mrs. Penrose" of a woman listed as "Nora Penrose" (the
one the book prints; neither where it prints both). A title the book prints before a listed untitled full
name gives the entry its short titled form, as if listed (`_printed_titles`, `_titled_forms`: "Sir Kit"
of "Sir Kit Ashdown"). A man or woman listed by the surname alone
("Ashdown") is "Mr. Ashdown" (or "Miss/Mrs.") before one listed with a given name ("Mr. Kit Ashdown").
The one entry holding a rank or title ("Professor Vance", "Dr. Quill", "The King of Spades") is also
"the Professor" (capitalised here; lowercase, "said the general", only where no noun follows:
`fabula.characters._ranks`, for discovered casts too). `scripts/gold_list_variants.py` measures these
conventions by rewriting the PDNC lists.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from fabula.book import Book, Character, Mention
from fabula.characters._lexicon import (
    ABBREVIATED_HONORIFICS,
    COMMON_PEOPLE,
    HONORIFICS,
    NAME_PARTICLES,
    NICKNAMES,
    NON_NAMES,
    SPELLED_OUT_RANKS,
    STANDALONE_TITLES,
    given_name_gender,
    honorific_class,
)
from fabula.characters._text import split_honorific, unqualified

RECENCY_WINDOW = 4000  # characters: how far back "mentioned recently" looks
_ARTICLES = ("the ", "a ", "an ")
_PARTICLES = NAME_PARTICLES - {"of"}
DERIVED_CONFIDENCE = 0.8  # a surname or "Mr. X" taken from a listed "Mr. John X"
FIRST_NAME_CONFIDENCE = 0.6  # a first name taken from a listed full name: others may share it
BOOK_FORM_CONFIDENCE = 0.6  # a name the book gives an entry (discovery's cluster), not the list
_NAME_FOLLOWS = re.compile(r"\s+[A-Z]")
_BARE_ADDRESS = frozenset({"mademoiselle", "madame", "monsieur", "signora", "signorina", "signor"})
_NAMED_CATEGORIES = frozenset({"major", "intermediate"})
_GIVEN_NAME_ONLY = frozenset({"sir", "dame"})  # "Sir Kit Ashdown" is "Sir Kit", never "Sir Ashdown"
#: the word right before a name, and the period after it if any
_WORD_BEFORE = re.compile(r"(?<![\w'’])([A-Za-z]+)(\.?)\s+$")
_UNKNOWN_GENDERS = frozenset(
    {"unknown", "neutral"}
)  # what a placeholder entry's gender may be  # annotators' categories of characters who matter


@dataclass(slots=True)
class _Form:
    owners: tuple[str, ...]  # character ids this form may refer to
    listed: bool  # True when the form is in the gold list itself (not derived)
    title: bool  # honorific/title-only form like "The Colonel"
    confidence: float  # of a mention when the form has one owner
    bare_address: bool = False  # "Mademoiselle" alone: not when a name follows ("Monsieur Fabre")


def is_pseudo_name(name: str) -> bool:
    """PDNC pseudo names (``_narr``, ``Narr``) that are annotations, not text."""
    return name.startswith("_") or name.lower() in {"narr", "narrator"}


def _variants(name: str) -> set[str]:
    """Spellings of one listed name: "Mr." <-> "Mr", article case ("The Cat" / "the Cat")."""
    out = {name}
    honorific, rest = split_honorific(name)
    if honorific is not None:
        head = name.split(None, 1)[0]
        out.add(f"{head.rstrip('.')} {rest}")
        out.add(f"{head.rstrip('.')}. {rest}")
    for form in list(out):
        # "Mrs. Van Der Vorst" is written "Mrs. van der Vorst" in the text, and the other way round
        words = form.split(" ")
        for case in (str.lower, str.capitalize):
            out.add(" ".join(case(w) if i and w.lower() in _PARTICLES else w for i, w in enumerate(words)))
    for form in list(out):
        low = form.lower()
        for article in _ARTICLES:
            if low.startswith(article):
                tail = form[len(article) :]
                out.add(article + tail)
                out.add(article.capitalize() + tail)
                if article == "the " and tail.lower() not in COMMON_PEOPLE:
                    # annotators capitalise role names ("The Boatman") that the text writes in
                    # lowercase ("said the mariner"); not "a man" (someone new) or "the girl" (anyone)
                    out.add(article + tail.lower())
                    out.add(article.capitalize() + tail.lower())
    return {v for v in out if v.strip()}


def _name_parts(rest: str) -> tuple[list[str], str] | None:
    """The given names and the surname of a name without its honorific: "Kit Ashdown" -> (["Kit"],
    "Ashdown"), "Honoria de Brocq" -> (["Honoria"], "de Brocq"), "Ashdown" -> ([], "Ashdown"). None where
    the parts are not safe to take apart: a lowercase word that is no particle, a particle first, a place
    ("Ashdown of Ashcombe")."""
    words = rest.split()
    if not words or words[0].lower() in NAME_PARTICLES or "of" in (w.lower() for w in words):
        return None
    if any(not w[:1].isupper() and w.lower() not in NAME_PARTICLES for w in words):
        return None
    cut = next((i for i, w in enumerate(words) if w.lower() in NAME_PARTICLES), len(words) - 1)
    if not words[-1][:1].isupper():
        return None  # "Nora de": no surname after the particle
    return words[:cut], " ".join(words[cut:])


def _first_name(name: str) -> str | None:
    """The first name a listed full name implies: "Bertram" of "Bertram Fenwick", of "Mr. Bertram
    Fenwick" and of "Sir Bertram Fenwick", but not of "Mrs. Bertram Fenwick" (a wife styled by her
    husband's name)."""
    honorific, rest = split_honorific(name)
    parts = _name_parts(rest)
    if parts is None or not parts[0] or honorific_class(honorific) == "married":
        return None
    return parts[0][0]


def _derived(name: str) -> set[str]:
    """Shorter forms a listed name implies: the surname of "Mr. Ashdown", first/last of "Jane Penrose",
    the surname and "Mr. Ashdown" of "Mr. Kit Ashdown", and the title with the given name ("Sir Kit",
    "Miss Nora", "Lady Honoria" of "Lady Honoria de Brocq"; never "Mrs. Kit", the husband's name)."""
    honorific, rest = split_honorific(name)
    parts = _name_parts(rest)
    if parts is None:
        return set()
    given, surname = parts
    out: set[str] = {surname} if honorific is not None or given else set()
    if given:
        first = _first_name(name)
        if first is not None:
            out.add(first)
        if honorific is not None:
            head = name.split(None, 1)[0]
            if honorific not in _GIVEN_NAME_ONLY:
                out.add(f"{head} {surname}")
            if honorific_class(honorific) != "married":
                out.add(f"{head} {given[0]}")
    return {d for d in out if d.lower() not in NON_NAMES and len(d) > 1 and d != name}


#: the forms of address a surname takes by the entry's gender, for a list that writes a person's name
#: without one ("Ashdown" for Mr. Ashdown, "Nora Penrose" for Miss Penrose)
_ADDRESS_BY_GENDER = {"male": ("Mr.",), "female": ("Miss", "Mrs.")}


def _implied(name: str, gender: str, text: str | None = None) -> set[str]:
    """Titled forms an untitled listed name implies by the entry's gender: "Mr. Ashdown" of a man
    listed as "Ashdown" or "Kit Ashdown", "Miss Fenwick" / "Mrs. Fenwick" of a woman listed as "Fenwick",
    "Miss Penrose" or "Mrs. Penrose" of one listed as "Nora Penrose" (with the ``text``: the one it prints,
    neither when it prints both); none of a lone given name. Lists differ in whether they write the title (one annotator lists "Mr. X", another
    "X"); the text's speech tags mostly do ("said Mr. X"). An entry of unknown gender (a placeholder)
    implies none."""
    honorific, rest = split_honorific(name)
    words = rest.split()
    if (
        honorific is not None
        or not words
        or any(not w[:1].isupper() or w.lower() in NAME_PARTICLES for w in words)
    ):
        return set()
    surname = words[-1]
    if surname.lower() in NON_NAMES or len(surname) < 2 or not surname.isalpha():
        return set()
    if (
        words[0].lower() in ("the", "a", "an")
        or surname.lower() in HONORIFICS
        or surname.lower() in STANDALONE_TITLES
    ):
        return set()  # a role ("The Boatman", "Colonel"), not a surname
    if len(words) == 1 and given_name_gender(surname) != "unknown":
        return set()  # "Griselda" alone is a given name, not a surname: no "Mrs. Griselda"
    titles = _ADDRESS_BY_GENDER.get(gender, ())
    forms = {f"{title} {surname}" for title in titles}
    if len(forms) > 1 and len(words) > 1 and text is not None:
        # a woman listed by given name and surname is "Miss X" or "Mrs. X": the one the book prints,
        # neither where it prints both (a mother and a daughter, one perhaps not on the list)
        printed = {f for f in forms if any(_printed(v, text) for v in _variants(f))}
        return forms - printed if len(printed) > 1 else printed
    return forms


def _printed_titles(names: set[str], text: str) -> dict[str, set[str]]:
    """Untitled full name -> the forms of address the text prints right before it ("Sir" of "Sir Kit
    Ashdown" for a listed "Kit Ashdown"), lowercase and without the period; one scan for all names."""
    if not names:
        return {}
    pattern = re.compile(
        r"(?<![\w'’])("
        + "|".join(r"\s+".join(map(re.escape, n.split())) for n in sorted(names, key=len, reverse=True))
        + r")(?![\w])"
    )
    found: dict[str, set[str]] = defaultdict(set)
    for match in pattern.finditer(text):
        before = _WORD_BEFORE.search(text, max(0, match.start() - 24), match.start())
        if before is None or not before.group(1)[0].isupper():
            continue  # "his uncle Kit Ashdown": a word, not a title
        head = before.group(1).lower()
        # a period only after an abbreviation: "the King. Kit Ashdown ..." ends a sentence
        if head in HONORIFICS and (not before.group(2) or head in ABBREVIATED_HONORIFICS):
            found[" ".join(match.group(1).split())].add(head)
    return found


def _titled_forms(name: str, title: str, gender: str) -> set[str]:
    """The short forms a form of address the book prints before a listed untitled full name gives it
    (`_printed_titles`), as if the list had written the title: "Sir Kit" of "Sir Kit Ashdown", "Miss
    Nora" of "Miss Nora Penrose", "Colonel Ashdown" of "Colonel Kit Ashdown". Never a family's "Mr." or
    "Miss" with the surname: a book writes "Mr. Kit Ashdown" or "Miss Nora Penrose" in full to tell a
    younger brother or sister from the "Mr. Ashdown" or "Miss Penrose" of the family. Never a title of
    the other sex ("Mrs. Kit Ashdown" is his wife) or a wife's "Mrs. Kit"."""
    parts = _name_parts(name)
    kind = HONORIFICS.get(title)
    if (
        parts is None
        or not parts[0]
        or parts[0][0].lower() in ("the", "a", "an")  # a role ("The Old Boatman"), not a given name
        or kind is None
        or (kind != "unknown" and kind != gender)
    ):
        return set()
    given, surname = parts
    head = title.capitalize()
    if title in STANDALONE_TITLES:
        return {f"{head} {name}", f"{head} {surname}"}
    if honorific_class(title) == "married":
        return set()
    return {f"{head} {name}", f"{head} {given[0]}"}  # the whole, so that "Sir Kit" does not cut it


def _standalone(name: str) -> str | None:
    """The title alone ("the Professor") that a listed name with a rank or title implies: "Professor
    Vance", "Dr. Quill", "The King of Spades" (the text calls the one such person by the title)."""
    honorific, rest = split_honorific(name)
    words = name.split()
    if honorific is None and len(words) > 2 and words[0].lower() == "the" and words[2].lower() == "of":
        honorific, rest = words[1].lower(), " ".join(words[2:])
    title = SPELLED_OUT_RANKS.get(honorific or "", honorific or "")
    return f"the {title.capitalize()}" if title in STANDALONE_TITLES and rest.strip() else None


def _build_forms(gold: list[Character], text: str | None = None) -> dict[str, _Form]:
    """Every searched spelling and whom it may name. With the ``text``, a first name taken from a full
    name ("Bertram" of Mr. Fenwick's "Bertram Fenwick") is only searched when that full name occurs:
    an annotator's full name the novel never prints says nothing about who a bare "Bertram" is."""
    listed: dict[str, set[str]] = defaultdict(set)
    derived: dict[str, set[str]] = defaultdict(set)
    derived_weak: dict[str, set[str]] = defaultdict(set)  # surnames from "Mrs. X"/"Miss X": used alone
    implied: dict[str, set[str]] = defaultdict(set)  # titles by gender (`_implied`): used alone
    surname_titles: dict[str, set[str]] = defaultdict(set)  # ... of a name listed as one word: first
    titles_alone: dict[str, set[str]] = defaultdict(set)  # "the Professor" (`_standalone`): one holder
    printed_titles = (
        _printed_titles(
            {
                n
                for c in gold
                for raw in c.all_names()
                if (n := unqualified(" ".join(raw.split())))
                and not is_pseudo_name(n)
                and split_honorific(n)[0] is None
                and len(n.split()) > 1
            },
            text,
        )
        if text is not None
        else {}
    )
    for character in gold:
        for name in character.all_names():
            name = unqualified(" ".join(name.split()))
            if not name or is_pseudo_name(name):
                continue
            for variant in _variants(name):
                listed[variant].add(character.id)
            honorific, rest = split_honorific(name)
            weak = (HONORIFICS[honorific] if honorific is not None else character.gender) == "female"
            first = _first_name(name)
            # "Mr. Kit Ashdown" is printed as such or as "Kit Ashdown"
            printed = text is None or any(_printed(v, text) for v in {*_variants(name), rest})
            for short in _derived(name):
                if short == first and not printed:
                    continue
                for variant in _variants(short):
                    (derived_weak if weak and " " not in short else derived)[variant].add(character.id)
            for title in printed_titles.get(name, ()):
                for short in _titled_forms(name, title, character.gender):
                    for variant in _variants(short):
                        derived[variant].add(character.id)
            for titled in _implied(name, character.gender, text):
                for variant in _variants(titled):
                    (implied if " " in name else surname_titles)[variant].add(character.id)
            alone = _standalone(name)
            if alone is not None:  # capitalised only: "the general pause", "the major part"
                for variant in (alone, "The" + alone[3:]):
                    titles_alone[variant].add(character.id)
    forms: dict[str, _Form] = {}
    firsts = {f for c in gold for n in c.all_names() if (f := _first_name(unqualified(" ".join(n.split()))))}
    for spelling, owners in _nicknames(gold, text).items():
        if spelling not in listed:
            derived.setdefault(spelling, owners)
            firsts.add(spelling)
    placeholders = _placeholders(gold, [listed, derived, derived_weak])
    for spelling, owners in listed.items():
        if owners <= placeholders and (derived.get(spelling) or derived_weak.get(spelling)):
            # listed only under placeholders: the fuller entries that hold it too, as if the list had
            # no placeholder (the derived forms below: a bare surname is a man's before it is a woman's)
            continue
        forms[spelling] = _Form(tuple(sorted(owners)), True, _is_title(spelling), 1.0)
    for spelling, owners in _bare_address(gold).items():
        derived[spelling] |= owners
    for spelling, owners in derived_weak.items():
        derived.setdefault(spelling, owners)  # a bare surname is a man's before it is a woman's
    # "Mr. Ashdown" is the one listed as plain "Ashdown" before the one listed "Mr. Kit Ashdown"
    derived.update(surname_titles)
    for spelling, owners in implied.items():
        derived.setdefault(spelling, owners)  # a title the list never writes: only where nothing else is
    for spelling, owners in titles_alone.items():
        if len(owners) == 1:  # "the Captain" among several captains is any of them: not searched
            derived.setdefault(spelling, owners)
    for spelling, owners in derived.items():
        if spelling not in forms:
            if spelling in firsts and len(owners) > 1:
                owners = _first_name_owners(spelling, owners, [c for c in gold if c.id not in placeholders])
            confidence = FIRST_NAME_CONFIDENCE if spelling in firsts else DERIVED_CONFIDENCE
            bare = spelling.lower() in _BARE_ADDRESS
            forms[spelling] = _Form(tuple(sorted(owners)), False, _is_title(spelling), confidence, bare)
    return forms


def with_book_forms(forms: dict[str, _Form], book_forms: dict[str, str]) -> dict[str, _Form]:
    """``forms`` and, below every one of them, ``book_forms`` (spelling -> id: the names the book joins
    to an entry, `fabula.characters._book_forms`)."""
    out = dict(forms)
    for spelling, owner in book_forms.items():
        for variant in _variants(spelling):
            if variant not in out:
                out[variant] = _Form((owner,), False, _is_title(variant), BOOK_FORM_CONFIDENCE)
    return out


def _nicknames(gold: list[Character], text: str | None) -> dict[str, set[str]]:
    """The pet forms of the entries' given names that the ``text`` writes as a name ("Becky" of a listed
    "Rebecca Penrose"): each `NICKNAMES` form of exactly one entry's given name, kept when the book
    prints it capitalised at least twice as often as in lowercase (not "Will", the verb) and only then."""
    if text is None:
        return {}
    givens: dict[str, set[str]] = defaultdict(set)
    for character in gold:
        for name in character.all_names():
            name = unqualified(" ".join(name.split()))
            if not name or is_pseudo_name(name):
                continue
            first = _first_name(name)
            if first is None and " " not in name and given_name_gender(name) != "unknown":
                first = name  # a list that writes a person by the given name alone
            if first is not None:
                givens[first.lower()].add(character.id)
    owners: dict[str, set[str]] = defaultdict(set)
    for nickname, formal in NICKNAMES.items():
        for given in formal:
            owners[nickname.capitalize()] |= givens.get(given, set())
    # two entries' pet name, or itself a listed given name: the list says whose it is
    single = {s: who for s, who in owners.items() if len(who) == 1 and s.lower() not in givens}
    if not single:
        return {}
    written = Counter(
        m.group()
        for m in re.finditer(r"(?<![\w'])(?:" + "|".join(single) + r")(?![\w'])", text, re.IGNORECASE)
    )
    return {s: who for s, who in single.items() if written[s] and 2 * written[s.lower()] <= written[s]}


def _placeholders(gold: list[Character], holders: list[dict[str, set[str]]]) -> set[str]:
    """Entries that are placeholders: nothing known about them (gender unknown, category neither
    major nor intermediate) and no name of their own, every spelling of theirs being one another
    entry also holds (listed or derived)."""
    out: set[str] = set()
    for character in gold:
        # PDNC's gender "X" (read as "neutral") is how its lists mark a gender nobody knows
        if (
            character.gender not in _UNKNOWN_GENDERS
            or (character.category or "").lower() in _NAMED_CATEGORIES
        ):
            continue
        names = {unqualified(" ".join(n.split())) for n in character.all_names()}
        spellings = {v for n in names if n and not is_pseudo_name(n) for v in _variants(n)}
        if spellings and all(
            any(table.get(v, set()) - {character.id} for table in holders) for v in spellings
        ):
            out.add(character.id)
    return out


def _bare_address(gold: list[Character]) -> dict[str, set[str]]:
    """A foreign form of address used alone ("said Mademoiselle" for Mademoiselle Duval) names the one
    character that is only ever listed under it; with two such characters it names no one."""
    owners: dict[str, set[str]] = defaultdict(set)
    for character in gold:
        names = [
            unqualified(" ".join(n.split()))
            for n in character.all_names()
            if n.strip() and not is_pseudo_name(n)
        ]
        heads = {n.split(None, 1)[0] for n in names}
        if len(heads) == 1 and all(split_honorific(n)[0] in _BARE_ADDRESS for n in names):
            owners[heads.pop()].add(character.id)
    return {head: who for head, who in owners.items() if len(who) == 1}


def _first_name_owners(first: str, owners: set[str], gold: list[Character]) -> set[str]:
    """Who a bare first name shared by several characters can name, by naming conventions: not one
    always titled with it ("Sir Roland", "Lady Honoria"), and, of the rest, one whose surname other
    characters share (a family calls its members by first name: "Charles" is Charles Penhallow among
    the Penhallows, not Charles Tremlett). Falls back to all owners when the conventions rule out all."""
    names = {c.id: [unqualified(" ".join(n.split())) for n in c.all_names()] for c in gold}
    untitled = {
        o
        for o in owners
        if not any((h := split_honorific(n))[0] is not None and h[1] == first for n in names.get(o, []))
    } or owners
    surname_owners: dict[str, set[str]] = defaultdict(set)
    for character_id, listed in names.items():
        for name in listed:
            words = split_honorific(name)[1].split()
            if words and words[-1][:1].isupper():
                surname_owners[words[-1]].add(character_id)
    family = {
        o
        for o in untitled
        if any(len(surname_owners[w[-1]]) > 1 for n in names.get(o, []) if (w := n.split()) and w[0] == first)
    }
    return family or untitled


def _printed(name: str, text: str) -> bool:
    """Whether ``name`` occurs in ``text``, its words perhaps split by a line break."""
    return re.search(r"\s+".join(re.escape(w) for w in name.split()), text) is not None


def _is_title(form: str) -> bool:
    return form.lower().startswith(_ARTICLES)


def _reading(read: list[tuple[tuple[int, int], str]], starts: list[int], start: int, end: int) -> str | None:
    """The entry of the discovered mention (`_book_forms.book_readings`) that holds the span."""
    at = bisect.bisect_right(starts, start) - 1
    while at >= 0 and read[at][0][0] >= start - 60:
        (s, e), entry = read[at]
        if s <= start and end <= e:
            return entry
        at -= 1
    return None


def match_gold_names(book: Book, gold: list[Character]) -> list[Mention]:
    """Name mentions of the gold characters in the book's body, sorted by start."""
    return match_forms(book, gold_forms(book, gold))


def gold_forms(book: Book, gold: list[Character]) -> dict[str, _Form]:
    """Every spelling searched for the gold characters in ``book`` and whom it may name."""
    return _build_forms(gold, book.text[book.body.start : book.body.end])


def match_forms(
    book: Book, forms: dict[str, _Form], readings: dict[tuple[int, int], str] | None = None
) -> list[Mention]:
    """Name mentions of ``forms`` (`gold_forms`, perhaps `with_book_forms`) in the book's body, sorted
    by start."""
    if not forms:
        return []
    alternatives = sorted(forms, key=lambda f: (-len(f), f))
    # any white space between the words of a name: hard-wrapped text breaks "Mrs.\nMiller" across lines
    pattern = re.compile(
        r"(?<![\w'])(?:" + "|".join(re.escape(a).replace(r"\ ", r"\s+") for a in alternatives) + r")(?![\w])"
    )
    text = book.text
    hits = [
        (m.start(), m.end(), forms[" ".join(m.group().split())])
        for m in pattern.finditer(text, book.body.start, book.body.end)
    ]
    hits = [h for h in hits if not (h[2].bare_address and _NAME_FOLLOWS.match(text, h[1]))]
    # how often each character is named unambiguously: the tie-breaker for ambiguous forms
    sure = Counter(form.owners[0] for _, _, form in hits if len(form.owners) == 1)
    last_seen: dict[str, int] = {}
    mentions: list[Mention] = []
    read = sorted((readings or {}).items())
    read_starts = [span[0] for span, _ in read]
    for start, end, form in hits:
        owners = form.owners
        reading = _reading(read, read_starts, start, end) if len(owners) > 1 and read else None
        if len(owners) == 1:
            cid = owners[0]
            confidence = form.confidence
        elif reading in owners:
            cid = reading
            confidence = 0.6 if form.listed else 0.5
        else:
            recent = [
                (last_seen[o], o) for o in owners if start - last_seen.get(o, -(10**9)) <= RECENCY_WINDOW
            ]
            if recent:
                cid = max(recent)[1]
                confidence = 0.6 if form.listed else 0.5
            else:
                cid = max(owners, key=lambda o: (sure[o], o))
                confidence = 0.4 if form.listed else 0.3
        last_seen[cid] = start
        mentions.append(Mention(start, end, cid, "title" if form.title else "name", confidence))
    return mentions
