"""Character discovery without a list: rule-based name mentions, then alias clustering.

Hand-written rules rather than a model because the default path must run offline in seconds on a
CPU with nothing to download (BookNLP needs downloaded neural models and minutes per novel). A spaCy
NER pipeline, when the user names one, adds PERSON evidence (`_ner.py`); Chinese uses jieba (`_chinese.py`).

1. Candidates: runs of capitalised words, with an optional honorific ("Mr. Darcy"), and "the X"
   titles ("the Caterpillar"). Leading non-names ("Poor Harriet", "Oh Emma") are dropped.
2. A name is kept when it looks like a person: an honorific before it, a speech verb beside it
   ("said Emma"), or several mid-sentence capitalised uses while the lowercase word is rare; words
   in the stop-lists, place-like runs ("Box Hill") and words mostly after "in/at/from" are dropped.
3. Clustering, most specific forms first: full names make clusters; "Hon Surname" joins the
   gender-compatible full name with that surname (unless it is much more frequent than that full
   name, as "Mr. Knightley" is than "John Knightley"); a lone first name joins the full name it
   starts, a nickname ("Lizzy") its formal name, a lone surname the "Mr." cluster first ("Bennet" is
   Mr. Bennet) or no one when a family shares it ambiguously, "Lady/Sir + first name" its full name.
   "Mr. Bennet", "Mrs. Bennet" and "Jane Bennet" stay apart: different honorific classes never join.
4. Later joins: textual links ("Miss Hamilton, now Mrs Smith"), vocatives answered by tagged names,
   given-name variants. Every join is vetoed by cannot-link evidence: names sharing sentences, or
   tagging the turns of one conversation; a pet name also needs to be used where its formal name's
   bearer is (between the first and last chapter naming them: "Bill" of the first chapters is not
   the "William" of the last).

Genders come from honorifics, then a full name's given name (as the book styles it, else the US census
list in ``given_names.tsv``), then pronouns after the mentions.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from fabula.book import Book, Character, Mention
from fabula.characters._choice import DOMINANCE, clear_winner
from fabula.characters._lexicon import (
    CLEAR_GIVEN_NAME,
    HONORIFIC_CLASSES,
    HONORIFICS,
    NAME_PARTICLES,
    NICKNAMES,
    NON_NAMES,
    PERSON_VERBS,
    PLACE_PREPOSITIONS,
    PLACE_WORDS,
    PRONOUN_GENDER,
    SPEECH_VERBS,
    STANDALONE_TITLES,
    SURNAME_HONORIFICS,
    given_name_gender,
    honorific_class,
)
from fabula.characters._text import Regions, dialogue_regions, is_sentence_initial, is_vocative

_UPPER = "A-ZÀ-ÖØ-Þ"
_LOWER = "a-zß-öø-ÿ"
_CAP_WORD = rf"[{_UPPER}][{_LOWER}]+(?:['’-][{_UPPER}{_LOWER}][{_LOWER}]+)*"
_HONORIFIC_ALT = "|".join(sorted((h.capitalize() for h in HONORIFICS), key=len, reverse=True))
#: honorifics written as abbreviations: only these take a period ("said the Admiral. Anne" is two sentences)
_ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "rev", "capt", "lieut", "prof", "m", "mme", "mlle"})
_ABBREV_ALT = "|".join(
    sorted((h.capitalize() for h in _ABBREVIATIONS & HONORIFICS.keys()), key=len, reverse=True)
)
_FULL_ALT = "|".join(
    sorted((h.capitalize() for h in HONORIFICS.keys() - _ABBREVIATIONS), key=len, reverse=True)
)
_GAP = r"[ \t]*\n?[ \t]*"  # words of one name may be split by a line break, never by a blank line
#: particles that may open a surname after an honorific: "Mrs. van der Luyden", "Monsieur de Griers"
_LEADING_PARTICLES = "van|von|der|den|de|du|des|la|le|di|da|del|della|ten|ter"
_RUN = re.compile(
    rf"(?<![\w'’.])(?<!\w-)(?:(?:(?P<abbr>{_ABBREV_ALT})\.?|(?P<hon>{_FULL_ALT})){_GAP})?"
    rf"(?P<name>(?:(?(abbr)|(?(hon)|(?!)))(?:{_LEADING_PARTICLES})(?:[ \t]+(?:{_LEADING_PARTICLES}))?[ \t]+)?{_CAP_WORD}(?:{_GAP}(?:(?:{'|'.join(p for p in NAME_PARTICLES if p != 'of')}){_GAP}){{0,2}}(?!(?:{_HONORIFIC_ALT})\b)(?:{_CAP_WORD}|[{_UPPER}]\.))*)"
    rf"(?P<poss>['’]s)?(?![\w])"
)
_LOWER_WORD = re.compile(rf"(?<![\w'’])[{_LOWER}][{_LOWER}'’-]*")
_THE_LOWER = re.compile(rf"(?<![\w'’])the\s+([{_LOWER}]+)(?![\w'’])")
_LOWER_COMPOUND = re.compile(rf"[{_UPPER}][{_LOWER}]+-[{_LOWER}]+")  # "Cold-hearted Elinor", not "Mary-Ann"
_PLACE_AFTER = re.compile(
    rf"[ \t]+(?:{'|'.join(w.capitalize() for w in sorted(PLACE_WORDS) if w.isalpha())})\b"
)
_PREV_WORD = re.compile(r"([A-Za-z]+)[^\w\n]{0,3}$")
#: a capitalised word and "of" just before a name: "the Queen of Hearts", "the Prince of Wales"
_TITLE_OF = re.compile(rf"({_CAP_WORD})\s+of\s+$")

_POSSESSIVES = frozenset({"your", "his", "her", "their", "our", "its"})
#: person verbs any noun takes ("what Latitude was", "the Arno had"): weak evidence on their own
_AUXILIARIES = frozenset({"was", "is", "had", "has"})
#: mid-sentence uses that, with only an auxiliary after one of them, make a bare word a person when
#: the word is no given name
MIN_AUXILIARY_MID = 3
#: "he"/"she" within a few words after a name, in its sentence
_SUBJECT_PRONOUN_AFTER = re.compile(r"[^,.!?;:\n\"“”]{0,30}?(?<![\w'’])(?:he|she)(?![\w'’])", re.IGNORECASE)
#: first words of a place's name ("Upper Norwood", "South Lambeth")
_PLACE_QUALIFIERS = frozenset({"upper", "lower", "north", "south", "east", "west"})
_QUALIFIED_PLACE = re.compile(r"\b(?:Upper|Lower|North|South|East|West)[ \t]+([A-Z][a-z]{2,})\b")


def _qualified_places(text: str) -> set[str]:
    """Words the book also writes after a place qualifier ("Upper Norwood", "South Lambeth"): the book
    itself says they name a place, so their bare uses ("this Norwood business") are places too."""
    return {m.group(1) for m in _QUALIFIED_PLACE.finditer(text)}


_NOBLE = frozenset(
    {"lady", "sir", "lord", "duke", "duchess", "earl", "count", "countess", "prince", "princess"}
)
_FormKey = tuple[str | None, tuple[str, ...]]  # (honorific or "the" or None, words)
#: honorifics used with a first name ("Lady Catherine", "Aunt Juley"), not with a surname
_FIRST_NAME_TITLES = frozenset({"lady", "sir", "lord", "aunt", "uncle", "cousin", "auntie", "granny"})
#: honorifics of a married woman: "Mrs. X" joins only a cluster already holding one (or a lone wife)
#: family words (and "Comrade") used as titles: they say nothing about Mr./Mrs./Miss ("Aunt Juley" is
#: Mrs. Munt, "Comrade Syme" is Mr. Syme)
_KINSHIP = frozenset({"aunt", "uncle", "cousin", "auntie", "granny", "grandfather", "grandmother", "comrade"})
_CIVIL_CLASSES = frozenset({"plain", "married", "unmarried"})  # Mr./Mrs./Miss, not "King James"
_WIFE_TITLES = frozenset({h for h, kind in HONORIFIC_CLASSES.items() if kind == "married"} | {"lady"})
_MALE_TITLES = frozenset({"dr", "doctor", "professor", "inspector"})
#: two forms that share this share of the rarer one's sentences name two different people
CONFLICT_SHARE = 0.05
CONFLICT_MIN = 3  # sentences: a name beside another twice may be a slip of the segmenter
#: how many times more often the leading brother must be mentioned to be the "Mr. X"
BROTHERS_DOMINANCE = 4.0
WIFE_DOMINANCE = 5.0  # ... and the leading woman never styled "Miss" to be the "Mrs. X"
BROTHER_NAMED = 10  # bare given-name mentions that make a man "known by his given name"
#: a pet name seen once or twice may be anyone's ("his daughter Nancy"): it needs this many uses to
#: join a formal name by the nickname list alone
MIN_NICKNAME_USES = 3
#: ... and this share of its uses in chapters that also name the formal name's bearer
NEAR_SHARE = 0.5
TURN_WEIGHT = 2  # shared sentences one exchange of tagged turns counts as
MIN_SURNAME_USES = 3  # a bare surname seen fewer times is left unresolved where a family shares it
MIN_MENTIONS = 2  # a name seen once is not a character (unless NER or an honorific vouches for it)
TITLE_HOLDER_LEAD = 3.0  # "the Admiral" is Admiral Croft when he bears the title 3x as often as any other
#: a word used with a rank this often ("Colonel Fitzwilliam") is a surname before a first name
MIN_RANK_USES = 3
#: "Mr. John Knightley" used this often is a habit that tells him from "Mr. Knightley"
MIN_HABIT_USES = 3
#: ... when "Mr. Knightley" is named this many times as often as his brother's personal names
TITLE_HABIT_LEAD = 3.0
#: ... or, for "Mr. Emerson" beside "Mr. George Emerson", unless the full name is this much more usual
FULL_NAME_LEAD = 2.0
#: the narrator names one of several in full ("Berry Hamilton") or styles one "Miss Daisy Miller" at
#: least this often, and this many times as often as any other, to make them the surname's owner
STYLED_MIN, STYLED_LEAD = 3, 3.0
#: a vocative answered by one tagged name at least this often, and this many times as often as any other
ANSWER_MIN, ANSWER_LEAD = 2, 2.0
#: mention confidences: a full or titled name is rarely someone else's; a bare word more often is
FULL_NAME_CONFIDENCE = 0.9
BARE_NAME_CONFIDENCE = 0.75


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
    pronoun_after: bool  # "he"/"she" soon after it in its sentence ("the fault of Euphemia is that she")
    place_prep: bool
    possessed: bool  # "your Majesty", "his Lordship": a form of address, not a name
    title_of: bool = False  # "(the Queen) of Hearts": the complement of a capitalised title


@dataclass(slots=True)
class _Cluster:
    id: int
    forms: Counter[tuple[str | None, tuple[str, ...]]] = field(default_factory=Counter)
    gender: str = "unknown"
    first_names: set[str] = field(default_factory=set)
    last_names: set[str] = field(default_factory=set)
    honorifics: set[str] = field(default_factory=set)

    @property
    def size(self) -> int:
        return sum(self.forms.values())


def discover_characters(book: Book, *, ner_model: str | None = None) -> tuple[list[Character], list[Mention]]:
    """Characters (ids ``D1``… in no order yet; `find_characters` renumbers by rank) and name mentions."""
    if book.meta.language == "zh":
        from fabula.characters._chinese import discover_chinese

        return discover_chinese(book)
    text = book.text
    dialogue = dialogue_regions(book)
    # names in songs and poems ("Beautiful Soup", "You are old, Father William") are not the story's
    # people, nor title-case runs in chapter headings ("Sherlock Holmes Gives a Demonstration"); a
    # heading's titled name ("Miss Lucy Honeychurch Tells the Truth") is kept: it links the names
    verse, headings = _verse(book), _headings(book)
    occurrences = [
        o
        for o in _candidates(book, dialogue)
        if o.start not in verse and (o.start not in headings or o.honorific is not None)
    ]
    if not occurrences:
        return [], []
    lowercase = Counter(w.lower() for w in _LOWER_WORD.findall(text, book.body.start, book.body.end))
    # "the cat" written in lowercase, against "the Cat": a title the book capitalises is a name
    lowercase_titles = Counter(w.lower() for w in _THE_LOWER.findall(text, book.body.start, book.body.end))
    occurrences = _trim_common_tails(text, occurrences, lowercase)
    ner_votes: Counter[str] = Counter()
    ner_against: Counter[str] = Counter()
    if ner_model:
        from fabula.characters._ner import person_evidence

        ner_votes, ner_against = person_evidence(book, ner_model)
    accepted = _accept(
        occurrences, lowercase, ner_votes, ner_against, lowercase_titles, _qualified_places(text)
    )
    mid_caps = Counter(w for o in occurrences if not o.initial for w in o.words)
    occurrences = [
        o for o in occurrences if _form(o) in accepted and not _common_word_at_start(o, lowercase, mid_caps)
    ]
    votes = _gender_evidence(text, occurrences)
    together = _sentence_cooccurrence(book, occurrences, dialogue)
    turns = _turn_takers(book, occurrences, dialogue)
    links = _textual_links(text, occurrences, dialogue) + _vocative_replies(book, occurrences, dialogue)
    addressed = _address_replies(book, occurrences, dialogue)
    clusters, form_cluster = _cluster(
        occurrences, votes, together, links, addressed, turns, _form_chapters(book, occurrences)
    )
    mentions: list[Mention] = []
    for o in occurrences:
        cid = form_cluster.get(_form(o))
        if cid is None:
            continue
        confidence = FULL_NAME_CONFIDENCE if o.honorific or len(o.words) > 1 else BARE_NAME_CONFIDENCE
        mentions.append(Mention(o.start, o.end, f"D{cid}", "title" if o.titled else "name", confidence))
    characters = []
    sizes = Counter(m.character_id for m in mentions)
    for cluster in clusters.values():
        if sizes[f"D{cluster.id}"] < MIN_MENTIONS and not cluster.honorifics:
            continue
        characters.append(
            Character(
                id=f"D{cluster.id}",
                name=_canonical(cluster),
                aliases={},
                gender=cluster.gender,  # type: ignore[arg-type]
                gender_confidence=0.0,
                source="predicted",
            )
        )
    keep = {c.id for c in characters}
    mentions = [m for m in mentions if m.character_id in keep]
    for c in characters:
        c.gender = "unknown"  # re-estimated from all mentions by find_characters
    return characters, mentions


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
    text = book.text
    out: list[_Occurrence] = []
    for m in _RUN.finditer(text, book.body.start, book.body.end):
        honorific = m.group("hon") or m.group("abbr")
        name_start = m.start("name")
        spans = [(name_start + w.start(), w.group()) for w in re.finditer(r"\S+", m.group("name"))]
        start = name_start if honorific is None else m.start()
        initial = is_sentence_initial(text, m.start())
        if honorific is not None:
            honorific = honorific.lower()
        # at a sentence start, drop leading non-names ("Poor Harriet", "But Emma")
        while spans and initial and honorific is None and spans[0][1].lower() in NON_NAMES:
            spans = spans[1:]
            if spans:
                start = spans[0][0]
                initial = False
        words = [w for _, w in spans]
        if not words:
            continue
        if honorific is None and len(words) > 1 and words[0].lower() in HONORIFICS:
            honorific = words[0].lower()  # "Lady Catherine", "Colonel Brandon" spelled as one run
            words = words[1:]
        if (
            any(w.lower() in PLACE_WORDS for w in words[1:])
            or (len(words) == 1 and words[0].lower() in NON_NAMES)
            # "Thank God", "Good Heavens": an exclamation; "Upper Norwood": a place
            or (honorific is None and len(words) > 1 and words[-1].lower() in NON_NAMES)
            or (honorific is None and len(words) > 1 and words[0].lower() in _PLACE_QUALIFIERS)
        ):
            continue
        if any(
            w.lower() in {"street", "road", "house", "hall", "park", "square", "lane"} for w in words
        ) and not (honorific is not None and len(words) == 1):
            continue  # "Hall" and "Park" are places, but "Mr. Hall" and "Mrs. Park" are people
        end = m.end("name")
        if m.group("poss") and _PLACE_AFTER.match(text, m.end()):
            continue  # "Lynde's Hollow", "Smith's Wharf": a place named after someone
        prev = _PREV_WORD.search(text, max(0, start - 30), start)
        prev_word = prev.group(1).lower() if prev else ""
        titled = honorific is None and prev_word == "the" and not initial
        if titled and prev is not None:
            start = prev.start(1)
            # "along the Embankment": the place preposition stands before "the"
            before_the = _PREV_WORD.search(text, max(0, start - 30), start)
            prev_word = before_the.group(1).lower() if before_the else ""
        after = text[end : end + 30].split(None, 2)
        next_word = after[0].lower().strip(',;:.!?"”’') if after else ""
        # a tag names its speaker in the narration: 'said "Consider, my dear' opens a speech instead
        speech = (prev_word in SPEECH_VERBS or next_word in SPEECH_VERBS) and start not in dialogue
        title = _TITLE_OF.search(text, max(0, start - 40), start) if prev_word == "of" else None
        out.append(
            _Occurrence(
                start=start,
                end=end,
                honorific=honorific,
                words=_particles_lowered(tuple(_clean(w) for w in words)),
                initial=initial and honorific is None,
                titled=titled,
                speech=speech,
                person_verb=next_word in PERSON_VERBS,
                auxiliary=next_word in _AUXILIARIES,
                pronoun_after=_SUBJECT_PRONOUN_AFTER.match(text, end) is not None,
                place_prep=prev_word in PLACE_PREPOSITIONS,
                possessed=prev_word in _POSSESSIVES,
                title_of=title is not None and not is_sentence_initial(text, title.start(1)),
            )
        )
    return out


def _trim_common_tails(
    text: str, occurrences: list[_Occurrence], lowercase: Counter[str]
) -> list[_Occurrence]:
    """Cut title-case headings off the names they run into: "Miss Lucy Honeychurch Drive Out",
    "Mrs. Rachel Lynde Is Properly Horrified". Two or more trailing words that are mostly written in
    lowercase elsewhere are a heading's words, not a name's; one such word ("Mr. Mark Young") stays.
    At a sentence start, a first word written lowercase elsewhere, or a compound with a lowercase
    second part, and never capitalised mid-sentence, is no name either ("Whatever Marianne thought",
    "Cold-hearted Elinor!")."""
    capitalised = Counter(w for o in occurrences for w in o.words)

    def common(word: str) -> bool:
        return lowercase.get(word.lower(), 0) >= 3 and lowercase.get(word.lower(), 0) > capitalised[word]

    # capitalised inside a sentence somewhere: a name's word ("Will Ladislaw"), not "Whatever Marianne"
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
            tokens = list(re.finditer(r"\S+", text[o.start : o.end]))[-len(words) :]
            o.start += tokens[1].start()
            o.words = words = words[1:]
            o.initial = False
        keep = len(words)
        while keep > 1 and common(words[keep - 1]):
            keep -= 1
        if len(words) - keep < 2:
            continue
        tokens = list(re.finditer(r"\S+", text[o.start : o.end]))[-len(words) :]
        o.end = o.start + tokens[keep - 1].end()
        o.words = words[:keep]
    return occurrences


def _particles_lowered(words: tuple[str, ...]) -> tuple[str, ...]:
    """ "De Griers" at a sentence start and "Monsieur de Griers" are one name: particles before another
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
        if any(w.lower() in NON_NAMES for w in words if len(words) == 1):
            continue
        honored = sum(1 for o in occ if o.honorific and o.honorific not in {"the"})
        mid = sum(1 for o in occ if not o.initial and not o.titled)
        speech = sum(1 for o in occ if o.speech)
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
            # a "she" says so ("the fault of Euphemia is that she will not")
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
            continue  # NER says place/organisation, and nothing in the text says person ("cried Lydia" does)
        if low > 0.5 * capital and honored == 0 and not _common_surname(words, occ, lowercase, mid_caps):
            continue  # "Hope", "Will", "Grace": mostly a common word
        if place > 0.25 * capital and honored == 0 and speech == 0:
            continue  # "in Highbury", "at Randalls"
        if len(words) == 1 and words[0] in places and honored == 0 and speech == 0:
            continue  # "Norwood" where the book also says "Upper Norwood"
        if sum(1 for o in occ if o.possessed) > 0.5 * capital and honored == 0:
            continue  # "your Majesty", "his Lordship": how one is addressed, not who
        if all(o.title_of for o in occ) and honored == 0 and speech == 0:
            continue  # "Hearts" only ever in "the Queen/Knave of Hearts": a part of a title, no one
        if titled_only:
            if len(occ) >= 3 and (speech or verbs) and low < 0.5 * capital:
                person_words.add(words)
            continue
        if (
            honored
            or (mid >= 2 and (evidence >= 1 or mid >= 4))
            or (mid >= 1 and speech >= 1)
            or ner_votes.get(key, 0) >= 2
        ):
            person_words.add(words)
    # a full name is a person when its first or last word is ("Catherine Morland" used thrice)
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
#: writes it in lowercase ("Small" 38 times beside 46 "small"); words merely capitalised in a heading
#: or a verse fall far short
NAME_LIKE_SHARE = 0.25
MIN_FULL_NAME_USES = 2  # mid-sentence uses of "Jonathan Small" that make a common word a surname


