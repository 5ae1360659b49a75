"""The names a book uses for a given (gold) list's characters that the list does not hold.

A list names each person once or a few times ("Miss Penrose"); the book may call her "Nora" throughout.
Discovery already joins the names the book gives one person (full names, first names, nicknames,
titles: `fabula.characters._discover`), so its clusters carry the missing forms. A discovered cluster
whose name mentions coincide with one entry's matched mentions (`CLUSTER_SHARE` of at least
`CLUSTER_VOTES` of them) is that entry's, and the spellings of its mentions that no listed or derived
form covers become forms of the entry, below every form the list gives or implies
(`fabula.characters._gold_match.with_book_forms`). A spelling two entries' clusters would take goes
to neither. Nothing here reads the list's ids or genders beyond the matched mentions, so it works for
any list and any book, and on a truncated book it sees only what the reader has read.

The same clusters read the forms the list gives several entries (`book_readings`): a mention of a
shared form ("Ashdown" of a father and a son) in a cluster that is one entry's goes to that entry. Here
a cluster is an entry's by the mentions of forms only that entry holds, so that the matcher's guess for
a shared form (the holder named last) does not vote for itself.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict

from fabula.book import Book, Character, Mention
from fabula.characters._lexicon import honorific_class
from fabula.characters._text import split_honorific

CLUSTER_VOTES = 2  # matched name mentions a discovered cluster must share with the list's entries
CLUSTER_SHARE = 0.8  # ... this share of them with one entry
MIN_USES = 2  # a spelling the book uses once says too little to be taken


def book_forms(book: Book, gold: list[Character], names: list[Mention]) -> dict[str, str]:
    """Spelling -> entry id: the names discovery finds for the entries of the list ``gold`` whose name
    mentions (``names``, as `match_gold_names` found them) are given, where the list holds no form of
    them. A titled name of a family the entry is listed in under another title ("Miss Penrose" for an
    entry listed "Mrs. Penrose") is a relative's, whatever the cluster says: not taken."""
    return book_readings(book, gold, names)[0]


def book_readings(
    book: Book, gold: list[Character], names: list[Mention], shared: frozenset[str] = frozenset()
) -> tuple[dict[str, str], dict[tuple[int, int], str]]:
    """`book_forms`, and the entry each discovered name mention's cluster is (span -> entry id): how
    discovery reads a form the list gives several entries ("Ashdown" of a father and a son). A cluster
    is an entry's by the matched mentions of forms only that entry holds (``shared``: the spellings
    several entries hold), so that a shared form's guess does not vote for itself."""
    from fabula.characters._discover import discover_cast

    found = discover_cast(book)
    if not found.mentions or not names:
        return {}, {}
    starts = [m.start for m in names]
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    sure: dict[str, Counter[str]] = defaultdict(Counter)  # ... of forms one entry holds
    # per cluster, the spellings of its mentions that overlap no matched name: names the list lacks (a
    # partly matched one, "Nora Penrose" with its "Penrose", may join a first name to another's surname)
    spelled: dict[str, list[str]] = defaultdict(list)
    for mention in found.mentions:
        at = bisect.bisect_left(starts, mention.start)
        inside = [
            names[i]
            for i in range(max(0, at - 1), min(len(names), at + 3))
            if names[i].start < mention.end and mention.start < names[i].end
        ]
        cluster = mention.character_id or ""
        for name in inside:
            votes[cluster][name.character_id or ""] += 1
            if " ".join(book.text[name.start : name.end].split()) not in shared:
                sure[cluster][name.character_id or ""] += 1
        if not inside:
            spelled[cluster].append(" ".join(book.text[mention.start : mention.end].split()))
    claims: dict[str, set[str]] = defaultdict(set)
    uses: Counter[str] = Counter()
    for cluster, counts in votes.items():
        entry = _claimed(counts)
        if entry is None:
            continue
        for spelling in spelled.get(cluster, []):
            claims[spelling].add(entry)
            uses[spelling] += 1
    styled = {c.id: _styles(c) for c in gold}
    spellings = {
        spelling: entries.pop()
        for spelling, entries in claims.items()
        if len(entries) == 1
        and uses[spelling] >= MIN_USES
        and not _relative(spelling, styled[next(iter(entries))])
    }
    owner = {cluster: entry for cluster, counts in sure.items() if (entry := _claimed(counts)) is not None}
    readings = {
        (m.start, m.end): owner[m.character_id]
        for m in found.mentions
        if m.character_id in owner and m.kind != "pronoun"
    }
    return spellings, readings


def _claimed(counts: Counter[str]) -> str | None:
    """The entry a cluster is, by its votes: `CLUSTER_VOTES` of them and `CLUSTER_SHARE` of all."""
    if not counts:
        return None
    (entry, top), total = counts.most_common(1)[0], sum(counts.values())
    return entry if entry and top >= CLUSTER_VOTES and top >= CLUSTER_SHARE * total else None


def _styles(character: Character) -> set[tuple[str, str]]:
    """(surname, honorific class) of each titled name of the entry: "Mrs. Penrose" -> ("penrose", "married")."""
    return {style for name in character.all_names() if (style := _style(name)) is not None}


def _style(name: str) -> tuple[str, str] | None:
    """(surname, honorific class) of a titled name ("Miss de Brocq" -> ("brocq", "unmarried")), else None."""
    honorific, rest = split_honorific(name)
    words = rest.split()
    return (words[-1].lower(), honorific_class(honorific)) if honorific is not None and words else None


def _relative(spelling: str, styles: set[tuple[str, str]]) -> bool:
    """Whether ``spelling`` is a titled name of a surname the entry holds only under other titles."""
    style = _style(spelling)
    if style is None:
        return False
    kinds = {kind for surname, kind in styles if surname == style[0]}
    return bool(kinds) and style[1] not in kinds
