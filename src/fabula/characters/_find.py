"""`find_characters`: the cast of a book (gold or discovered) with all their mentions."""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from collections.abc import Collection

from fabula.book import Book, Character, Mention, plain_view
from fabula.characters._book_forms import book_readings
from fabula.characters._gender import estimate_genders
from fabula.characters._gold_match import gold_forms, is_pseudo_name, match_forms, with_book_forms
from fabula.characters._narrator import addressed_narrator
from fabula.characters._pronouns import PronounMatch, is_first_person, pronoun_matches, resolve_pronouns
from fabula.characters._ranks import rank_mentions
from fabula.characters._text import Regions, dialogue_regions

NARRATOR_ID = "narrator"
_NARRATOR_MIN_MENTIONS = 8
_NARRATOR_DIALOGUE_SHARE = 0.8


def find_characters(
    book: Book,
    *,
    gold: list[Character] | None = None,
    ner_model: str | None = None,
    skip: Collection[str] = (),
    gold_book_forms: bool = True,
) -> list[Character]:
    """The characters of ``book`` with their aliases, gender, counts and rank; sets ``book.characters``
    and ``book.mentions`` (name, title and pronoun mentions sorted by start).

    With ``gold`` the given characters are matched in the text and keep their ids; without it they
    are discovered (ids ``C1``, ``C2``, … by importance). Only ``book.text`` is read, so a truncated
    book (``book.truncated(offset)``) yields exactly what a reader at that offset knows. When quotes
    are already on the book, first-person pronouns inside them go to the quote's speaker.
    ``ner_model`` (a spaCy package name or path) adds PERSON entities as extra evidence in discovery;
    ``skip`` switches discovery passes off by name (`fabula.characters.DISCOVERY_PASSES`), to measure them.
    With ``gold_book_forms`` a gold entry is also found under the names discovery joins to its listed
    ones ("Nora" of a list's "Miss Penrose": `fabula.characters._book_forms`), below every listed form.
    """
    target = book
    view = plain_view(book.text)  # a CRLF file or no-break spaces: the cast of the plain copy
    if view is not book.text:
        book = dataclasses.replace(book, text=view)
    unevidenced: frozenset[str] = frozenset()  # discovered characters the book never shows as people
    set_aside: list[Character] = []
    pronoun_scan: list[PronounMatch] | None = None  # the body's pronouns, where discovery scanned them
    if gold is not None:
        characters = [_fresh(c) for c in gold]
        forms = gold_forms(book, characters)
        names = match_forms(book, forms)
        if gold_book_forms:
            shared = frozenset(spelling for spelling, form in forms.items() if len(form.owners) > 1)
            extra, readings = book_readings(book, characters, names, shared)
            if extra or readings:
                names = match_forms(book, with_book_forms(forms, extra), readings)
    else:
        from fabula.characters._discover import discover_cast

        found = discover_cast(book, ner_model=ner_model, skip=skip)
        characters, names, unevidenced = found.characters, found.mentions, found.unevidenced
        pronoun_scan = found.pronouns
        if found.set_aside:
            characters, names, set_aside = _set_aside(book, characters, names, found.set_aside)
    ranks = rank_mentions(book, characters, names)  # "said the general": the one General of the cast
    if ranks:
        names = sorted([*names, *ranks], key=lambda m: (m.start, m.end))
    dialogue = dialogue_regions(book)
    narrator_id: str | None = None
    if pronoun_scan is None:
        pronoun_scan = pronoun_matches(book)
    if characters and is_first_person(book, dialogue, pronoun_scan):
        narrator_id = _narrator(book, characters, names, dialogue, gold is not None)
        if narrator_id == NARRATOR_ID:
            characters.append(Character(NARRATOR_ID, "Narrator", gender="unknown"))
        for character in characters:
            character.narrator = character.id == narrator_id
    estimate_genders(book, characters, names, names_only=unevidenced)
    # an entry the book never shows as a person (a book, a place) is no antecedent of "he" or "she"
    antecedents = [m for m in names if m.character_id not in unevidenced] if unevidenced else names
    pronouns = resolve_pronouns(book, antecedents, characters, dialogue, narrator_id, pronoun_scan)
    mentions = sorted([*names, *pronouns], key=lambda m: (m.start, m.end))
    _fill_counts(book, characters, mentions, unevidenced - {narrator_id})
    if gold is None:
        characters = _renumber(characters, mentions)
    target.characters = characters
    target.mentions = mentions
    target.set_aside = set_aside
    return characters


def _set_aside(
    book: Book, characters: list[Character], names: list[Mention], ids: frozenset[str]
) -> tuple[list[Character], list[Mention], list[Character]]:
    """The characters and name mentions without the entries ``ids`` (named, never shown as people), and
    those entries with their own counts and rank, ids ``S1``, ``S2``, … by name mentions: out of the cast
    that every command reads, kept to be inspected."""
    kept = [c for c in characters if c.id not in ids]
    aside = [c for c in characters if c.id in ids]
    _fill_counts(book, aside, [m for m in names if m.character_id in ids])
    for character in aside:
        character.id = f"S{character.rank}"
    return kept, [m for m in names if m.character_id not in ids], sorted(aside, key=lambda c: c.rank)