def _common_surname(
    words: tuple[str, ...], occ: list[_Occurrence], lowercase: Counter[str], mid_caps: Counter[str]
) -> bool:
    """Whether a full name ends in a common word the text treats as a surname: "Jonathan Small",
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
    sentence start with no speech verb beside it, is the word ("Small wonder"), even where the book
    also uses it as a surname ("said Small")."""
    return (
        o.initial
        and o.honorific is None
        and len(o.words) == 1
        and not o.speech
        and lowercase.get(o.words[0].lower(), 0) > mid_caps[o.words[0]]
    )


@dataclass(slots=True)
class _GenderEvidence:
    """What says a name's gender besides an honorific: the pronouns after its mentions, and the given
    names the book itself styles with a gendered title ("Lady Brett Ashley", "Miss Kitty Hamilton")."""

    votes: dict[tuple[str, ...], Counter[str]]
    styled: dict[str, str]
    given: frozenset[str]  # words that open a full name and never end one: given names of this book


def _gender_evidence(text: str, occurrences: list[_Occurrence]) -> _GenderEvidence:
    """Pronoun votes: for each name, which pronoun ("he"/"she") most often follows it before another
    name does. Styled given names: the first word of a name written after "Miss", "Mr.", "Lady", "Sir",
    ... ("Mrs." and "Madame" are left out: "Mrs. Julius Beaufort" bears her husband's name)."""
    votes: dict[tuple[str, ...], Counter[str]] = defaultdict(Counter)
    pattern = re.compile(r"(?<![\w'’])(he|him|his|she|her|hers)(?![\w'’])", re.IGNORECASE)
    for i, o in enumerate(occurrences):
        limit = min(o.end + 120, occurrences[i + 1].start if i + 1 < len(occurrences) else len(text))
        m = pattern.search(text, o.end, limit)
        if m:
            votes[o.words][PRONOUN_GENDER[m.group().lower()]] += 1
    styled_votes: dict[str, Counter[str]] = defaultdict(Counter)
    for o in occurrences:
        implied = HONORIFICS.get(o.honorific or "", "unknown")
        if implied == "unknown" or o.honorific in _WIFE_TITLES - {"lady"} or o.words[0] in NAME_PARTICLES:
            continue
        if len(o.words) > 1 or o.honorific in _FIRST_NAME_TITLES:
            styled_votes[o.words[0]][implied] += 1
    styled = {w: c.most_common(1)[0][0] for w, c in styled_votes.items() if len(c) == 1}
    full = [o.words for o in occurrences if len(o.words) > 1]
    given = {w[0] for w in full if w[0] not in NAME_PARTICLES} - {w[-1] for w in full}
    return _GenderEvidence(votes, styled, frozenset(given))


