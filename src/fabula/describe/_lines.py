"""A character's most characteristic lines: the attributed quotes whose words are most their own.

Each word gets a weighted log-odds score of being said by this speaker rather than by the others, with
an informative Dirichlet prior from all dialogue (Monroe, Colaresi and Quinn, 2008, "Fightin' Words");
a line scores the mean of its words' z-scores, so lines full of the speaker's own vocabulary ("my
nerves", "Lady Honoria") rank first. Lines of 6-40 words only: shorter ones are greetings, longer ones
speeches; and lines with at least 3 distinct content words (not stop words, four letters or more), so a
run of small words ("Yes, I see it is, sir") never stands for a voice. The words of the characters' names
count for nothing, neither in a line's score nor among its content words: the names a speaker says most
are those of whom they talk to, which made "Oh, <name>, whatever do you mean?" a speaker's most
characteristic line, twice with two names. The lines shown are distinct: one that repeats most of a line
already chosen, word for word in order (`NEAR_DUPLICATE` of the shorter one's words), is passed over for
the next, and a quotation that repeats one of its own pieces ("Not now! … Not now!") shows it once. A
line that names its own speaker is not shown (`_names_its_speaker`), though its words still count among
everyone's. The scores are a few dictionary sums, not worth a dependency.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Collection
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import chain
from typing import Any

from fabula._parallel import can_fork, start_ahead, take_ahead
from fabula.book import Book, Quote, normalize_text

MIN_LINE_WORDS = 6
MAX_LINE_WORDS = 40
MIN_CONTENT_WORDS = 3
PRIOR_STRENGTH = 500.0  # pseudo-counts of the all-dialogue prior
NEAR_DUPLICATE = 0.6  # a line repeating this share of a chosen line's words (the shorter's), in order
#: a book with at least this many quotes has its lines read in a forked child (`read_lines_ahead`): about 40 ms of
#: work on a fast machine, against 10-20 ms that a fork costs the parent in copied pages
AHEAD_QUOTES = 800


def characteristic_lines(book: Book, limit: int = 3) -> dict[str, list[str]]:
    """Up to ``limit`` lines per speaking character (id -> lines), most characteristic first."""
    said: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    spoken: list[tuple[str, ...]] = []  # every line's words, in the book's order
    raw = book.text
    english = book.meta.language != "zh"
    taken, ahead = take_ahead(_ahead_key(book))  # `read_lines_ahead`'s, where this process started it
    lines_of, content_of = ahead if taken else ({}, {})
    named = _name_starts(book)
    for quote in sorted(book.quotes, key=lambda q: q.start):
        if not quote.speaker_id:
            continue
        pieces = tuple(raw[span.start : span.end] for span in quote.spans)
        line = lines_of.get(pieces) or _line(pieces)
        spoken.append(line[1])
        if not _names_its_speaker(quote, named.get(quote.speaker_id, [])):
            said.setdefault(quote.speaker_id, []).append(line)
    # the words counted in one go (a Counter.update per line cost more than the counting itself)
    everyone = Counter(chain.from_iterable(spoken))
    names = _name_words(book)
    out: dict[str, list[str]] = {}
    for speaker, lines in said.items():
        kept: list[tuple[int, str, tuple[str, ...]]] = []  # the lines that may stand for the voice
        seen: set[str] = set()
        for order, (text, words) in enumerate(lines):
            key = " ".join(words)
            if not MIN_LINE_WORDS <= len(words) <= MAX_LINE_WORDS or key in seen:
                continue
            content = content_of.get(text)
            if len((_content(text, english) if content is None else content) - names) < MIN_CONTENT_WORDS:
                continue
            seen.add(key)
            kept.append((order, text, words))
        if not kept:
            out[speaker] = []
            continue
        # the z-scores of the kept lines' words only (the others' are never read); names score nothing
        mine = Counter(chain.from_iterable(words for _, words in lines))
        z = _log_odds(mine, everyone, {w for _, _, words in kept for w in words} - names)
        scored = [
            (sum(z.get(w, 0.0) for w in words) / len(words), order, text, words)
            for order, text, words in kept
        ]
        scored.sort(key=lambda row: (-row[0], row[1]))
        chosen: list[tuple[str, tuple[str, ...]]] = []
        for _, _, text, words in scored:
            if not any(_near_duplicate(words, other) for _, other in chosen):
                chosen.append((text, words))
                if len(chosen) == limit:
                    break
        out[speaker] = [text for text, _ in chosen]
    return out


def _name_starts(book: Book) -> dict[str, list[int]]:
    """Where each character is named (name and title mentions), sorted."""
    starts: dict[str, list[int]] = {}
    for mention in book.mentions:
        if mention.character_id is not None and mention.kind in ("name", "title"):
            starts.setdefault(mention.character_id, []).append(mention.start)
    for found in starts.values():
        found.sort()
    return starts


def _names_its_speaker(quote: Quote, starts: list[int]) -> bool:
    """Whether the quote names the character it is attributed to ("Good-by, my sweet <name>"): people
    seldom name themselves, and on PDNC such a line's speaker is wrong 37 % of the time (41 % on the
    frozen novels) against 15 % for the others, so it does not stand for the speaker's voice."""
    return any(bisect_left(starts, span.start) < bisect_left(starts, span.end) for span in quote.spans)


