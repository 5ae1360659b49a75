"""Name candidates: runs of capitalised words (with an honorific, or "the X" titles) in the narration
and dialogue, cleaned (headings, verse, title-case tails, sentence-initial common words), and the
person test that keeps the forms that name people (`_accept`)."""

from __future__ import annotations

import bisect
import re
from array import array
from collections import Counter, defaultdict
from dataclasses import dataclass

from fabula._letters import LATIN_LOWER, LATIN_UPPER
from fabula._parallel import can_fork, fork_call
from fabula.book import BLANK_LINE, Book, prefix_layers, prefix_stable
from fabula.characters._lexicon import (
    ABBREVIATED_HONORIFICS,
    BODY_WORDS,
    HONORIFIC_CLASSES,
    HONORIFICS,
    NAME_PARTICLES,
    NICKNAMES,
    NON_NAMES,
    PERSON_VERBS,
    PLACE_OPENINGS,
    PLACE_PREPOSITIONS,
    PLACE_WORDS,
    SPEECH_VERBS,
    STANDALONE_TITLES,
    SURNAME_HONORIFICS,
    given_name_gender,
)
from fabula.characters._pronouns import PronounMatch, _pronoun_scan
from fabula.characters._text import Regions, follows_speech, is_sentence_initial

_UPPER = LATIN_UPPER  # every latin-script capital: "Łukasz", "Şafak" are names too


_LOWER = LATIN_LOWER


#: a capitalised word: "Tamsin", "Jean-Luc", "McDonald" as "Mc" + "Donald" runs on; a capital and an
#: apostrophe before it belong to it ("O'Hara", "D'Arcy", "M'Baku": without them the word was lost)
_CAP_WORD = rf"(?:[{_UPPER}]['’](?=[{_UPPER}]))?[{_UPPER}][{_LOWER}]+(?:['’-][{_UPPER}{_LOWER}][{_LOWER}]+)*"


_HONORIFIC_ALT = "|".join(sorted((h.capitalize() for h in HONORIFICS), key=len, reverse=True))


_ABBREV_ALT = "|".join(
    sorted((h.capitalize() for h in ABBREVIATED_HONORIFICS & HONORIFICS.keys()), key=len, reverse=True)
)


_FULL_ALT = "|".join(
    sorted((h.capitalize() for h in HONORIFICS.keys() - ABBREVIATED_HONORIFICS), key=len, reverse=True)
)


_GAP = r"[ \t]*\n?[ \t]*"  # words of one name may be split by a line break, never by a blank line
#: ... and after a particle, at least a space or a line break: "la" and "ter" run together are the word
#: "later" ("Somewhat later Robert came"), no particles; only "d'" joins its word ("d'Aubigny")
_PARTICLE_GAP = r"(?:[ \t]+\n?|\n)[ \t]*"
_INNER_PARTICLES = "|".join(
    sorted((p for p in NAME_PARTICLES if p not in {"of", "d'"}), key=len, reverse=True)
)


#: particles that may open a surname after an honorific: "Mrs. van der Vorst", "Monsieur de Vaucelles"
_LEADING_PARTICLES = "van|von|der|den|de|du|des|la|le|di|da|del|della|ten|ter"


#: "St." before a capitalised word in a name after a title is a word of it ("Mr. St. Aubyn", "Lady de
#: St. Aubyn"), not the end of a sentence: a word of the name where the run opened with a title, nothing
#: otherwise. Without a title the run is left as before: "Thornbury St. Anne" is as likely a village as
#: "Ambrose St. Clere" a man, and a place word ends it either way
_TITLED_SAINT = rf"(?(abbr)St\.(?={_GAP}[{_UPPER}])|(?(hon)St\.(?={_GAP}[{_UPPER}])|(?!)))"


_RUN = re.compile(
    rf"(?<![\w'’.])(?<!\w-)(?:(?:(?P<abbr>{_ABBREV_ALT})\.?|(?P<hon>{_FULL_ALT})){_GAP})?"
    rf"(?P<name>(?:(?(abbr)|(?(hon)|(?!)))(?:{_LEADING_PARTICLES})(?:[ \t]+(?:{_LEADING_PARTICLES}))?[ \t]+)?(?:{_TITLED_SAINT}|{_CAP_WORD})(?:{_GAP}(?:(?:{_INNER_PARTICLES}){_PARTICLE_GAP}|d'){{0,2}}(?!(?:{_HONORIFIC_ALT})\b)(?:{_TITLED_SAINT}|{_CAP_WORD}|[{_UPPER}]\.))*)"
    rf"(?P<poss>['’]s)?(?![\w])"
)


#: where a `_RUN` match can start: it always opens with a capital (an honorific's, or the name's first
#: word's, since particles lead only after an honorific), so `_runs` tries `_RUN` only there
_RUN_OPENING = re.compile(f"[{_UPPER}]")


_TOKEN = re.compile(r"\S+")


def _runs(text: str, start: int, end: int) -> list[re.Match[str]]:
    """``_RUN.finditer(text, start, end)``, the same matches, ~3x faster: the pattern opens with
    look-behinds, so the regex engine tries it at every offset; here it is tried only at capitals,
    where a match can start, and the scan resumes after each match as `finditer` does."""
    out: list[re.Match[str]] = []
    opening = _RUN_OPENING.search(text, start, end)
    while opening is not None:
        match = _RUN.match(text, opening.start(), end)
        if match is not None:
            out.append(match)
            start = match.end()
        else:
            start = opening.start() + 1
        opening = _RUN_OPENING.search(text, start, end)
    return out


#: a lowercase word not preceded by a word character or an apostrophe; the first letter is read before the
#: look-behind checks the character before it, so the engine skips to lowercase letters (same matches)
_LOWER_WORD = re.compile(rf"[{_LOWER}](?<![\w'’].)[{_LOWER}'’-]*")