def _sentence_cooccurrence(
    book: Book, occurrences: list[_Occurrence], dialogue: Regions
) -> Counter[tuple[_FormKey, _FormKey]]:
    """How many sentences name both forms (both orders stored). Two names in one sentence are
    almost always two people ("Mr. Emerson and George", "'Jane,' said Elizabeth"), so this count
    is the cannot-link evidence that keeps fathers, sons, sisters and nickname look-alikes apart.
    Only names on the same side of a quotation mark count: '"Miss Woodhouse," said he, and Emma
    smiled' addresses the person the narration then names."""
    layer = book.sentences if len(book.sentences) else book.paragraphs
    index = np.searchsorted(layer.starts, np.array([o.start for o in occurrences]), side="right") - 1
    by_sentence: dict[tuple[int, int], set[_FormKey]] = defaultdict(set)
    for o, i in zip(occurrences, index.tolist(), strict=True):
        by_sentence[(i, dialogue.index(o.start))].add(_form(o))
    out: Counter[tuple[_FormKey, _FormKey]] = Counter()
    for forms in by_sentence.values():
        if len(forms) < 2:
            continue
        for a in forms:
            for b in forms:
                if a != b:
                    out[(a, b)] += 1
    return out


def _turn_takers(
    book: Book, occurrences: list[_Occurrence], dialogue: Regions
) -> Counter[tuple[_FormKey, _FormKey]]:
    """Names that take turns in one conversation: a speech tagged "said Madge" answered within two
    paragraphs by one tagged "said Margaret". Each such exchange counts as two shared sentences of
    cannot-link evidence, so two exchanges keep a pet name apart from the formal name it resembles,
    while a narrator who once writes "said Mike" and then "said Michael" is not taken for two people."""
    if not len(book.paragraphs):
        return Counter()
    paragraph = _paragraph_indices(book, occurrences)
    tagged = _tagged_paragraphs(occurrences, paragraph, dialogue, lambda o: not o.titled)
    out: Counter[tuple[_FormKey, _FormKey]] = Counter()
    for p, a in tagged.items():
        for q in (p + 1, p + 2):
            b = tagged.get(q)
            if b is not None and b != a:
                out[(a, b)] += TURN_WEIGHT
                out[(b, a)] += TURN_WEIGHT
    return out