def _fresh(character: Character) -> Character:
    """A copy of a gold character with counts cleared (aliases kept, counts recomputed)."""
    return Character(
        id=character.id,
        name=character.name,
        aliases={a: 0 for a in character.aliases},
        gender=character.gender,
        gender_confidence=character.gender_confidence,
        source=character.source,
        category=character.category,
    )


def _narrator(
    book: Book, characters: list[Character], names: list[Mention], dialogue: Regions, gold: bool
) -> str | None:
    """Who says "I" in the narration: a gold character marked as narrator, else the character named
    almost only inside dialogue (the narration says "I"): in discovery mode the one others address
    by name beside the narrator's own "I"-tagged turns (`_narrator.py`), else a separate "Narrator"
    character; with a gold list that marks no narrator the one addressed so, else the one most named
    in dialogue."""
    if gold:
        for character in characters:
            if any(is_pseudo_name(a) and "narr" in a.lower() for a in character.all_names()):
                return character.id
    total: Counter[str] = Counter()
    spoken: Counter[str] = Counter()
    for m in names:
        if m.character_id is None:
            continue
        total[m.character_id] += 1
        if m.start in dialogue:
            spoken[m.character_id] += 1
    # the narration says "I": the narrator's name is found almost only in dialogue
    candidates = {
        cid
        for cid, n in total.items()
        if n >= _NARRATOR_MIN_MENTIONS and spoken[cid] / n >= _NARRATOR_DIALOGUE_SHARE
    }
    # ... and others address them in the turns beside their own "I"-tagged ones
    addressed = addressed_narrator(book, names, dialogue, candidates)
    if gold:
        return addressed or max(((spoken[cid], cid) for cid in candidates), default=(0, None))[1]
    return addressed or NARRATOR_ID


def _fill_counts(
    book: Book, characters: list[Character], mentions: list[Mention], last: Collection[str] = ()
) -> None:
    """Mention counts, aliases' counts, first and last mention, and rank: by name mentions, then all
    mentions, except that the characters in ``last`` (discovered ones the book gives no person evidence
    for: a place, a book, a capitalised adjective, a minor person named in passing) rank after all others."""
    by_id = {c.id: c for c in characters}
    surface_counts: dict[str, Counter[str]] = defaultdict(Counter)
    for m in mentions:
        character = by_id.get(m.character_id or "")
        if character is None:
            continue
        character.mention_count += 1
        if m.kind != "pronoun":
            surface_counts[character.id][" ".join(book.text[m.start : m.end].split())] += 1
            character.first = m.start if character.first is None else character.first
            character.last = m.start
    for character in characters:
        counts = Counter(surface_counts.get(character.id, Counter()))
        if character.source == "predicted" and character.name not in counts:
            # discovery's display name writes "Mr." with a period and "M" without; a book that writes
            # "Mr Holloway" or "M. Perrin" shows its own form, as a reader's cut of it does
            # (`hide_unseen_names`)
            key = _unpunctuated(character.name)
            written = [surface for surface in counts if _unpunctuated(surface) == key]
            if written:
                character.name = max(written, key=lambda surface: (counts[surface], surface))
        for alias in list(character.aliases):
            character.aliases[alias] = counts.pop(alias, 0)
        for surface, n in counts.items():
            if surface != character.name:
                character.aliases[surface] = character.aliases.get(surface, 0) + n
    names_per_character = {cid: sum(counts.values()) for cid, counts in surface_counts.items()}
    order = sorted(
        characters,
        key=lambda c: (c.id in last, -names_per_character.get(c.id, 0), -c.mention_count, c.first or 0),
    )
    for rank, character in enumerate(order, start=1):
        character.rank = rank


def _unpunctuated(name: str) -> str:
    """``name`` without its periods, single-spaced, case kept: "Mr Holloway" and "Mr. Holloway" are one
    way of writing, "The Ashdowns" at a sentence start another."""
    return " ".join(name.replace(".", " ").split())


def _renumber(characters: list[Character], mentions: list[Mention]) -> list[Character]:
    """Discovered characters get ids C1, C2, … in rank order (the narrator keeps its id)."""
    ordered = sorted(characters, key=lambda c: c.rank)
    new_ids: dict[str, str] = {}
    for i, character in enumerate(c for c in ordered if c.id != NARRATOR_ID):
        new_ids[character.id] = f"C{i + 1}"
    for character in ordered:
        character.id = new_ids.get(character.id, character.id)
    for m in mentions:
        if m.character_id is not None:
            m.character_id = new_ids.get(m.character_id, m.character_id)
    return ordered