def read_lines_ahead(book: Book) -> bool:
    """Start reading every quote's line and content words (`_line`, `_content`: functions of its text alone) in a
    forked child (`fabula._parallel.start_ahead`), for `characteristic_lines` to take later: ``fabula analyze``
    starts it once the quotes are found and the second core is idle, and the profiles no longer split and fold
    every line themselves (about two thirds of their work). The child's values are looked up by the quote's
    text, so a quote whose text changed meanwhile is read here as before. False where no child was started (also
    for a book of fewer than `AHEAD_QUOTES` quotes)."""
    if len(book.quotes) < AHEAD_QUOTES or not can_fork():  # (`fabula serve`'s threads never fork)
        return False
    english = book.meta.language != "zh"
    raw = book.text

    def read() -> tuple[dict[tuple[str, ...], tuple[str, tuple[str, ...]]], dict[str, frozenset[str]]]:
        # in the child: the quotes as they are at the fork
        quotes = [tuple(raw[span.start : span.end] for span in quote.spans) for quote in book.quotes]
        lines = {pieces: _line(pieces) for pieces in quotes}
        lengths = range(MIN_LINE_WORDS, MAX_LINE_WORDS + 1)  # the only lines whose content words are read
        return lines, {
            text: _content(text, english) for text, words in lines.values() if len(words) in lengths
        }

    return start_ahead(_ahead_key(book), read)


def _ahead_key(book: Book) -> tuple[str, int]:
    return ("describe.lines", id(book))


def _name_words(book: Book) -> frozenset[str]:
    """The folded words of the characters' names and aliases that are written with a capital (titles and
    names alike; not the lowercase words of an alias such as "the doctor")."""
    return frozenset(
        folded
        for character in book.characters
        for name in character.all_names()
        for piece in name.split()
        if piece[:1].isupper() and (folded := _fold(piece)) is not None
    )


def _near_duplicate(words: tuple[str, ...], other: tuple[str, ...]) -> bool:
    """Whether two lines share, in order, at least `NEAR_DUPLICATE` of the shorter one's words."""
    matcher = SequenceMatcher(None, words, other, autojunk=False)
    shared = sum(block.size for block in matcher.get_matching_blocks())
    return shared >= NEAR_DUPLICATE * min(len(words), len(other))


# A line's words depend on its own text only, so they are kept per text (bounded): a reading companion
# that analyses the same book up to one position after another (``fabula serve``) finds the lines of
# the earlier text again instead of splitting and folding them anew; a single analysis pays a lookup.
_LINES_KEPT = 1 << 14


@lru_cache(maxsize=_LINES_KEPT)
def _line(pieces: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """A quote's line as people read it (its sub-quotes' texts, normalised as `Book.span_text` does,
    joined by an ellipsis) and its folded words."""
    shown: dict[tuple[str, ...], str] = {}  # a piece said again in the same quotation is shown once
    for piece in pieces:
        text = normalize_text(piece)
        shown.setdefault(tuple(_words(text)), text)
    # the ellipsis folds to no word, so the line's words are its shown pieces' words in order
    return " … ".join(shown.values()), tuple(chain.from_iterable(shown))


@lru_cache(maxsize=_LINES_KEPT)
def _content(text: str, english: bool) -> frozenset[str]:
    """``content_words(text, english)``, kept per line (see `_line`)."""
    return frozenset(content_words(text, english))


def content_words(text: str, english: bool = True) -> set[str]:
    """The distinct content words of a line: not stop words and, in English, four letters or more."""
    analyzer = _content_analyzer(english)
    return {w for w in analyzer(text) if len(w) >= 4 or not english}


@lru_cache(maxsize=2)
def _content_analyzer(english: bool) -> Any:
    from fabula.retrieval import Analyzer

    return Analyzer("en" if english else "zh", stem=False, stopwords="en_plus" if english else "zh")


def _log_odds(mine: Counter[str], everyone: Counter[str], words: Collection[str]) -> dict[str, float]:
    """z-scores of the log-odds ratio of each of ``words`` (some of ``mine``), this speaker versus the
    others."""
    total_all = sum(everyone.values())
    total_mine = sum(mine.values())
    total_rest = total_all - total_mine
    scores: dict[str, float] = {}
    if total_rest <= 0:  # the only speaker: no one to contrast with
        return scores
    for word in words:
        count = mine[word]
        prior = PRIOR_STRENGTH * everyone[word] / total_all
        rest = everyone[word] - count
        a = math.log((count + prior) / (total_mine + PRIOR_STRENGTH - count - prior))
        b = math.log((rest + prior) / (total_rest + PRIOR_STRENGTH - rest - prior))
        scores[word] = (a - b) / math.sqrt(1.0 / (count + prior) + 1.0 / (rest + prior))
    return scores


_ALNUM = re.compile(r"[^\W_]")  # a character for which str.isalnum() holds (re's \w is that or "_")


def _words(text: str) -> list[str]:
    """The folded words (`_fold`) of ``text``'s white-space separated pieces that hold a letter or digit."""
    return [folded for piece in text.split() if (folded := _fold(piece)) is not None]


#: what an ASCII word keeps when folded: its letters and digits, and apostrophes
_ASCII_FOLD = str.maketrans(
    "", "", "".join(chr(c) for c in range(128) if not chr(c).isalnum() and chr(c) != "'")
)


@lru_cache(maxsize=65536)
def _fold(piece: str) -> str | None:
    """A piece of a line as a word: casefolded, only letters, digits and apostrophes kept; None when it
    holds no letter or digit (a dash, an ellipsis). Kept per piece (one lookup per word of a line)."""
    if _ALNUM.search(piece) is None:
        return None
    if piece.isascii():  # casefold is lower for ASCII; then the same characters dropped, in one call
        return piece.lower().translate(_ASCII_FOLD)
    return "".join(ch for ch in piece.casefold() if ch.isalnum() or ch == "'")