def _gender_of(honorific: str | None, words: tuple[str, ...], votes: _GenderEvidence) -> str:
    if honorific and honorific != "the":
        implied = HONORIFICS.get(honorific, "unknown")
        if implied != "unknown":
            return implied
    # a full name's first word is a given name: how the book styles it ("Lady Brett") decides, then
    # a clear census gender, which outweighs the pronouns ("Mrs. Julius Beaufort ... she" is near him)
    if len(words) > 1 and words[0] not in NAME_PARTICLES:
        lexical = votes.styled.get(words[0]) or given_name_gender(words[0], CLEAR_GIVEN_NAME)
        if lexical != "unknown":
            return lexical
    v = Counter(votes.votes.get(words, Counter()))
    if len(words) > 1:
        v.update(votes.votes.get(words[:1], Counter()))
    total = v["male"] + v["female"]
    if total >= 2 and max(v.values()) >= 0.7 * total:
        return v.most_common(1)[0][0]
    if len(words) == 1 and words[0] in votes.given:  # "Henry" alone, his pronouns unclear
        return votes.styled.get(words[0]) or given_name_gender(words[0])
    return "unknown"


def _compatible(a: str, b: str) -> bool:
    return a == "unknown" or b == "unknown" or a == b


def _form_chapters(book: Book, occurrences: list[_Occurrence]) -> dict[_FormKey, Counter[int]]:
    """For each form, how often each chapter (or synthetic section) of the book uses it."""
    chapters: dict[_FormKey, Counter[int]] = defaultdict(Counter)
    for o in occurrences:
        chapter = book.chapter_at(o.start)
        chapters[_form(o)][chapter.id if chapter is not None else -1] += 1
    return chapters


def _cluster(
    occurrences: list[_Occurrence],
    votes: _GenderEvidence,
    together: Counter[tuple[_FormKey, _FormKey]],
    links: Counter[tuple[_FormKey, _FormKey]] | None = None,
    addressed: Counter[tuple[_FormKey, _FormKey]] | None = None,
    turns: Counter[tuple[_FormKey, _FormKey]] | None = None,
    chapters: dict[_FormKey, Counter[int]] | None = None,
) -> tuple[dict[int, _Cluster], dict[_FormKey, int]]:
    """Alias clusters of the accepted name forms (see the module docstring for the steps).
    ``together`` (shared sentences) and ``turns`` (tagged turns of one conversation) are cannot-link
    evidence; a link the text states ("Aunt Celia, Mrs. Milvain") is only vetoed by shared sentences,
    since a narrator may tag one person's turns with both names."""
    state = _Clustering(
        counts=Counter(_form(o) for o in occurrences),
        votes=votes,
        together=together,
        apart=together + (turns or Counter()),
        chapters=chapters or {},
    )
    forms = sorted(
        state.counts, key=lambda f: (-len(f[1]), -(f[0] is not None and f[0] != "the"), -state.counts[f])
    )
    _cluster_full_names(state, forms)
    _cluster_first_names(state, forms)
    # "Mr." before "General" on a tie, so "General Tilney" finds "Mr. Tilney" already taken
    _cluster_titled_words(
        state, sorted(forms, key=lambda f: (-state.counts[f], honorific_class(f[0]) != "plain"))
    )
    _cluster_bare_words(state, forms)
    _cluster_the_titles(state, forms)
    clusters, assign = state.clusters, state.assign
    # nicknames that became their own cluster before their formal name existed: join them now
    _join_nicknames(clusters, assign, state.conflict, state.near)
    _join_orphans(clusters, assign, state.conflict)
    _join_linked(clusters, assign, state.sentence_conflict, links or Counter())
    _join_addressed(
        clusters, assign, lambda form, c: _shared_sentences(state.apart, form, c), addressed or Counter()
    )
    _join_name_variants(clusters, assign, state.conflict, state.near)
    return clusters, assign


@dataclass(slots=True)
class _Clustering:
    """The clusters being built and the evidence every phase of `_cluster` consults."""

    counts: Counter[_FormKey]  # uses of each accepted form
    votes: _GenderEvidence
    together: Counter[tuple[_FormKey, _FormKey]]  # shared sentences: cannot-link evidence
    apart: Counter[tuple[_FormKey, _FormKey]]  # shared sentences and tagged turns
    chapters: dict[_FormKey, Counter[int]] = field(default_factory=dict)  # `_form_chapters`
    clusters: dict[int, _Cluster] = field(default_factory=dict)
    assign: dict[_FormKey, int] = field(default_factory=dict)

    def new_cluster(self, form: _FormKey, gender: str) -> _Cluster:
        cluster = _Cluster(len(self.clusters) + 1, gender=gender)
        self.clusters[cluster.id] = cluster
        self.add(cluster, form)
        return cluster

    def add(self, cluster: _Cluster, form: _FormKey) -> None:
        honorific, words = form
        cluster.forms[form] += self.counts[form]
        self.assign[form] = cluster.id
        if honorific and honorific != "the":
            cluster.honorifics.add(honorific)
        if (len(words) > 1 or honorific in _FIRST_NAME_TITLES) and words[0] not in NAME_PARTICLES:
            cluster.first_names.add(words[0])  # "Mr. van der Luyden" has no first name
        if len(words) > 1 or (honorific not in (None, "the") and honorific not in _FIRST_NAME_TITLES):
            cluster.last_names.add(words[-1])
        gender = _gender_of(honorific, words, self.votes)
        if cluster.gender == "unknown":
            cluster.gender = gender

    def add_or_new(self, target: _Cluster | None, form: _FormKey, gender: str) -> None:
        """Join ``target`` unless it is None or the names share too much to be one person."""
        if target is None or self.conflict(form, target):
            self.new_cluster(form, gender)
        else:
            self.add(target, form)

    def conflict(self, form: _FormKey, cluster: _Cluster) -> bool:
        return _conflict(self.apart, self.counts, form, cluster)

    def sentence_conflict(self, form: _FormKey, cluster: _Cluster) -> bool:
        return _conflict(self.together, self.counts, form, cluster)

    def near(self, form: _FormKey, cluster: _Cluster) -> bool:
        """Whether ``form`` is used where ``cluster``'s story is: at least `NEAR_SHARE` of its uses
        fall between the first and the last chapter naming the cluster (a "Bill" of the first
        chapters is not the "William" of the last ones; "Nancy" among the chapters of "Anne" may be
        her). Without chapter information, near."""
        own = self.chapters.get(form)
        theirs = [chapter for other in cluster.forms for chapter in self.chapters.get(other, ())]
        if not own or not theirs:
            return True
        first, last = min(theirs), max(theirs)
        inside = sum(n for chapter, n in own.items() if first <= chapter <= last)
        return inside >= NEAR_SHARE * sum(own.values())

    def female_alone(self, word: str) -> _Cluster | None:
        """The one female full-named cluster with surname ``word`` that is never "Miss", if it is the
        only woman of that surname: "Mrs. Pontellier" is "Edna Pontellier" when no daughter shares it."""
        named = [
            c
            for c in self.clusters.values()
            if word in c.last_names and any(len(w) > 1 for (_, w) in c.forms)
        ]
        women = [c for c in named if c.gender == "female"]
        # the daughters are "Miss": "Mrs. Hamilton" is "Fannie Hamilton" beside "Miss Kitty Hamilton";
        # of two women never "Miss", one far more often named ("Ellen Olenska", not a stray "Hang
        # Ellen Olenska")
        wives = [c for c in women if not {honorific_class(h) for h in c.honorifics} & {"unmarried"}]
        if wives:
            return _dominant(wives, WIFE_DOMINANCE)
        # ... and when they are all "Miss", the one untitled full name of unknown gender is the mother
        unknown = [c for c in named if c.gender == "unknown" and not c.honorifics]
        # ... unless a "Mr. Palmer" is about and no man of that surname has a full name: it may be his
        mister = any(HONORIFICS.get(h or "") == "male" and w == (word,) for (h, w) in self.counts)
        named_man = any(c.gender == "male" for c in named)
        return unknown[0] if len(unknown) == 1 and (named_man or not mister) else None

    def title_holder(self, form: _FormKey) -> _Cluster | None:
        """For a bare title ("the Admiral", "Colonel"), the one cluster that bears it ("Admiral Croft"),
        or the bearer named with it at least three times as often as any other (Croft 14, Baldwin 4)."""
        words = form[1]
        if len(words) != 1 or words[0].lower() not in STANDALONE_TITLES:
            return None
        title = honorific_class(words[0].lower())
        uses = [
            (
                c,
                sum(
                    n
                    for (h, _), n in c.forms.items()
                    if h not in (None, "the") and honorific_class(h) == title
                ),
            )
            for c in self.clusters.values()
        ]
        holder = clear_winner(uses, at_least=1, factor=TITLE_HOLDER_LEAD)
        return None if holder is None or self.conflict(form, holder) else holder

    def by_first_name(self, form: _FormKey, gender: str) -> _Cluster | None:
        """The full-name cluster this first name (or nickname) belongs to, if one dominates. With an
        honorific only clusters of its class compete, and for "Sir/Lady/Aunt + first name" those
        already holding that very honorific win ("Sir John" is "Sir John Middleton", not Willoughby)."""
        honorific, (word, *_) = form
        named = [
            c
            for c in self.clusters.values()
            if word in c.first_names and _compatible(c.gender, gender) and _same_class(c, honorific)
        ]
        if honorific in _FIRST_NAME_TITLES:
            named = [c for c in named if honorific in c.honorifics] or named
        target = _dominant(named)
        if target is None and word.lower() in NICKNAMES and self.counts[form] >= MIN_NICKNAME_USES:
            target = _dominant(_nickname_targets(word, self.clusters.values(), form))
            if target is not None and not self.near(form, target):
                target = None  # "Bill" of the first chapters is not the "William" of the last
        return None if target is None or self.conflict(form, target) else target


