"""Who the first-person narrator is: the name others address in the turns around the narrator's own.

In a first-person novel the narration tags the narrator's speech with "I" ("said I", "I answered").
The paragraphs right before and after such a turn are usually the other party's, and when they address
someone by name ("My dear Pell, …", "Doctor, …") it is the narrator. So the character most often
addressed next to "I"-tagged turns (and clearly more than anyone else) is the narrator; a narrator
the text never addresses stays a nameless "Narrator" character. Evidence from the book's own quote
structure, no list of names.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import numpy as np

from fabula.book import Book, Mention
from fabula.characters._choice import DOMINANCE, clear_winner
from fabula.characters._lexicon import SPEECH_VERBS
from fabula.characters._text import Regions, is_vocative


@cache
def _first_person_tag() -> re.Pattern[str]:
    """ "I said", "said I", "I answered, …": the narration tags the narrator's own turn. Compiled on first
    use (two alternations of every speech verb: 15-60 ms), which only first-person novels make."""
    verbs = "|".join(sorted(SPEECH_VERBS, key=len, reverse=True))
    return re.compile(rf"(?<![\w'’])(?:I\s+(?:{verbs})|(?:{verbs}),?\s+I)(?![\w'’])")


#: vocatives beside "I"-tagged turns that name the narrator: at least this many, and `DOMINANCE` times
#: as many as the runner-up (in the PDNC first-person novels the narrator leads 9-4, 11-4)
MIN_ADDRESSED = 3


def first_person_tagged(book: Book, dialogue: Regions) -> set[int]:
    """Paragraph indices whose narration tags a speech with "I"."""
    text = book.text
    tag = _first_person_tag()
    out: set[int] = set()
    for i, (start, end) in enumerate(book.paragraphs.pairs()):
        if any(m.start() not in dialogue for m in tag.finditer(text, start, end)):
            out.add(i)
    return out


def addressed_beside_narrator(book: Book, names: list[Mention], dialogue: Regions) -> Counter[str]:
    """Character id -> vocatives naming it in the paragraphs right before or after an "I"-tagged turn
    (not in the "I" turn itself: there the narrator addresses someone else)."""
    if not len(book.paragraphs) or not len(dialogue):
        return Counter()
    tagged = first_person_tagged(book, dialogue)
    text = book.text
    starts = book.paragraphs.starts
    counts: Counter[str] = Counter()
    for m in names:
        if m.character_id is None or m.kind == "pronoun":
            continue
        region = dialogue.index(m.start)
        if region < 0 or not is_vocative(
            text, m.start, m.end, (dialogue.starts[region], dialogue.ends[region])
        ):
            continue
        p = int(np.searchsorted(starts, m.start, side="right")) - 1
        if p not in tagged and (p - 1 in tagged or p + 1 in tagged):
            counts[m.character_id] += 1
    return counts


def addressed_narrator(
    book: Book, names: list[Mention], dialogue: Regions, candidates: set[str] | None = None
) -> str | None:
    """The character clearly addressed beside the narrator's "I" turns, among ``candidates`` if given."""
    counts = addressed_beside_narrator(book, names, dialogue)
    scored = [(cid, n) for cid, n in counts.items() if candidates is None or cid in candidates]
    return clear_winner(scored, at_least=MIN_ADDRESSED, factor=DOMINANCE)
