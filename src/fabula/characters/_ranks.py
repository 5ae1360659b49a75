"""Ranks written lowercase: "said the general" names the one person of the cast styled "General Vance".

Gold-list matching and discovery take a rank alone as a mention where the book capitalises it ("the
Colonel", `_gold_match._standalone`); many books write it lowercase in the narration ("the general's
carriage", "said the captain", "sent for the doctor"), and then the speech tags that name a man by his
rank named no one. `rank_mentions` adds those mentions once the cast is known, in both modes: "the" +
a rank or title (`STANDALONE_TITLES`: "general", "doctor", "captain") written lowercase is the one
character of the cast whose names carry that rank ("General Vance", "Dr. Quill", "the Captain"), unless
a word the book uses as a noun follows it ("the general pause", "the general opinion": there it is an
adjective). The noun test reads the book itself (`_after_determiner`: the word stands right after a
determiner somewhere in it), as `_name_modifiers` does for "the Tressel carriage"; a verb, a pronoun
or an adverb that stands after a subject (`_PERSON_AFTER`) keeps the rank a person. Of two holders of
one rank ("Colonel Vance", "Colonel Quill") the one the book names `DOMINANCE` times as often as the
other takes it (a discovered cast keeps a general named once beside the one the story follows); two
holders named about as often leave it to no one.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter

from fabula.book import Book, Character, Mention
from fabula.characters._choice import DOMINANCE, clear_winner
from fabula.characters._lexicon import SPELLED_OUT_RANKS, STANDALONE_TITLES
from fabula.characters._text import split_honorific

_RANK_AFTER_THE = re.compile(
    rf"(?<![\w'’])[Tt]he[ \t]+\n?[ \t]*({'|'.join(sorted(STANDALONE_TITLES, key=len, reverse=True))})(?![\w-])"
)


def rank_holders(characters: list[Character], named: Counter[str] | None = None) -> dict[str, str]:
    """Rank (lowercase, spelled out) -> the one character whose names carry it ("General Vance", "Dr.
    Quill", "the Captain"), or of several the one named (``named``: name mentions per character)
    `DOMINANCE` times as often as any other; a rank no one clearly holds is left out."""
    holders: dict[str, set[str]] = {}
    for character in characters:
        for name in character.all_names():
            honorific, rest = split_honorific(name)
            words = name.lower().split()
            if honorific is None and len(words) == 2 and words[0] == "the":
                honorific, rest = words[1], ""  # "the Captain" listed as the name itself
            elif honorific is None or not rest.strip():
                continue
            rank = SPELLED_OUT_RANKS.get(honorific, honorific)
            if rank in STANDALONE_TITLES:
                holders.setdefault(rank, set()).add(character.id)
    counts = named or Counter()
    found = {
        rank: clear_winner(((who, counts[who]) for who in ids), at_least=1, factor=DOMINANCE)
        if len(ids) > 1
        else next(iter(ids))
        for rank, ids in holders.items()
    }
    return {rank: who for rank, who in found.items() if who is not None}


def rank_mentions(book: Book, characters: list[Character], names: list[Mention]) -> list[Mention]:
    """Title mentions of "the <rank>" written lowercase in the book's body (the module docstring says
    when), for the one holder of each rank; none where ``names`` already has a mention."""
    from fabula.characters._discover._candidates import _PERSON_AFTER, _WORD_AFTER, _after_determiner

    holders = rank_holders(characters, Counter(m.character_id for m in names if m.character_id is not None))
    if not holders:
        return []
    text, body = book.text, book.body
    spans = sorted((m.start, m.end) for m in names if m.kind != "pronoun")
    starts = [start for start, _ in spans]
    nouns: dict[str, bool] = {}
    found: list[Mention] = []
    for match in _RANK_AFTER_THE.finditer(text, body.start, body.end):
        who = holders.get(match.group(1))
        if who is None:
            continue
        start, end = match.start(), match.end()
        at = bisect.bisect_left(starts, end)
        if at > 0 and spans[at - 1][1] > start:
            continue  # inside a mention already found
        after = _WORD_AFTER.match(text, end)
        if after is not None and after.group(1) not in _PERSON_AFTER:
            word = after.group(1)
            if word not in nouns:
                nouns[word] = _after_determiner(text, body.start, body.end, word)
            if nouns[word]:
                continue  # "the general pause": a noun follows
        found.append(Mention(start, end, who, "title", 0.9))
    return found