def _cluster_full_names(state: _Clustering, forms: list[_FormKey]) -> None:
    """Phase 1: full names (two or more words) make one cluster each, or join the longer name that
    contains them."""
    for form in forms:
        honorific, words = form
        if len(words) < 2 or honorific == "the":
            continue
        gender = _gender_of(honorific, words, state.votes)
        target = None
        for cluster in state.clusters.values():
            if not _compatible(cluster.gender, gender) or not _same_class(cluster, honorific):
                continue
            if (
                honorific is None
                and {honorific_class(h) for h in cluster.honorifics} == {"married"}
                and _gender_of(None, words[:1], state.votes) != "female"
            ):
                continue  # "John Dashwood" is not "Mrs. John Dashwood"; "Rachel Lynde" is "Mrs. Rachel Lynde"
            if any(_contains(other, words) for (_, other) in cluster.forms if len(other) >= len(words)):
                target = cluster
                break
        state.add_or_new(target, form, gender)


def _cluster_first_names(state: _Clustering, forms: list[_FormKey]) -> None:
    """Phase 2: a first name alone joins the full name it starts ("Emma" -> "Emma Woodhouse")."""
    counts = state.counts
    for form in forms:
        honorific, words = form
        if form in state.assign or len(words) != 1 or honorific is not None:
            continue
        # "Fitzwilliam" is Colonel Fitzwilliam's surname before it is Mr. Fitzwilliam Darcy's first name
        ranked = sum(
            n
            for (h, w), n in counts.items()
            if w == words and h in STANDALONE_TITLES | _MALE_TITLES and h not in _FIRST_NAME_TITLES
        )
        named = sum(n for (_, w), n in counts.items() if len(w) > 1 and w[0] == words[0])
        if ranked >= MIN_RANK_USES and ranked > named:
            continue
        target = state.by_first_name(form, _gender_of(None, words, state.votes))
        if target is not None:
            state.add(target, form)


def _cluster_titled_words(state: _Clustering, forms: list[_FormKey]) -> None:
    """Phase 3: an honorific and one word ("Mr. Darcy", "Lady Catherine", "Miss Bennet"), the most
    frequent first."""
    for form in forms:
        honorific, words = form
        if form in state.assign or len(words) != 1 or honorific in (None, "the"):
            continue
        gender = _gender_of(honorific, words, state.votes)
        target = _titled_word_owner(state, form, gender)
        if target is not None and _known_apart_by_first_name(state, form, target):
            target = None
        if target is not None and state.conflict(form, target):
            target = None
        if target is None:
            target = _find_same(state.clusters, honorific, words)
        if target is None:
            state.new_cluster(form, gender)
        else:
            state.add(target, form)


def _titled_word_owner(state: _Clustering, form: _FormKey, gender: str) -> _Cluster | None:
    """The cluster "Hon Word" belongs to: a surname's bearer of that honorific class, a sister, a wife,
    a clergyman, or the owner of a first name ("Miss Marianne")."""
    honorific, (word,) = form
    assert honorific is not None
    clusters = state.clusters
    surname = any(word in c.last_names for c in clusters.values())
    # "Lady Otway" is a wife, like "Mrs. Otway"; "Lady Catherine" is a first name
    married = honorific_class(honorific) == "married" or (honorific == "lady" and surname)
    candidates = [
        c
        for c in clusters.values()
        if _compatible(c.gender, gender)
        and _same_class(c, honorific)
        and word in c.last_names
        # "Mrs. Dashwood" is the mother, not "Marianne Dashwood": only join a cluster already married
        and (not married or c.honorifics & _WIFE_TITLES)
    ]
    # "Mr. Wilcox" beside the brothers "Charles" and "Paul Wilcox" is likelier their father than the
    # elder brother: two sons known by their given names need a much clearer winner
    plain = honorific_class(honorific) == "plain"
    factor = BROTHERS_DOMINANCE if _brothers(candidates) and plain else DOMINANCE
    # a candidate known to be of the form's gender beats those of unknown gender ("Comrade Gregory",
    # a man by his pronouns, is "Mr. Lucian Gregory", not "Rosamond Gregory")
    confirmed = [c for c in candidates if gender != "unknown" and c.gender == gender]
    if len(confirmed) == 1 and honorific != "miss":
        candidates = confirmed
    # "Miss Bennet" with several Bennet sisters about: only a unique candidate is safe
    target = _dominant(candidates, factor) if honorific != "miss" or len(candidates) == 1 else None
    if target is None and honorific == "miss":
        target = _styled_so(candidates, honorific, word) or _eldest_sister(candidates, word)
    if target is None and honorific_class(honorific) == "married" and not candidates:
        target = state.female_alone(word)
        if target is not None and state.conflict(form, target):
            target = None
    if target is None and plain and not candidates:
        # a clergyman is "Mr. Eager" as often as "the Rev. Cuthbert Eager": the one of that surname
        clergy = _family(clusters, word)
        if len(clergy) == 1 and {honorific_class(h) for h in clergy[0].honorifics} == {"reverend"}:
            target = None if state.conflict(form, clergy[0]) else clergy[0]
    if target is None and not surname:
        target = state.by_first_name(form, gender)  # "Miss Marianne", "Mr. Thaddeus", "Lady Catherine"
        if target is not None and not _same_class(target, honorific):
            target = None
    return target


def _known_apart_by_first_name(state: _Clustering, form: _FormKey, target: _Cluster) -> bool:
    """Whether ``target`` names its "Mr. X" with a first name to tell him from another "Mr. X":
    "Mr. John Knightley" beside "Mr. Knightley", "Mr. George Emerson" beside his father."""
    honorific, (word,) = form
    if honorific not in SURNAME_HONORIFICS or word not in target.last_names:
        return False
    counts, votes = state.counts, state.votes
    married = honorific_class(honorific) == "married"
    personal = sum(n for (h, w), n in target.forms.items() if len(w) > 1 or w[0] in target.first_names)
    first_named = [w for (h, w) in target.forms if h == honorific and len(w) > 1]
    own_first_name = married and all(_gender_of(None, w[:1], votes) == "female" for w in first_named)
    # ... and a first name used once or twice is no such habit ("Mr. John Knightley" in a list)
    habitual = sum(counts[(honorific, w)] for w in first_named) >= MIN_HABIT_USES
    # ... nor one the narrator gives a man with no family of his name about ("Mr. Thomas Marvel")
    kin = any(c is not target for c in _family(state.clusters, word))
    # the son's first name alone is common too: "Mr. Emerson" is the father of "George"
    # ... unless the full name is what the text calls him ("Dorian Gray" twice as often as "Mr. Gray")
    bare_first = sum(counts[(None, w[:1])] for w in first_named)
    full_named = sum(n for (_, w), n in target.forms.items() if len(w) > 1 and w[-1] == word)
    return bool(
        first_named
        and not own_first_name
        and habitual
        and (
            (counts[form] > TITLE_HABIT_LEAD * max(1, personal) and kin)
            or (
                honorific_class(honorific) == "plain"
                and bare_first >= counts[form]
                and full_named < FULL_NAME_LEAD * counts[form]
            )
        )
    )


def _cluster_bare_words(state: _Clustering, forms: list[_FormKey]) -> None:
    """Phase 4: one word alone: a bare title, a surname, a first name or nickname, or a new character."""
    counts = state.counts
    for form in forms:
        honorific, words = form
        if form in state.assign or len(words) != 1 or honorific is not None:
            continue
        word = words[0]
        holder = state.title_holder(form)  # "Colonel" alone is the one colonel
        if holder is not None:
            state.add(holder, form)
            continue
        gender = _gender_of(None, words, state.votes)
        by_last = _family(state.clusters, word)
        target = _surname_owner(state, form, by_last)
        if target is None and not by_last:
            target = state.by_first_name(form, gender)
        # "Emerson" with a father and a son about is ambiguous: no one's, and no one new; so is a
        # surname used once or twice in a family ("Bennet" may be Mr. or Mrs. Bennet)
        # (one used more than any of the family's named members is a character known by it: kept)
        if (
            len(by_last) >= 2
            and (target is None or counts[form] < MIN_SURNAME_USES)
            and counts[form] <= max(c.size for c in by_last)
        ):
            continue
        state.add_or_new(target, form, gender)