def lowercase_words(book: Book) -> Counter[str]:
    """How often each lowercase word (`_LOWER_WORD`) is written in the book's body. A prefix-stable
    layer (`fabula.book.PrefixLayers`): a word has no white space, and its match reads one character
    before and after it; on a cut book the words before `PrefixLayers.settled` are counted from the
    whole book's list."""
    layers = prefix_layers(book)
    text, start, end = book.text, book.body.start, book.body.end
    if layers is None:
        return Counter(_LOWER_WORD.findall(text, start, end))
    starts, ends, words, counted = layers.layer("characters.lowercase")
    kept = bisect.bisect_left(starts, layers.settled(book))
    resume = ends[kept - 1] if kept else start
    # the counts of the first `_COUNTED_EVERY` * k words, then the words after them: the same counts, and
    # the same order of first appearance, as counting the kept words afresh
    k = min(kept // _COUNTED_EVERY, len(counted))
    counts = counted[k - 1].copy() if k else Counter()
    counts.update(words[k * _COUNTED_EVERY : kept])
    counts.update(_LOWER_WORD.findall(text, resume, end))
    return counts


_COUNTED_EVERY = 16384  # words between the whole book's running counts kept (`_lowercase_list`)


@prefix_stable("characters.lowercase")
def _lowercase_list(book: Book) -> tuple[array[int], array[int], list[str], list[Counter[str]]]:
    """The starts, ends and words of every `_LOWER_WORD` match in the body, in order (the offsets as
    arrays and each word one shared string: a novel has ~150K of them, a few thousand distinct), and
    the counts of the first `_COUNTED_EVERY`, 2 * `_COUNTED_EVERY`, ... of them (a cut counts only the
    words after the last of these it holds)."""
    starts, ends, words = array("q"), array("q"), []
    vocabulary: dict[str, str] = {}
    for m in _LOWER_WORD.finditer(book.text, book.body.start, book.body.end):
        starts.append(m.start())
        ends.append(m.end())
        word = m.group()
        words.append(vocabulary.setdefault(word, word))
    counted: list[Counter[str]] = []
    running: Counter[str] = Counter()
    for first in range(0, len(words) - _COUNTED_EVERY + 1, _COUNTED_EVERY):
        running.update(words[first : first + _COUNTED_EVERY])
        counted.append(running.copy())
    return starts, ends, words, counted


#: "the" and the lowercase word after it; opens with the literal "the" (the engine searches for it) and
#: then checks the character before it, the same matches as a look-behind in front
_THE_LOWER = re.compile(rf"the(?<![\w'’]the)\s+([{_LOWER}]+)(?![\w'’])")


_LOWER_COMPOUND = re.compile(rf"[{_UPPER}][{_LOWER}]+-[{_LOWER}]+")  # "Cold-hearted Rosalind", not "Mary-Ann"


_PLACE_AFTER = re.compile(
    rf"[ \t]+(?:{'|'.join(w.capitalize() for w in sorted(PLACE_WORDS) if w.isalpha())})\b"
)


_PREV_WORD = re.compile(r"([A-Za-z]+)[^\w\n]{0,3}$")


_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _previous_word(text: str, start: int, end: int) -> tuple[int, str] | None:
    r"""Where ``_PREV_WORD.search(text, start, end)`` finds its word, and the word: the ASCII letters just
    before ``end``, with at most three characters between that are neither word characters (``str.isalnum``
    or ``_``, re's ``\w``) nor line breaks, and maybe one line break at ``end`` (``$`` matches before a final
    one). Read backwards from ``end`` instead of trying the pattern at each of the 30 offsets before it: the
    same answer (tested at every offset of a novel and on random text), a third of the time of `_occurrence`."""
    j = end - 1 if end > start and text[end - 1] == "\n" else end
    k = j
    while k > start and j - k < 3:
        ch = text[k - 1]
        if ch == "\n" or ch == "_" or ch.isalnum():
            break
        k -= 1
    if k == start or text[k - 1] not in _ASCII_LETTERS:
        return None
    r = k - 1
    while r > start and text[r - 1] in _ASCII_LETTERS:
        r -= 1
    return r, text[r:k]


#: a capitalised word and "of" just before a name: "the Queen of Clubs", "the Prince of Wales"
_TITLE_OF = re.compile(rf"({_CAP_WORD})\s+of\s+$")


_POSSESSIVES = frozenset({"your", "his", "her", "their", "our", "its"})


#: the words an oath puts before the name it swears by ("my God", "by Jove", "O Lawd", "my Gawd")
_OATH_OPENERS = frozenset({"my", "by", "o"})


#: person verbs any noun takes ("what Latitude was", "the Severn had"): weak evidence on their own
_AUXILIARIES = frozenset({"was", "is", "had", "has"})


#: mid-sentence uses that, with only an auxiliary after one of them, make a bare word a person when
#: the word is no given name
MIN_AUXILIARY_MID = 3


#: "he"/"she" within a few words after a name, in its sentence
_SUBJECT_PRONOUN_AFTER = re.compile(r"[^,.!?;:\n\"“”]{0,30}?(?<![\w'’])(?:he|she)(?![\w'’])", re.IGNORECASE)


#: first words of a place's name ("Upper Norwood", "South Lambeth")
_PLACE_QUALIFIERS = frozenset({"upper", "lower", "north", "south", "east", "west"})


#: "Upper|Lower|North|South|East|West" after a word boundary, then a capitalised word; written to open with
#: the first letters (the boundary and the rest checked after them) so the engine skips to those letters
_QUALIFIED_PLACE = re.compile(
    r"[ULNSEW](?<!\w.)(?:(?<=U)pper|(?<=L)ower|(?<=N)orth|(?<=S)outh|(?<=E)ast|(?<=W)est)[ \t]+([A-Z][a-z]{2,})\b"
)


def _qualified_places(text: str) -> set[str]:
    """Words the book also writes after a place qualifier ("Upper Norwood", "South Lambeth"): the book
    itself says they name a place, so their bare uses ("this Norwood business") are places too."""
    return {m.group(1) for m in _QUALIFIED_PLACE.finditer(text)}


_NOBLE = frozenset(
    {"lady", "sir", "lord", "duke", "duchess", "earl", "count", "countess", "prince", "princess"}
)


_FormKey = tuple[str | None, tuple[str, ...]]  # (honorific or "the" or None, words)


#: honorifics used with a first name ("Lady Honoria", "Aunt Hetty"), not with a surname
_FIRST_NAME_TITLES = frozenset({"lady", "sir", "lord", "aunt", "uncle", "cousin", "auntie", "granny"})


#: honorifics of a married woman: "Mrs. X" joins only a cluster already holding one (or a lone wife)
#: family words (and "Comrade") used as titles: they say nothing about Mr./Mrs./Miss ("Aunt Hetty" is
#: Mrs. Pim, "Comrade Quell" is Mr. Quell)
_KINSHIP = frozenset({"aunt", "uncle", "cousin", "auntie", "granny", "grandfather", "grandmother", "comrade"})


_CIVIL_CLASSES = frozenset({"plain", "married", "unmarried"})  # Mr./Mrs./Miss, not "King James"


_WIFE_TITLES = frozenset({h for h, kind in HONORIFIC_CLASSES.items() if kind == "married"} | {"lady"})


_MALE_TITLES = frozenset({"dr", "doctor", "professor", "inspector"})


@dataclass(slots=True)
class _Occurrence:
    start: int
    end: int
    honorific: str | None  # lowercase, without the period
    words: tuple[str, ...]
    initial: bool
    titled: bool  # "the X"
    speech: bool
    person_verb: bool
    auxiliary: bool  # the verb after it is "was"/"is"/"had"/"has": any noun may take it
    pronoun_after: bool  # "he"/"she" soon after it in its sentence ("the fault of Philomena is that she")
    place_prep: bool
    possessed: bool  # "your Majesty", "his Lordship": a form of address, not a name
    oath: bool = False  # after "my", "by" or "O" ("my Gawd!", "by Jove"): what an oath swears by
    title_of: bool = False  # "(the Queen) of Clubs": the complement of a capitalised title
    to_before: bool = False  # "went to Vienna", "drove to the Pincio": where one goes, or to whom


#: a block of at least this many lines, each opening with a capital and none longer than
#: `VERSE_LINE_CHARS`, is verse: prose is wrapped at ~70 characters and its lines rarely all open so
VERSE_MIN_LINES = 3


VERSE_LINE_CHARS = 60


_LINE_OPENING = re.compile(r"[\s\"'“‘(_*-]*")


def _headings(book: Book) -> Regions:
    """Chapter heading spans, from the book's structure."""
    return Regions(sorted((c.heading.start, c.heading.end) for c in book.chapters if c.heading is not None))


def _verse(book: Book) -> Regions:
    """Verse blocks: paragraphs set as a poem (short lines, each opening with a capital)."""
    spans: list[tuple[int, int]] = []
    text = book.text
    for start, end in book.paragraphs.pairs():
        lines = [line for line in text[start:end].split("\n") if line.strip()]
        if len(lines) < VERSE_MIN_LINES or max(len(line) for line in lines) > VERSE_LINE_CHARS:
            continue
        openings = [line[_LINE_OPENING.match(line).end() :] for line in lines]  # type: ignore[union-attr]
        if all(o[:1].isupper() for o in openings):
            spans.append((start, end))
    return Regions(sorted(spans))


def _form(o: _Occurrence) -> tuple[str | None, tuple[str, ...]]:
    return ("the" if o.titled else o.honorific, o.words)


def _candidates(book: Book, dialogue: Regions) -> list[_Occurrence]:
    """The name candidates of the book's body (new objects: the passes change them). On a book cut
    through a `PrefixLayers` the runs before `PrefixLayers.settled` come from the whole book's scan and
    only the rest is scanned: `_local_candidates` qualifies (see there)."""
    layers = prefix_layers(book)
    if layers is None:
        found = _local_candidates(book.text, book.body.start, book.body.end)
        occurrences = [o for _, o in found if o is not None]
    else:
        whole = layers.layer("characters.candidates")
        kept = bisect.bisect_left(whole, layers.settled(book), key=lambda row: row[0][0])
        resume = whole[kept - 1][0][1] if kept else book.body.start  # where the scan stood there
        occurrences = [_copy(o) for _, o in whole[:kept] if o is not None]
        occurrences += [o for _, o in _local_candidates(book.text, resume, book.body.end) if o is not None]
    return _tags_outside(occurrences, dialogue)


def _tags_outside(occurrences: list[_Occurrence], dialogue: Regions) -> list[_Occurrence]:
    for o in occurrences:
        if o.speech and o.start in dialogue:
            o.speech = False  # a speech verb beside a name inside a quotation tags no one
    return occurrences


#: a book body at least this long (characters) has its name candidates found in two halves on two cores
FORK_CHARACTERS = 300_000
_CUT_PERCENT = 53  # where in the body the second half starts (at the next blank line)


def candidates_and_lowercase(
    book: Book, dialogue: Regions
) -> tuple[list[_Occurrence], Counter[str], list[PronounMatch] | None]:
    """`_candidates` and `lowercase_words` of a book. A long whole book is cut at a blank line near the
    middle of its body (`_CUT_PERCENT`), and the runs and lowercase words after it are scanned on a second core
    (`fabula._parallel.fork_call`) while this process scans those before it: the same occurrences as one
    scan, since `_local_candidates` is local (no run crosses a `fabula.book.BLANK_LINE`: `_GAP` allows
    one line break; each reads a few characters around it), and the same counts in the same order (a
    lowercase word holds no line break and reads one character on either side; the second half's counts
    are added to the first's, so a word first seen there comes after the first half's words, as in one
    count). The halves also scan the body's pronouns (as one scan, for the same reasons): the third value, the
    body's `fabula.characters._pronouns.pronoun_matches` for `find_characters` (None where the body was
    scanned whole: the pronouns are then scanned where they are needed)."""
    text, body = book.text, book.body
    blank = None
    if prefix_layers(book) is None and body.end - body.start >= FORK_CHARACTERS and can_fork():
        # a little past the middle: the child also pickles its half and exits (the halves' work then about equal)
        blank = BLANK_LINE.search(text, body.start + (body.end - body.start) * _CUT_PERCENT // 100, body.end)
    if blank is None:
        return _candidates(book, dialogue), lowercase_words(book), None
    cut = blank.start() + 1
    fields = _Occurrence.__slots__

    def second_half() -> tuple[list[tuple[object, ...]], Counter[str], list[PronounMatch]]:
        found = _local_candidates(
            text, cut, body.end
        )  # as plain tuples: they pickle faster than the dataclass
        rows = [tuple(getattr(o, f) for f in fields) for _, o in found if o is not None]
        return rows, Counter(_LOWER_WORD.findall(text, cut, body.end)), _pronoun_scan(text, cut, body.end)

    def first_half() -> tuple[list[_Occurrence], Counter[str], list[PronounMatch]]:
        found = _local_candidates(text, body.start, cut)
        occurrences = [o for _, o in found if o is not None]
        return (
            occurrences,
            Counter(_LOWER_WORD.findall(text, body.start, cut)),
            _pronoun_scan(text, body.start, cut),
        )

    (rows, later_words, later_pronouns), (occurrences, lowercase, pronouns) = fork_call(
        second_half, first_half
    )
    occurrences += [_Occurrence(*row) for row in rows]  # type: ignore[arg-type]
    lowercase.update(later_words)
    return _tags_outside(occurrences, dialogue), lowercase, pronouns + later_pronouns


def _copy(o: _Occurrence) -> _Occurrence:
    """A copy of ``o`` (positional, in `_Occurrence`'s field order: faster than `dataclasses.replace`)."""
    return _Occurrence(
        o.start,
        o.end,
        o.honorific,
        o.words,
        o.initial,
        o.titled,
        o.speech,
        o.person_verb,
        o.auxiliary,
        o.pronoun_after,
        o.place_prep,
        o.possessed,
        o.oath,
        o.title_of,
        o.to_before,
    )


@prefix_stable("characters.candidates")
def _whole_candidates(book: Book) -> list[tuple[tuple[int, int], _Occurrence | None]]:
    return _local_candidates(book.text, book.body.start, book.body.end)


def spoken_stop_names(accepted: set[tuple[str | None, tuple[str, ...]]]) -> frozenset[str]:
    """The stop words `_accept` took for names because the book tags speeches with them ("said May")."""
    return frozenset(
        words[0].lower()
        for honorific, words in accepted
        if honorific is None and len(words) == 1 and words[0].lower() in NON_NAMES
    )


def stop_name_occurrences(
    text: str, start: int, end: int, spoken: frozenset[str], known: set[int]
) -> list[_Occurrence]:
    """The uses of the ``spoken`` stop words inside sentences of ``text[start:end]`` that are no speech tags
    ("looked at May"), beside the tags already found (their starts in ``known``)."""
    pattern = re.compile(r"\b(?:" + "|".join(sorted(w.capitalize() for w in spoken)) + r")\b")
    out = []
    for hit in pattern.finditer(text, start, end):
        if hit.start() in known:
            continue
        m = _RUN.match(text, hit.start(), end)
        o = _occurrence(text, m, spoken) if m is not None and m.end("name") == hit.end() else None
        if o is not None:
            out.append(o)
    return out


def _local_candidates(text: str, start: int, end: int) -> list[tuple[tuple[int, int], _Occurrence | None]]:
    """Each name run of ``text[start:end]`` (`_runs`): its span and its occurrence (None when it names
    nothing), with ``speech`` meaning a speech verb beside it (`_candidates` then clears it inside
    dialogue). A prefix-stable layer (`fabula.book.PrefixLayers`): a run never spans a blank line
    (`_GAP` allows one line break), and for a run the scan reads only the run itself, the character
    after it and at most 40 characters before it and 35 after it."""
    out: list[tuple[tuple[int, int], _Occurrence | None]] = []
    for m in _runs(text, start, end):
        out.append((m.span(), _occurrence(text, m)))
    return out


_PLACE_OPENERS = _PLACE_QUALIFIERS | PLACE_OPENINGS


#: a name's word that makes it a place ("Mill Road", "Mill House"), unless it is the one word after an
#: honorific ("Mrs. Lane", "Mr. Park": people)
_BUILDINGS = frozenset({"street", "road", "house", "hall", "park", "square", "lane"})


#: words before a month's or a day's name ("in May", "last June", "every August"): the date, not the person
_BEFORE_A_DATE = frozenset(
    {
        "in",
        "on",
        "since",
        "until",
        "till",
        "last",
        "next",
        "every",
        "early",
        "late",
        "during",
        "through",
        "from",
    }
)


#: a name right after one of these ends a prepositional phrase (`_occurrence`)
_PREPOSITIONS = PLACE_PREPOSITIONS | {
    "on",
    "upon",
    "of",
    "over",
    "under",
    "beside",
    "behind",
    "across",
    "along",
}


def _occurrence(text: str, m: re.Match[str], spoken: frozenset[str] = frozenset()) -> _Occurrence | None:
    """The occurrence a name run stands for, None when it is no name (a place, an exclamation, ...).
    ``spoken``: stop words (lowercase) the book shows as speakers (`spoken_stop_names`), names wherever
    they stand inside a sentence but after a word that opens a date (`_BEFORE_A_DATE`)."""
    honorific = m.group("hon") or m.group("abbr")
    name_start, name = m.start("name"), m.group("name")
    if " " in name or "\n" in name or "\t" in name:  # the only white space `_RUN` lets into a name
        spans = [(name_start + w.start(), w.group()) for w in _TOKEN.finditer(name)]
    else:  # one word (most runs): `_TOKEN`'s one match
        spans = [(name_start, name)]
    start = name_start if honorific is None else m.start()
    initial = is_sentence_initial(text, m.start())
    if honorific is not None:
        honorific = honorific.lower()
    # at a sentence start, drop leading non-names ("Poor Lavinia", "But Nora"), but not a given name that
    # may open a speech's tag ('"…?" June asks': see `stop_name`)
    tag_opening = initial and follows_speech(text, m.start())
    while (
        spans
        and initial
        and honorific is None
        and spans[0][1].lower() in NON_NAMES
        and not (tag_opening and len(spans) == 1 and given_name_gender(spans[0][1]) != "unknown")
    ):
        spans = spans[1:]
        if spans:
            start = spans[0][0]
            initial = False
    cut = _contractions_cut(spans)
    # a run that goes on over a line break into "The", "He", "But", ... has run out of a heading into the
    # next line's sentence ("Lying to Mr. Tressel\nThe Miss Vances were found"): it ends at the break
    while len(cut) > 1 and cut[-1][1].lower() in NON_NAMES and "\n" in text[cut[-2][0] : cut[-1][0]]:
        cut = cut[:-1]
    contracted = cut is not spans
    if contracted:
        if cut and honorific is None and cut[0][0] != spans[0][0]:
            start, initial = cut[0][0], False
        spans = cut
    words = [w for _, w in spans]
    if not words:
        return None
    # "St." inside a name (`_TITLED_SAINT`) is "Saint", not a street: one form for both spellings
    if "St." in words:
        words = ["Saint" if w == "St." else w for w in words]
    if honorific is None and len(words) > 1 and words[0].lower() in HONORIFICS:
        honorific = words[0].lower()  # "Lady Honoria", "Colonel Lyle" spelled as one run
        words = words[1:]
        if all(len(w) == 2 and w[1] == "." for w in words):
            return None  # "Mr E.", "Miss W.", "Colonel F.": a title and an initial hide a name (a letter's)
    lowered = [w.lower() for w in words]
    # "May", "Will", "June": a stop word that is also a given name stays while it may be a speech tag's
    # speaker (checked below); `_accept` wants it so tagged at least `COMMON_WORD_SPEECH_MIN` times
    stop_name = (
        len(words) == 1
        and lowered[0] in NON_NAMES
        and (honorific is not None or not initial or tag_opening)
        and given_name_gender(words[0]) != "unknown"
    )
    if (
        not PLACE_WORDS.isdisjoint(lowered[1:])
        or not BODY_WORDS.isdisjoint(lowered)
        or (len(words) == 1 and lowered[0] in NON_NAMES and not stop_name)
        # "Thank God", "Good Heavens": an exclamation; "Upper Norwood": a place
        or (honorific is None and len(words) > 1 and lowered[-1] in NON_NAMES)
        or (honorific is None and len(words) > 1 and lowered[0] in _PLACE_OPENERS)
    ):
        return None
    if not _BUILDINGS.isdisjoint(lowered) and not (honorific is not None and len(words) == 1):
        return None  # "Hall" and "Park" are places, but "Mr. Field" and "Mrs. Moor" are people
    end = spans[-1][0] + len(spans[-1][1]) if contracted else m.end("name")
    if m.group("poss") and _PLACE_AFTER.match(text, m.end()):
        return None  # "Pettigrew's Hollow", "Jukes's Wharf": a place named after someone
    prev = _previous_word(text, max(0, start - 30), start)
    prev_word = prev[1].lower() if prev else ""
    # "the Margrave", not 'the "Margrave."': a title set off in quotation marks is the word the book quotes
    titled = (
        honorific is None
        and prev_word == "the"
        and not initial
        and prev is not None
        and text[prev[0] + 3 : start].isspace()
    )
    if titled and prev is not None:
        start = prev[0]
        # "along the Embankment": the place preposition stands before "the"
        before_the = _previous_word(text, max(0, start - 30), start)
        prev_word = before_the[1].lower() if before_the else ""
    after = text[end : end + 30].split(None, 2)
    next_word = after[0].lower().strip(',;:.!?"”’') if after else ""
    # after a preposition the name ends a phrase whose head is the verb's subject ("a policeman on the
    # Embankment spoke", "the daughter of Mr. Ashdown said"): the verb after it is no evidence of a person
    governed = prev_word in _PREPOSITIONS
    # a tag names its speaker in the narration: 'said "Consider, my dear' opens a speech instead
    # (`_candidates` clears it inside dialogue)
    speech = prev_word in SPEECH_VERBS or (next_word in SPEECH_VERBS and not governed)
    if initial and tag_opening and next_word in SPEECH_VERBS:
        initial = False  # '"Are you coming?" Kit asks': the speech's tag goes on, Kit is its subject
    if (
        stop_name
        and honorific is None
        and not (speech or (lowered[0] in spoken and prev_word not in _BEFORE_A_DATE))
    ):
        return None  # "in May", "May I": the word; "Aunt May" is a name
    title = _TITLE_OF.search(text, max(0, start - 40), start) if prev_word == "of" else None
    return _Occurrence(
        start=start,
        end=end,
        honorific=honorific,
        words=_particles_lowered(tuple(_clean(w) for w in words)),
        initial=initial and honorific is None,
        titled=titled,
        speech=speech,
        person_verb=next_word in PERSON_VERBS and not governed,
        auxiliary=next_word in _AUXILIARIES,
        pronoun_after=_SUBJECT_PRONOUN_AFTER.match(text, end) is not None,
        place_prep=prev_word in PLACE_PREPOSITIONS,
        possessed=prev_word in _POSSESSIVES,
        oath=prev_word in _OATH_OPENERS,
        title_of=title is not None and not is_sentence_initial(text, title.start(1)),
        to_before=prev_word == "to",
    )


#: a word ending in one of these is a contraction ("What'll", "You're", "Jim'll"): a verb is written into it
_CONTRACTION = re.compile(r"(?i)(.+)['’](?:ll|ve|re)")


def _contractions_cut(spans: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """A name's words up to the first contraction, which ends the name: "Jim'll" is "Jim" with "will"
    written into it, "What'll" is no name at all ("What'll Jim say?" leaves "Jim"). The list itself
    when there is no contraction."""
    for i, (offset, word) in enumerate(spans):
        if "'" not in word and "’" not in word:
            continue  # no apostrophe: no contraction (the quick test of most words)
        match = _CONTRACTION.fullmatch(word)
        if match is None:
            continue
        stem = match.group(1)
        if i == 0 and stem.lower() in NON_NAMES:
            return _contractions_cut(spans[1:])
        return [*spans[:i], (offset, stem)]
    return spans


def _trim_common_tails(
    text: str, occurrences: list[_Occurrence], lowercase: Counter[str]
) -> list[_Occurrence]:
    """Cut title-case headings off the names they run into: "Miss Tamsin Applegate Drive Out",
    "Mrs. Rosina Pettigrew Is Properly Horrified". Two or more trailing words that are mostly written in
    lowercase elsewhere are a heading's words, not a name's; one such word ("Mr. Mark Young") stays.
    At a sentence start, a first word written lowercase elsewhere, or a compound with a lowercase
    second part, and never capitalised mid-sentence, is no name either ("Whatever Philippa thought",
    "Cold-hearted Rosalind!")."""
    capitalised = Counter(w for o in occurrences for w in o.words)

    def common(word: str) -> bool:
        return lowercase.get(word.lower(), 0) >= 3 and lowercase.get(word.lower(), 0) > capitalised[word]

    # capitalised inside a sentence somewhere: a name's word ("Will Ladislaw"), not "Whatever Philippa"
    mid = {w for o in occurrences if not o.initial for w in o.words}
    for o in occurrences:
        words = o.words
        if (
            o.initial
            and o.honorific is None
            and len(words) > 1
            and words[0] not in mid
            and (common(words[0]) or _LOWER_COMPOUND.fullmatch(words[0]))
        ):
            tokens = list(_TOKEN.finditer(text[o.start : o.end]))[-len(words) :]
            o.start += tokens[1].start()
            o.words = words = words[1:]
            o.initial = False
        keep = len(words)
        while keep > 1 and common(words[keep - 1]):
            keep -= 1
        if len(words) - keep < 2:
            continue
        tokens = list(_TOKEN.finditer(text[o.start : o.end]))[-len(words) :]
        o.end = o.start + tokens[keep - 1].end()
        o.words = words[:keep]
    return occurrences


def _particles_lowered(words: tuple[str, ...]) -> tuple[str, ...]:
    """ "De Vaucelles" at a sentence start and "Monsieur de Vaucelles" are one name: particles before another
    word are compared in lowercase."""
    return tuple(
        w.lower() if i + 1 < len(words) and w.lower() in NAME_PARTICLES else w for i, w in enumerate(words)
    )


def _clean(word: str) -> str:
    return word.replace("’", "'")


def _accept(
    occurrences: list[_Occurrence],
    lowercase: Counter[str],
    ner_votes: Counter[str],
    ner_against: Counter[str],
    lowercase_titles: Counter[str] | None = None,
    places: set[str] | frozenset[str] = frozenset(),
) -> set[tuple[str | None, tuple[str, ...]]]:
    """The forms that are person names, judged on the evidence over all their occurrences (``places``:
    words the book elsewhere qualifies as a place, `_qualified_places`)."""
    by_words: dict[tuple[str, ...], list[_Occurrence]] = defaultdict(list)
    for o in occurrences:
        by_words[o.words].append(o)
    person_words: set[tuple[str, ...]] = set()
    mid_caps = Counter(w for o in occurrences if not o.initial for w in o.words)
    for words, occ in by_words.items():
        speech = sum(1 for o in occ if o.speech)
        honored = sum(1 for o in occ if o.honorific and o.honorific not in {"the"})
        if (
            len(words) == 1
            and words[0].lower() in NON_NAMES
            and speech < COMMON_WORD_SPEECH_MIN
            and not honored
        ):
            continue  # a stop word, unless it names a speaker as given names do ("said May", "Aunt May")
        mid = sum(1 for o in occ if not o.initial and not o.titled)
        verbs = sum(1 for o in occ if o.person_verb)
        titled_only = all(o.titled for o in occ)
        if (
            len(words) == 1
            and not titled_only
            and mid < MIN_AUXILIARY_MID
            and given_name_gender(words[0]) == "unknown"
        ):
            # "I wonder what Latitude … (Alice had no idea what Latitude was": a word that is no given
            # name, seen twice mid-sentence, is no person because an auxiliary follows it once, unless
            # a "she" says so ("the fault of Philomena is that she will not")
            verbs = sum(1 for o in occ if o.person_verb and (not o.auxiliary or o.pronoun_after))
        place = sum(1 for o in occ if o.place_prep)
        key = " ".join(words)
        low = sum(lowercase.get(w.lower(), 0) for w in words) / len(words)
        capital = len(occ)
        if titled_only and len(words) == 1 and lowercase_titles is not None:
            # "the Cat" is compared with "the cat" (the book may speak of cats), a longer title with its words
            low = lowercase_titles.get(words[0].lower(), 0)
        evidence = 3 * honored + 2 * speech + verbs + ner_votes.get(key, 0)
        if ner_against.get(key, 0) > 2 * max(1, ner_votes.get(key, 0)) and honored == 0 and speech == 0:
            continue  # NER says place/organisation, and nothing in the text says person ("cried Cressida" does)
        if (
            low > 0.5 * capital
            and honored == 0
            and speech < COMMON_WORD_SPEECH_MIN
            and not _common_surname(words, occ, lowercase, mid_caps)
        ):
            continue  # "Hope", "Will", "Grace": mostly a common word, unless it tags speeches ("said Will")
        if place > 0.25 * capital and honored == 0 and speech == 0:
            continue  # "in Highbury", "at Randalls"
        toward = place + sum(1 for o in occ if o.to_before)
        if capital >= MIN_PLACE_USES and toward >= PLACE_SHARE * capital and honored == 0 and speech == 0:
            continue  # "to Vienna", "in Vienna" often: one goes to a place, seldom to a person
        if len(words) == 1 and words[0] in places and honored == 0 and speech == 0:
            continue  # "Norwood" where the book also says "Upper Norwood"
        if sum(1 for o in occ if o.possessed) > 0.5 * capital and honored == 0:
            continue  # "your Majesty", "his Lordship": how one is addressed, not who
        if sum(1 for o in occ if o.oath) > 0.5 * capital and honored == 0 and speech == 0:
            continue  # "my Gawd!", "by Jove", "O Lawd": an oath's word, in any spelling, not a person
        if all(o.title_of for o in occ) and honored == 0 and speech == 0:
            continue  # "Clubs" only ever in "the Queen/Knave of Clubs": a part of a title, no one
        if titled_only:
            # "the Expedition was", "the Company had": any noun takes an auxiliary; a title needs a
            # speech tag, another person verb, or a "he"/"she" after an auxiliary, unless it is a
            # rank or office ("the Doctor was")
            rank = len(words) == 1 and words[0].lower() in STANDALONE_TITLES | HONORIFICS.keys()
            acts = sum(1 for o in occ if o.person_verb and (rank or not o.auxiliary or o.pronoun_after))
            if len(occ) >= 3 and (speech or acts) and low < 0.5 * capital:
                person_words.add(words)
            continue
        if (
            honored
            or (mid >= 2 and (evidence >= 1 or mid >= 4))
            or (mid >= 1 and speech >= 1)
            or ner_votes.get(key, 0) >= 2
        ):
            person_words.add(words)
    # a full name is a person when its first or last word is ("Honoria Aldous" used thrice)
    singles = {w[0] for w in person_words if len(w) == 1}
    for words in by_words:
        if (
            len(words) > 1
            and (words[0] in singles or words[-1] in singles)
            and not any(w.lower() in NON_NAMES for w in words)
        ):
            person_words.add(words)
    # ... and the parts of an accepted full name, or a nickname of an accepted first name, are names
    parts = {w for words in person_words if len(words) > 1 for w in (words[0], words[-1])}
    firsts = {w[0].lower() for w in person_words}
    for words in by_words:
        if len(words) != 1 or words[0].lower() in NON_NAMES:
            continue
        word = words[0]
        formal = NICKNAMES.get(word.lower(), ())
        if word in parts or any(f in firsts for f in formal):
            person_words.add(words)
    return {_form(o) for o in occurrences if o.words in person_words}


#: a common word is a name when the book capitalises it mid-sentence at least this share as often as it
#: writes it in lowercase (a surname "Short" 38 times beside 46 "short"); words merely capitalised in a heading
#: or a verse fall far short
#: uses a form needs before "to" counts as place evidence ("said to Nora" twice proves nothing)
MIN_PLACE_USES = 3
#: speech tags ("said Will", "Will said") that make a word the book mostly writes in lowercase a name
COMMON_WORD_SPEECH_MIN = 2
#: ... and the share of its uses after "to" or a place preposition that makes it a place: 0.5 before
#: 2026-11-26; 0.4 chosen on the tuning novels (0.5 / 0.4 / 0.35 / 0.3 / 0.25 tried: 0.4 and 0.35
#: remove the same two tuning non-persons and no person, 0.3 a person), the larger of the tie
PLACE_SHARE = 0.4
NAME_LIKE_SHARE = 0.25


MIN_FULL_NAME_USES = 2  # mid-sentence uses of "Jonathan Short" that make a common word a surname


def _common_surname(
    words: tuple[str, ...], occ: list[_Occurrence], lowercase: Counter[str], mid_caps: Counter[str]
) -> bool:
    """Whether a full name ends in a common word the text treats as a surname: "Jonathan Short",
    "Jefferson Hope", used mid-sentence after a given name, the last word capitalised mid-sentence
    often enough beside its lowercase uses (`NAME_LIKE_SHARE`)."""
    if len(words) < 2 or sum(1 for o in occ if not o.initial) < MIN_FULL_NAME_USES:
        return False
    first, last = words[0], words[-1]
    if lowercase.get(first.lower(), 0) > mid_caps[first] or given_name_gender(first) == "unknown":
        return False  # "May Day": the first word must be a given name, not a common word
    return mid_caps[last] >= NAME_LIKE_SHARE * lowercase.get(last.lower(), 0)


def _common_word_at_start(o: _Occurrence, lowercase: Counter[str], mid_caps: Counter[str]) -> bool:
    """A bare word the book writes in lowercase more often than capitalised mid-sentence, at a
    sentence start with no speech verb beside it, is the word ("Short work"), even where the book
    also uses it as a surname ("said Short")."""
    return (
        o.initial
        and o.honorific is None
        and len(o.words) == 1
        and not o.speech
        and lowercase.get(o.words[0].lower(), 0) > mid_caps[o.words[0]]
    )


#: lowercase uses of a plural's singular ("building", "horse") that make it a common noun of the book
MIN_COMMON_SINGULAR = 3


#: the word after a name, on its line or the next: lowercase letters, not run into an apostrophe or hyphen
_WORD_AFTER = re.compile(rf"[ \t]*\n?[ \t]*([{_LOWER}]+)(?![\w'’-])")
#: words after "the X" that make "the X" a person ("the Philippa whom he loved", "the Tinker only grinned"),
#: however the book uses them: verbs, relative and reflexive pronouns, and the adverbs that stand after a
#: subject but also after "the" ("the only one", "the first time")
_PERSON_AFTER = (
    SPEECH_VERBS
    | PERSON_VERBS
    | _AUXILIARIES
    | {"who", "whom", "whose", "that", "which", "himself", "herself", "themselves", "alone", "also", "too"}
    | {"only", "again", "once", "first", "last", "next", "all", "both", "now", "then", "still", "just"}
)
#: a determiner right before a word: the word is a noun of the book ("the carriage", "his arms"): the
#: articles and `_POSSESSIVES` but "her", which is also the object of a verb ("took her in")
_NOUN_DETERMINERS = sorted({"the", "a", "an", "my"} | (_POSSESSIVES - {"her"}))
_DETERMINER_BEFORE = re.compile(
    rf"(?<![\w'’])(?:{'|'.join(f'[{w[0].upper()}{w[0]}]{w[1:]}' for w in _NOUN_DETERMINERS)})\s+$"
)


def _after_determiner(text: str, start: int, end: int, word: str) -> bool:
    """Whether ``text[start:end]`` puts ``word`` (lowercase letters) right after a determiner somewhere
    (a scan for the word itself, which the regex engine does fast, then a look before each use)."""
    for m in re.compile(rf"{word}(?![\w'’-])").finditer(text, start, end):
        at = m.start()
        if at and (text[at - 1].isalnum() or text[at - 1] in "'’-"):
            continue  # inside a longer word
        if _DETERMINER_BEFORE.search(text, max(start, at - 8), at):
            return True
    return False


def _name_modifiers(occurrences: list[_Occurrence], text: str, start: int, end: int) -> set[int]:
    """Starts of the "the X" occurrences in which a person's name modifies a noun: "the Tressel carriage",
    "the Pellow family", "the Ashby arms" name a family's things, not a person. X is a word the book uses
    in a person's name (a full name, or after "Mr.", "Mrs.", "Miss", ...), the next word is written
    lowercase, and the book (``text[start:end]``) also puts that word after a determiner ("the
    carriage", "his arms"), which a verb after a person seldom is; the name is written without "the" more
    often than with it. A rank or title ("the Colonel
    smiled") is not a personal name, and a relative pronoun, a speech or person verb or an adverb after
    the name keeps it a person ("the Philippa whom he loved", "the Tinker only grinned")."""
    personal = {
        w
        for o in occurrences
        if not o.titled and (len(o.words) > 1 or o.honorific in SURNAME_HONORIFICS)
        for w in o.words
    }
    # ... and mostly written without "the": "the Mad Tinker" is what a character is called
    titled = Counter(o.words for o in occurrences if o.titled)
    untitled = Counter(o.words for o in occurrences if not o.titled and o.words in titled)
    after_name: dict[int, str] = {}
    for o in occurrences:
        if (
            not o.titled
            or o.words[-1] not in personal
            or titled[o.words] >= untitled[o.words]
            or any(w.lower() in HONORIFICS for w in o.words)
        ):
            continue
        after = _WORD_AFTER.match(text, o.end)
        if after is not None and after.group(1) not in _PERSON_AFTER:
            after_name[o.start] = after.group(1)
    nouns = {w for w in set(after_name.values()) if _after_determiner(text, start, end, w)}
    return {at for at, word in after_name.items() if word in nouns}


def _family_plurals(
    occurrences: list[_Occurrence], text: str, lowercase: Counter[str] | None = None
) -> set[str]:
    """Words that name a family or a group, not a person. The plural of a surname the book uses ("the
    Tressels", "the Miss Vances", "the Marlowes" beside "Mr. Tressel", "Lucinda Vance", "Bertram
    Marlowe"), written with "the" or "Miss" at least half the time; or the plural of another word the
    book capitalises mid-sentence at least twice, or of a word of the stop-list (nationalities), never
    titled ("Italians", "Poles" beside "an Italian", "the Pole"; "Two Italians" once does not make it
    a surname). Either with another honorific or beside a speech verb at most a fifth of the time ("Mr.
    and Mrs. Tabbs", "said the Tressels"), and never the last word of a full name used twice (a "Jane
    Roberts" makes "Roberts" a surname). With ``lowercase`` (the book's lowercase word counts), also the
    plural of a common noun of the book ("Buildings", "Horses" beside "a building", "the horse"). The
    plural of a stop-listed word or of a common noun is a group however often it speaks ("said the
    Indians"), and so is a "-men" plural of a word the book capitalises mid-sentence ("the Frenchmen"
    beside "the Frenchman")."""
    surnames = {o.words[-1] for o in occurrences if len(o.words) > 1} | {
        o.words[0] for o in occurrences if len(o.words) == 1 and o.honorific in SURNAME_HONORIFICS
    }
    by_word: dict[str, list[_Occurrence]] = defaultdict(list)
    for o in occurrences:
        if len(o.words) == 1:
            by_word[o.words[0]].append(o)
    full = Counter(o.words for o in occurrences if len(o.words) > 1)
    full_last = {words[-1] for words, n in full.items() if n >= 2}
    plurals = set()
    for word, occ in by_word.items():
        if len(word) < 4 or word in full_last:
            continue
        if word.endswith("men"):
            stems = {word[:-3] + "man"}  # "Frenchmen" beside "the Frenchman"
        elif word.endswith("s"):
            stems = {word[:-1], word[:-2] if word.endswith("es") else word[:-1]}
        else:
            continue
        personal = sum(1 for o in occ if o.speech or o.honorific not in (None, "miss"))
        family = sum(1 for o in occ if o.titled or o.honorific == "miss")
        if stems & surnames:
            if 5 * personal <= len(occ) and 2 * family >= len(occ):
                plurals.add(word)
            continue
        if given_name_gender(word) != "unknown" or any(o.honorific for o in occ):
            continue  # "Frances" is no plural of "France"
        # a nation, a kind or a thing the book names in lowercase is a group even when it speaks
        # ("said the Indians"); the plural of another capitalised word only when it seldom does
        men = word.endswith("men") and any(_mid_sentence_uses(text, s) >= 1 for s in stems)
        if (
            men
            or any(
                s.lower() in NON_NAMES
                or (lowercase is not None and lowercase.get(s.lower(), 0) >= MIN_COMMON_SINGULAR)
                for s in stems
            )
            or (5 * personal <= len(occ) and any(_mid_sentence_uses(text, s) >= 2 for s in stems))
        ):
            plurals.add(word)
    return plurals


def _mid_sentence_uses(text: str, word: str) -> int:
    """How often ``word`` is written capitalised after a lowercase word or a comma ("an Italian")."""
    return len(re.findall(rf"(?<=[{_LOWER},;:] ){re.escape(word)}(?![\w'’])", text))
