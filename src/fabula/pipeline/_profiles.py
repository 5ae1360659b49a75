"""Per-character statistics computed from a book's mentions and attributed quotes (no LLM).

Conversation partners combine two signals, as in Elson et al.'s conversation networks: the addressees an
attribution method names, and turn-taking — a line answered by a different speaker within a couple of
paragraphs is counted as addressed to the previous speaker. The extractive profile is the BookWorm "lead"
baseline (Papoudakis et al., 2024): the first sentences of the book that name the character; the
characteristic lines are `fabula.describe.characteristic_lines`.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict

from fabula.analysis import CharacterProfile, Partner
from fabula.annotation import component
from fabula.book import Book, Character, Quote
from fabula.describe import K_BY_KIND, characteristic_lines, sentences_at

PROFILE_SENTENCES = K_BY_KIND["description"]  # the extractive description: BookWorm's lead-k, k = 4
CHARACTERISTIC_LINES = 3
MAX_PARTNERS = 5
TURN_PARAGRAPH_GAP = 2  # a reply within this many paragraphs counts as addressed to the previous speaker


@component("profiles", requires={"speakers", "characters", "mentions"}, assigns={"profiles"})
def profiles_component(book: Book) -> tuple[list[CharacterProfile], dict[tuple[str, str], int]]:
    """The ``profiles`` component of the annotation pipeline: `build_profiles` of the annotated book."""
    return build_profiles(book)


def build_profiles(book: Book) -> tuple[list[CharacterProfile], dict[tuple[str, str], int]]:
    """Profiles of ``book.characters`` ordered by importance, and the undirected conversation counts."""
    known = {c.id for c in book.characters}
    chapter_starts = [c.start for c in book.chapters]
    n_chapters = max(1, len(book.chapters))

    mentions_by_character: dict[str, list[int]] = defaultdict(list)  # character id -> mention starts
    named_mentions: dict[str, list[int]] = defaultdict(list)
    for mention in book.mentions:
        if mention.character_id in known:
            mentions_by_character[mention.character_id].append(mention.start)
            if mention.kind != "pronoun":
                named_mentions[mention.character_id].append(mention.start)

    quote_counts: Counter[str] = Counter()
    words_spoken: Counter[str] = Counter()
    first_quote: dict[str, int] = {}
    for quote in book.quotes:
        if quote.speaker_id in known:
            quote_counts[quote.speaker_id] += 1
            words_spoken[quote.speaker_id] += sum(
                len(book.text[s.start : s.end].split()) for s in quote.spans
            )
            first_quote.setdefault(quote.speaker_id, quote.start)

    directed = conversation_turns(book)
    pair_counts: Counter[tuple[str, str]] = Counter()
    for (speaker, addressee), count in directed.items():
        if speaker in known and addressee in known and speaker != addressee:
            a, b = sorted((speaker, addressee))
            pair_counts[(a, b)] += count
    partners_of: dict[str, Counter[str]] = defaultdict(Counter)
    for (a, b), count in pair_counts.items():
        partners_of[a][b] += count
        partners_of[b][a] += count

    names = {c.id: c.name for c in book.characters}
    lines = characteristic_lines(book, CHARACTERISTIC_LINES)
    profiles = []
    for character in book.characters:
        starts = sorted(mentions_by_character.get(character.id, []))
        presence = [0] * n_chapters
        for start in starts:
            presence[_chapter_index(chapter_starts, start)] += 1
        first = _first_offset(character, starts, first_quote.get(character.id))
        profiles.append(
            CharacterProfile(
                id=character.id,
                name=character.name,
                aliases=dict(character.aliases),
                gender=character.gender,
                gender_confidence=round(character.gender_confidence, 3),
                rank=character.rank,
                source=character.source,
                category=character.category,
                mention_count=len(starts) or character.mention_count,
                quote_count=quote_counts[character.id],
                words_spoken=words_spoken[character.id],
                first_offset=first,
                first_chapter=None if first is None else _chapter_index(chapter_starts, first) + 1,
                presence=presence,
                partners=[
                    Partner(pid, names[pid], count)
                    for pid, count in sorted(
                        partners_of[character.id].items(), key=lambda kv: (-kv[1], kv[0])
                    )[:MAX_PARTNERS]
                ],
                profile=lead_sentences(book, sorted(named_mentions.get(character.id, [])) or starts),
                lines=lines.get(character.id, []),
            )
        )
    profiles.sort(key=_importance)
    return profiles, dict(pair_counts)


def conversation_turns(book: Book) -> Counter[tuple[str, str]]:
    """Directed (speaker, addressee) line counts from named addressees and from turn-taking."""
    turns: Counter[tuple[str, str]] = Counter()
    previous: Quote | None = None
    previous_paragraph = -10
    for quote in sorted(book.quotes, key=lambda q: q.start):
        if not quote.speaker_id:
            previous = None
            continue
        paragraph = book.paragraphs.index_before(quote.start)
        if quote.addressee_ids:
            for addressee in quote.addressee_ids:
                turns[(quote.speaker_id, addressee)] += 1
        elif (
            previous is not None
            and previous.speaker_id
            and previous.speaker_id != quote.speaker_id
            and paragraph - previous_paragraph <= TURN_PARAGRAPH_GAP
        ):
            turns[(quote.speaker_id, previous.speaker_id)] += 1
        previous, previous_paragraph = quote, paragraph
    return turns


def lead_sentences(book: Book, mention_starts: list[int], limit: int = PROFILE_SENTENCES) -> list[str]:
    """The first ``limit`` distinct sentences containing one of the given mention offsets."""
    return [c.text for c in sentences_at(book, mention_starts, limit)]


def _chapter_index(chapter_starts: list[int], offset: int) -> int:
    return max(0, bisect.bisect_right(chapter_starts, offset) - 1)


def _first_offset(character: Character, mention_starts: list[int], first_quote: int | None) -> int | None:
    candidates = [
        x
        for x in (character.first, mention_starts[0] if mention_starts else None, first_quote)
        if x is not None
    ]
    return min(candidates) if candidates else None


def _importance(profile: CharacterProfile) -> tuple[int, int, int, str]:
    rank = profile.rank if profile.rank > 0 else 1_000_000
    return (rank, -(profile.mention_count + profile.quote_count), profile.first_offset or 0, profile.id)