def _surname_owner(state: _Clustering, form: _FormKey, by_last: list[_Cluster]) -> _Cluster | None:
    """Whose a bare surname is: a man's ("Bennet" is Mr. Bennet) before a woman's."""
    (word,) = form[1]
    men = [
        c
        for c in by_last
        if c.gender == "male"
        or c.honorifics & _MALE_TITLES
        or any(HONORIFICS.get(h) == "male" for h in c.honorifics)
    ]
    if _brothers(men):
        # of brothers known by their given names: a "Mr. X" known by no given name, named at least
        # as often as the bare surname, owns it like the title ("Wilcox" is Mr. Wilcox, the father
        # of Charles and Paul; two "Monsieur Lebrun"s do not claim six "Lebrun"s); else a clear
        # lead, or the one the narrator names in full ("Hamilton" is Berry Hamilton, the father,
        # not his son Joe, though Joe is named more)
        titled = [c for c in men if c.forms and all(_family_title(f) for f in c.forms)]
        if len(titled) == 1 and titled[0].size >= state.counts[form]:
            return titled[0]
        return _dominant(men, BROTHERS_DOMINANCE) or _most_full_named(men, word)
    target = _dominant(men) or _dominant([c for c in by_last if c.gender != "female"])
    if (
        target is None
        and not men
        and not any(c.gender != "female" for c in by_last)
        and len(by_last) == 1
        and {honorific_class(h) for h in by_last[0].honorifics} != {"married"}
    ):
        # a woman's only when she is the one woman of that surname ("Cominges" may be Blanche or her
        # mother), and never a "Mrs." ("Braddocks" is Mr., whom the text may not title)
        target = by_last[0]
    return target


def _cluster_the_titles(state: _Clustering, forms: list[_FormKey]) -> None:
    """Phase 5: "the Colonel", "the Caterpillar": a titled person alone, else one of a kind."""
    for form in forms:
        honorific, words = form
        if form in state.assign or honorific != "the":
            continue
        holder = state.title_holder(form)
        if holder is not None:
            state.add(holder, form)
            continue
        bare = state.clusters.get(state.assign.get((None, words), -1))
        if bare is not None:
            state.add(bare, form)
            continue
        # "the Cat" is "the Cheshire Cat" when only one longer title ends in its word
        longer = [
            c
            for c in state.clusters.values()
            if any(h == "the" and len(w) > len(words) and w[-len(words) :] == words for (h, w) in c.forms)
        ]
        state.add_or_new(longer[0] if len(longer) == 1 else None, form, "unknown")


#: what may stand between two names of one person: "Miss Hamilton, now Mrs Smith", "Frieda Mosebach,
#: now Frau Liesecke", "Mrs. Grey, née Miss Dunn", "Tom, whose name was Thomas"
_LINK_GAP = re.compile(
    r"[ \t]*[,(]?\s*(?:now|formerly|n[ée]e|afterwards|whose\s+(?:real\s+|maiden\s+)?name\s+(?:was|is)"
    r"|otherwise\s+called|known\s+as|alias)\s+"
)
_PAREN_OPEN = re.compile(r"[ \t]*\(\s*")
_PAREN_CLOSE = re.compile(r"\s*\)")
#: "Hilbery's", or "Hilbery s" where a text lost its apostrophes
_POSSESSIVE_NEXT = re.compile(r"(?:['’]| )s\b")
_APPOSITION_GAP = re.compile(r"[ \t]*,\s*")
_LIST_NEXT = re.compile(r"\s*(?:,\s*)?(?:and|or|nor)\b|\s*,\s*[A-Z]")


def _textual_links(
    text: str, occurrences: list[_Occurrence], dialogue: Regions
) -> Counter[tuple[_FormKey, _FormKey]]:
    """Pairs of forms the text itself says name one person, counted: "Miss Hamilton, now Mrs Smith",
    "Mrs. Cosham (Aunt Millicent)",
    and, in narration, a family title set beside a formal one ("Aunt Celia, Mrs. Milvain, who ...")
    when they are not items of a list ("Aunt Celia, Mrs. Cosham, and Mr. Hilbery")."""
    links: Counter[tuple[_FormKey, _FormKey]] = Counter()
    for i in range(len(occurrences) - 1):
        a, b = occurrences[i], occurrences[i + 1]
        gap = text[a.end : b.start]
        if len(gap) > 60 or "\n\n" in gap:
            continue
        if _LINK_GAP.fullmatch(gap) or (
            _PAREN_OPEN.fullmatch(gap) and _PAREN_CLOSE.match(text, b.end) and not (a.titled or b.titled)
        ):  # "Miss Hamilton, now Mrs Smith"; "Mrs. Cosham (Aunt Millicent)"
            links[(_form(a), _form(b))] += 1
            continue
        kinds = {a.honorific in _KINSHIP, b.honorific in _KINSHIP}
        if (
            _APPOSITION_GAP.fullmatch(gap)
            and kinds == {True, False}
            and a.honorific not in (None, "the")
            and b.honorific not in (None, "the")
            and a.start not in dialogue
            and not _LIST_NEXT.match(text, b.end)
            and not _POSSESSIVE_NEXT.match(text, b.end)  # "Cousin Caroline, Mrs. Hilbery's cousin"
            and not text[max(0, a.start - 3) : a.start].strip().endswith(",")
        ):
            links[(_form(a), _form(b))] += 1
    return links


def _vocative_replies(
    book: Book, occurrences: list[_Occurrence], dialogue: Regions
) -> Counter[tuple[_FormKey, _FormKey]]:
    """Family titles to the formal names that answer them: a speech addressing "Aunt Juley" followed,
    in the next paragraph, by one tagged "said Mrs. Munt". The one addressed usually answers, so when
    one formal name answers a family title at least twice, and twice as often as any other, it is hers."""
    if not len(book.paragraphs):
        return Counter()
    paragraph = _paragraph_indices(book, occurrences)
    # paragraph -> the first formal name tagged with a speech verb
    tagged = _tagged_paragraphs(
        occurrences, paragraph, dialogue, lambda o: o.honorific not in (None, "the", *_KINSHIP)
    )
    replies: dict[_FormKey, Counter[_FormKey]] = defaultdict(Counter)
    for o, p in zip(occurrences, paragraph, strict=True):
        if o.honorific in _KINSHIP and o.start in dialogue and p + 1 in tagged:
            replies[_form(o)][tagged[p + 1]] += 1
    return _clear_answers(replies)


def _address_replies(
    book: Book, occurrences: list[_Occurrence], dialogue: Regions
) -> Counter[tuple[_FormKey, _FormKey]]:
    """Names people are addressed by to the names the narration gives them: a speech that says
    "Henry, …" is answered in the next paragraph, or answers the previous one, by a turn the
    narration tags "said Mr. Wilcox". Counted per (vocative, tag) pair; a vocative answered at least
    twice by one tagged name, and twice as often as by any other, links the two (`_join_addressed`
    decides whether the names can be one person's)."""
    if not len(book.paragraphs) or not len(dialogue):
        return Counter()
    text = book.text
    paragraph = _paragraph_indices(book, occurrences)
    tagged = _tagged_paragraphs(occurrences, paragraph, dialogue, lambda o: not o.titled)
    replies: dict[_FormKey, Counter[_FormKey]] = defaultdict(Counter)
    for o, p in zip(occurrences, paragraph, strict=True):
        region = dialogue.index(o.start)
        if region < 0 or o.titled or o.honorific in _KINSHIP:
            continue
        if not is_vocative(text, o.start, o.end, (dialogue.starts[region], dialogue.ends[region])):
            continue
        form, own = _form(o), tagged.get(p)
        for answer in (tagged.get(p - 1), tagged.get(p + 1)):
            if answer is not None and answer != own and answer != form:
                replies[form][answer] += 1
    return _clear_answers(replies)


def _tagged_paragraphs(
    occurrences: list[_Occurrence],
    paragraph: list[int],
    dialogue: Regions,
    accept: Callable[[_Occurrence], bool],
) -> dict[int, _FormKey]:
    """Paragraph -> the first name the narration tags a speech with there ("said Mr. Wilcox"), among
    the occurrences ``accept`` lets through."""
    tagged: dict[int, _FormKey] = {}
    for o, p in zip(occurrences, paragraph, strict=True):
        if o.speech and o.start not in dialogue and accept(o):
            tagged.setdefault(p, _form(o))
    return tagged


def _paragraph_indices(book: Book, occurrences: list[_Occurrence]) -> list[int]:
    """The paragraph each occurrence starts in."""
    starts = np.array([o.start for o in occurrences])
    return (np.searchsorted(book.paragraphs.starts, starts, side="right") - 1).tolist()


def _clear_answers(replies: dict[_FormKey, Counter[_FormKey]]) -> Counter[tuple[_FormKey, _FormKey]]:
    """(vocative, answer) links where one answer came at least twice, and twice as often as any other."""
    links: Counter[tuple[_FormKey, _FormKey]] = Counter()
    for vocative, answers in replies.items():
        best = clear_winner(answers.items(), at_least=ANSWER_MIN, factor=ANSWER_LEAD)
        if best is not None:
            links[(vocative, best)] = answers[best]
    return links


def _linked_clusters(
    clusters: dict[int, _Cluster], assign: dict[_FormKey, int], links: Counter[tuple[_FormKey, _FormKey]]
) -> Iterator[tuple[tuple[_FormKey, _FormKey], int, _Cluster, _Cluster]]:
    """The linked form pairs, most often linked first, with their two clusters as they stand when
    reached (joins along the way count): only pairs still in two gender-compatible clusters."""
    for pair, n in links.most_common():
        ca, cb = clusters.get(assign.get(pair[0], -1)), clusters.get(assign.get(pair[1], -1))
        if ca is not None and cb is not None and ca is not cb and _compatible(ca.gender, cb.gender):
            yield pair, n, ca, cb


def _join_addressed(
    clusters: dict[int, _Cluster],
    assign: dict[_FormKey, int],
    shared: Callable[[_FormKey, _Cluster], int],
    links: Counter[tuple[_FormKey, _FormKey]],
) -> None:
    """Join a name people address someone by to the name the narration tags their answers with
    ("Henry" and "Mr. Wilcox", "Miss Dashwood" and "Elinor") when nothing in the two names disagrees:
    genders agree, neither has a first name or a surname the other lacks a match for, and a
    "Miss Bennet" never joins a sister the text styles "Miss Elizabeth" (she is not the eldest)."""
    for (a, b), n, ca, cb in _linked_clusters(clusters, assign, links):
        if (ca.first_names and cb.first_names and not ca.first_names & cb.first_names) or (
            ca.last_names and cb.last_names and not ca.last_names & cb.last_names
        ):
            continue
        if _styled_sister(ca, cb) or _styled_sister(cb, ca):
            continue
        if _other_given_name(a, cb) or _other_given_name(b, ca):
            continue
        if any(_family_title(form) and _brothers(_family(clusters, form[1][0])) for form in (a, b)):
            continue  # "Mr. Hamilton" may be the father of "Joe" and "Berry"... or either of them
        if not all(_same_class(cb, h) for h in ca.honorifics) or not all(
            _same_class(ca, h) for h in cb.honorifics
        ):
            continue  # "Mrs. Vane" is not "Miss Sibyl Vane", whoever answers whom
        small, large = sorted((ca, cb), key=lambda c: c.size)
        # a narrator varies the names of one person in one sentence ("Elinor ... Miss Dashwood"), so
        # shared sentences only keep them apart when they outnumber the replies
        if sum(shared(form, large) for form in small.forms) > n:
            continue
        _absorb(clusters, assign, large, small)


def _other_given_name(form: _FormKey, cluster: _Cluster) -> bool:
    """Whether a bare given name ("Prascovia") meets a cluster with another given name ("Polina")
    that is no variant of it (unlike "Harry" and "Henry", "Evie" and "Evelyn")."""
    honorific, words = form
    # a cluster known by a bare given name ("Alice") has that first name too
    firsts = cluster.first_names | {
        w[0] for (h, w) in cluster.forms if h is None and len(w) == 1 and given_name_gender(w[0]) != "unknown"
    }
    if honorific is not None or len(words) != 1 or not firsts or words[0] in firsts:
        return False
    return words[0] not in cluster.last_names and not any(_variant_names(words[0], f) for f in firsts)


def _styled_sister(miss: _Cluster, other: _Cluster) -> bool:
    """Whether ``miss`` is a bare "Miss Surname" and ``other`` is styled "Miss <first name>"."""
    bare = [w for (h, w) in miss.forms if h == "miss" and len(w) == 1 and w[0] not in other.first_names]
    return any(_styled_miss(other, w[0]) for w in bare)


def _styled_miss(cluster: _Cluster, surname: str) -> bool:
    """Whether the text styles ``cluster`` "Miss <first name>" ("Miss Elizabeth (Bennet)"): a younger
    sister, not the "Miss Bennet" of that surname."""
    return any(h == "miss" and w[0] in cluster.first_names and w != (surname,) for (h, w) in cluster.forms)


def _join_linked(
    clusters: dict[int, _Cluster],
    assign: dict[_FormKey, int],
    conflict: Callable[[_FormKey, _Cluster], bool],
    links: Counter[tuple[_FormKey, _FormKey]],
) -> None:
    """Join the clusters of two forms the text links ("Miss Hamilton, now Mrs Smith"): the smaller into
    the larger, when their genders agree and the names do not share sentences as two people do."""
    for _, _, ca, cb in _linked_clusters(clusters, assign, links):
        small, large = sorted((ca, cb), key=lambda c: c.size)
        if any(conflict(form, large) for form in small.forms):
            continue
        _absorb(clusters, assign, large, small)


def _absorb(
    clusters: dict[int, _Cluster], assign: dict[_FormKey, int], target: _Cluster, cluster: _Cluster
) -> None:
    """Move every form of ``cluster`` into ``target`` and forget ``cluster``."""
    target.forms.update(cluster.forms)
    target.honorifics |= cluster.honorifics
    target.first_names |= cluster.first_names
    target.last_names |= cluster.last_names
    for form in cluster.forms:
        assign[form] = target.id
    del clusters[cluster.id]


def _conflict(
    together: Counter[tuple[_FormKey, _FormKey]], counts: Counter[_FormKey], form: _FormKey, cluster: _Cluster
) -> bool:
    """Whether ``form`` names someone else than ``cluster``: they share sentences too often."""
    shared = _shared_sentences(together, form, cluster)
    return shared >= max(CONFLICT_MIN, CONFLICT_SHARE * min(counts[form], cluster.size))


def _shared_sentences(together: Counter[tuple[_FormKey, _FormKey]], form: _FormKey, cluster: _Cluster) -> int:
    """Sentences naming ``form`` beside another name of ``cluster`` (not a part of the same name)."""
    # "Knightley" and "Mr. Knightley", "Anne" and "Anne Shirley" in one sentence are one person
    # ... nor a bare "Lynde" and "Mrs. Rachel" when the cluster holds "Rachel Lynde": parts of one name
    fulls = [set(w) for (_, w) in cluster.forms if len(w) > 1] if form[0] is None else []
    return sum(
        together.get((form, other), 0)
        for other in cluster.forms
        if not (_contains(other[1], form[1]) or _contains(form[1], other[1]))
        and not any(set(form[1]) | set(other[1]) <= full for full in fulls)
    )


def _nickname_targets(word: str, clusters: Iterable[_Cluster], form: _FormKey) -> list[_Cluster]:
    formal = {f.capitalize() for f in NICKNAMES.get(word.lower(), ())}
    return [
        c
        for c in clusters
        if (form not in c.forms)
        and not c.honorifics & _NOBLE  # nobody calls Lady Catherine "Kitty"
        and (formal & c.first_names or any((None, (f,)) in c.forms for f in formal))
    ]


def _join_orphans(
    clusters: dict[int, _Cluster], assign: dict[_FormKey, int], conflict: Callable[[_FormKey, _Cluster], bool]
) -> None:
    """Small clusters of one word ("Miss Marianne", "Bauerstein", "Mr. Teddy") made before the larger
    cluster that carries that word as its first or last name: join it when exactly one does."""
    for cluster in sorted(clusters.values(), key=lambda c: c.size):
        words = {w for (_, w) in cluster.forms}
        if len(words) != 1 or len(next(iter(words))) != 1:
            continue
        ((word,),) = words
        honorifics = {h for (h, _) in cluster.forms if h not in (None, "the")}
        married = bool(honorifics & _WIFE_TITLES)
        # "Miss Marianne", "Mr. Thaddeus" may be first names; "Colonel Fitzwilliam" is a surname
        by_first = honorifics <= _FIRST_NAME_TITLES | SURNAME_HONORIFICS and not any(
            word in c.last_names for c in clusters.values() if c is not cluster
        )
        targets = [
            c
            for c in clusters.values()
            if c is not cluster
            and (word in c.last_names or (None, (word,)) in c.forms or (by_first and word in c.first_names))
            and _compatible(c.gender, cluster.gender)
            and all(_same_class(c, h) for h in honorifics)
            and (not married or c.honorifics & _WIFE_TITLES)
        ]
        # one candidate, or, for "Mr. Sholto", one named far more often than the other men of the name
        # (Thaddeus, once "Mr. Thaddeus" has joined him, over his twin); of brothers known by their
        # given names, one with a much clearer lead, else the one the narrator names in full ("Mr.
        # Hamilton" is Berry Hamilton, named so thrice as often as Joe Hamilton: the head of the house)
        target = None
        if len(targets) == 1 or (honorifics and {honorific_class(h) for h in honorifics} == {"plain"}):
            if _brothers(targets):
                target = _dominant(targets, BROTHERS_DOMINANCE) or _most_full_named(targets, word)
            else:
                target = _dominant(targets)
        if target is None:
            continue
        if (
            not honorifics
            and {honorific_class(h) for h in target.honorifics} == {"married"}
            and not target.first_names
        ):
            continue  # a bare surname is no wife's ("Braddocks" is her husband, "Mrs. Braddocks" is she)
        if target.size < cluster.size or any(conflict(form, target) for form in cluster.forms):
            continue
        # "Mr. Emerson" beside a habitual "Mr. George Emerson" is another man (his father)
        if any(
            h in honorifics
            and honorific_class(h) == "plain"
            and len(w) > 1
            and w[-1] == word
            and n >= 3
            and target.forms[(None, w[:1])] >= cluster.size
            for (h, w), n in target.forms.items()
        ):
            continue
        _absorb(clusters, assign, target, cluster)


def _same_class(cluster: _Cluster, honorific: str | None) -> bool:
    """Mr./Mrs./Miss/General/Captain forms of one surname are different people ("General Tilney",
    "Captain Tilney", "Mr. Tilney"): forms with different honorific classes never join."""
    if honorific is None or honorific == "the" or honorific in _KINSHIP:
        return True  # "Aunt Medora" is "Medora Manson" whether she is Mrs. or Marchioness
    classes = {honorific_class(h) for h in cluster.honorifics if h not in _KINSHIP}
    return not classes or honorific_class(honorific) in classes


def _contains(longer: tuple[str, ...], shorter: tuple[str, ...]) -> bool:
    if len(shorter) > len(longer):
        return False
    n = len(shorter)
    if shorter[0] in NAME_PARTICLES:  # "van der Luyden" is the surname of "Henry van der Luyden"
        return longer[-n:] == shorter
    # "Walter Elliot" is not "William Walter Elliot": a name of several words must keep the first one
    return any(longer[i : i + n] == shorter for i in range(len(longer) - n + 1)) and (
        longer[0] == shorter[0] or (n == 1 and longer[-1] == shorter[-1])
    )


def _most_full_named(candidates: list[_Cluster], surname: str) -> _Cluster | None:
    """The candidate named in full ("Berry Hamilton") at least three times, and three times as often
    as any other."""
    uses = [
        (c, sum(n for (_, w), n in c.forms.items() if len(w) > 1 and w[-1] == surname)) for c in candidates
    ]
    return clear_winner(uses, at_least=STYLED_MIN, factor=STYLED_LEAD)


def _family_title(form: _FormKey) -> bool:
    """Whether ``form`` is "Mr. Surname": a title any man of the family may bear."""
    return len(form[1]) == 1 and honorific_class(form[0]) == "plain"


def _family(clusters: dict[int, _Cluster], surname: str) -> list[_Cluster]:
    return [c for c in clusters.values() if surname in c.last_names]


def _brothers(candidates: list[_Cluster]) -> bool:
    """Whether two or more of the candidates are men the text calls by their given names alone."""
    named = [
        c
        for c in candidates
        if c.gender == "male" and sum(c.forms[(None, (f,))] for f in c.first_names) >= BROTHER_NAMED
    ]
    return len(named) >= 2


def _dominant(candidates: list[_Cluster], factor: float = DOMINANCE) -> _Cluster | None:
    """The only candidate, or one mentioned at least ``factor`` times as often as the next."""
    return clear_winner([(c, c.size) for c in candidates], factor=factor)


def _styled_so(candidates: list[_Cluster], honorific: str, surname: str) -> _Cluster | None:
    """Among several of one surname, the one the text itself styles "Miss Daisy Miller" at least three
    times, and three times as often as anyone else is styled so: "Miss Miller" is her. Sisters whom
    the text styles alike ("Miss Elizabeth/Lydia Bennet") leave "Miss Bennet" open."""
    uses = [
        (c, sum(n for (h, w), n in c.forms.items() if h == honorific and len(w) > 1 and w[-1] == surname))
        for c in candidates
    ]
    return clear_winner(uses, at_least=STYLED_MIN, factor=STYLED_LEAD)


def _eldest_sister(candidates: list[_Cluster], surname: str) -> _Cluster | None:
    """Among sisters, "Miss Bennet" is the eldest, and the younger ones are the ones the text styles
    "Miss Elizabeth (Bennet)", "Miss Lydia": when all but one of the women of that surname are styled
    so, the one left is "Miss Bennet"."""
    women = [c for c in candidates if c.gender != "male"]
    unstyled = [c for c in women if not _styled_miss(c, surname)]
    return unstyled[0] if len(women) > 1 and len(unstyled) == 1 else None


def _find_same(
    clusters: dict[int, _Cluster], honorific: str | None, words: tuple[str, ...]
) -> _Cluster | None:
    for cluster in clusters.values():
        if (honorific, words) in cluster.forms:
            return cluster
    return None


def _join_nicknames(
    clusters: dict[int, _Cluster],
    assign: dict[_FormKey, int],
    conflict: Callable[[_FormKey, _Cluster], bool],
    near: Callable[[_FormKey, _Cluster], bool],
) -> None:
    for cluster in list(clusters.values()):
        if len(cluster.forms) != 1:
            continue
        ((honorific, words),) = cluster.forms
        form = (honorific, words)
        if honorific is not None or len(words) != 1 or words[0].lower() not in NICKNAMES:
            continue
        if cluster.size < MIN_NICKNAME_USES:
            continue
        target = _dominant(_nickname_targets(words[0], clusters.values(), form))
        if target is not None and not conflict(form, target) and near(form, target):
            _absorb(clusters, assign, target, cluster)


def _variant_names(a: str, b: str) -> bool:
    """Two spellings of one given name: a nickname and its formal name ("Jim"/"James"), two nicknames of
    one formal name ("Kit"/"Kitty"), or a pet form made with a suffix ("Skaggsy" of "Skaggs")."""
    a, b = a.lower(), b.lower()
    if a == b:
        return False
    na, nb = set(NICKNAMES.get(a, ())), set(NICKNAMES.get(b, ()))
    if b in na or a in nb or na & nb:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= 4 and long in {short + "y", short + "ie", short + "sy", short + "ey"}


def _join_name_variants(
    clusters: dict[int, _Cluster],
    assign: dict[_FormKey, int],
    conflict: Callable[[_FormKey, _Cluster], bool],
    near: Callable[[_FormKey, _Cluster], bool],
) -> None:
    """Clusters that differ only by a variant of the given name: "Jim Vane" and "James Vane", "Frank" (of
    "Frank Oakley") and "Francis Oakley", a lone "Kit" and "Kitty Hamilton", "Michael" and "Mike
    Campbell", "Skaggsy" and "Mr. Skaggs". The smaller joins the one such cluster, if only one exists."""
    for cluster in sorted(clusters.values(), key=lambda c: c.size):
        if cluster.id not in clusters or cluster.honorifics & _NOBLE:
            continue
        full = {(w[0], w[-1]) for (_, w) in cluster.forms if len(w) > 1}
        single = {w[0] for (h, w) in cluster.forms if h is None and len(w) == 1}
        if full:  # a full name: another first name, same surname
            targets = [
                c
                for c in clusters.values()
                if c is not cluster
                and any(
                    last == other_last and _variant_names(first, other_first)
                    for first, last in full
                    for (_, w) in c.forms
                    if len(w) > 1
                    for other_first, other_last in [(w[0], w[-1])]
                )
            ]
        elif len(single) == 1 and len(cluster.forms) == 1 and cluster.size >= MIN_NICKNAME_USES:
            # one word alone: a variant of a name
            (word,) = single
            targets = [
                c
                for c in clusters.values()
                if c is not cluster
                and any(_variant_names(word, name) for name in c.first_names | c.last_names)
            ]
        else:
            continue
        targets = [c for c in targets if not c.honorifics & _NOBLE]
        if len(targets) != 1:
            continue
        (target,) = targets
        if not full and not near(next(iter(cluster.forms)), target):
            continue  # "Bill" of the first chapters, "William" of the last
        small, large = sorted((cluster, target), key=lambda c: c.size)
        # pronoun votes mislead here ("Jim" came out female); titles do not ("Mrs. Charlie" is no Charles)
        titled = [
            {HONORIFICS.get(h, "unknown") for h in c.honorifics if honorific_class(h) in _CIVIL_CLASSES}
            - {"unknown"}
            for c in (small, large)
        ]
        if (
            ((titled[0] or titled[1]) and not _compatible(small.gender, large.gender))
            or not all(_same_class(large, h) for h in small.honorifics)
            or not all(_same_class(small, h) for h in large.honorifics)
            or any(conflict(form, large) for form in small.forms)
        ):
            continue
        _absorb(clusters, assign, large, small)


def _canonical(cluster: _Cluster) -> str:
    """The display name: the fullest form used a fair number of times, else the most frequent."""

    def render(form: tuple[str | None, tuple[str, ...]]) -> str:
        honorific, words = form
        name = " ".join(words)
        if honorific == "the":
            return f"the {name}"
        if honorific:
            head = honorific.capitalize() + ("." if honorific in {"mr", "mrs", "dr", "st", "ms"} else "")
            return f"{head} {name}"
        return name

    total = cluster.size
    frequent = [f for f, n in cluster.forms.items() if n >= max(2, 0.1 * total)]
    if frequent:
        best = max(frequent, key=lambda f: (len(f[1]), f[0] not in (None, "the"), cluster.forms[f]))
        return render(best)
    return render(cluster.forms.most_common(1)[0][0])
