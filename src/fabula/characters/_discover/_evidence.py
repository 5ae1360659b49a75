"""Evidence read off the book for clustering: gender votes (pronouns after a name, styled given names),
cannot-links (names sharing a sentence, names tagging the turns of one conversation), and the links
the text states or implies ("Miss Quarrie, now Mrs Jukes", a vocative answered by a tagged name)."""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fabula._letters import LATIN_UPPER
from fabula.book import Book
from fabula.characters._choice import clear_winner
from fabula.characters._discover._candidates import (
    _FIRST_NAME_TITLES,
    _KINSHIP,
    _WIFE_TITLES,
    _form,
    _FormKey,
    _Occurrence,
)
from fabula.characters._lexicon import (
    CLEAR_GIVEN_NAME,
    HONORIFICS,
    NAME_PARTICLES,
    PRONOUN_GENDER,
    given_name_gender,
)
from fabula.characters._text import Regions, is_vocative, whole_words

TURN_WEIGHT = 2  # shared sentences one exchange of tagged turns counts as


#: a vocative answered by one tagged name at least this often, and this many times as often as any other
ANSWER_MIN, ANSWER_LEAD = 2, 2.0


@dataclass(slots=True)
class _GenderEvidence:
    """What says a name's gender besides an honorific: the pronouns after its mentions, and the given
    names the book itself styles with a gendered title ("Lady Perdita Vesey", "Miss Honey Quarrie")."""

    votes: dict[tuple[str, ...], Counter[str]]
    styled: dict[str, str]
    given: frozenset[str]  # words that open a full name and never end one: given names of this book


#: a third-person pronoun of a person, in any case
_HE_OR_SHE = whole_words(["he", "him", "his", "she", "her", "hers"], re.IGNORECASE)


def _gender_evidence(text: str, occurrences: list[_Occurrence]) -> _GenderEvidence:
    """Pronoun votes: for each name, which pronoun ("he"/"she") most often follows it before another
    name does. Styled given names: the first word of a name written after "Miss", "Mr.", "Lady", "Sir",
    ... ("Mrs." and "Madame" are left out: "Mrs. Cornelius Whitmore" bears her husband's name)."""
    votes: dict[tuple[str, ...], Counter[str]] = defaultdict(Counter)
    for i, o in enumerate(occurrences):
        limit = min(o.end + 120, occurrences[i + 1].start if i + 1 < len(occurrences) else len(text))
        m = _HE_OR_SHE.search(text, o.end, limit)
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


_UP = LATIN_UPPER  # a capital of any latin-script name ("Mr. and Mrs. Łukasiewicz")

#: "Mr. and Mrs. Vance" (the surname right after, not "Mr. and Mrs. Tobias Vance"). These patterns open
#: with their first letter and check the word boundary before it afterwards (``(?<!\w.)``, what ``\b``
#: says before a letter), so `re` skips through the text to those letters instead of trying every offset:
#: the same matches, 10-50 times faster on a novel (tests/characters/test_generation_marks.py)
_COUPLE = re.compile(rf"M(?<!\w.)r\.?\s+and\s+Mrs\.?\s+([{_UP}][\w-]*)(?![\w-]|\s+[{_UP}])")
#: generation markers: "old Mr. Vance", "the elder Mr. Vance", "Mr. Vance, senior" ...
_ELDER_MARK = re.compile(
    rf"[OoTtM](?<!\w.)(?:(?:(?<=[Oo])ld|(?<=[Tt])he\s+elder)\s+Mr\.?\s+([{_UP}][\w-]*)(?![\w-]|\s+[{_UP}])"
    rf"|(?<=M)r\.?\s+([{_UP}][\w-]*),?\s+(?:[Ss]enior|[Ss]en\.|[Ss]r\.))"
)
#: ... and "young Mr. Vance", "the younger Mr. Vance", "Mr. Vance, Jr." (group 1: the "Mr." after "young";
#: a match without it starts at its "Mr.")
_YOUNGER_MARK = re.compile(
    rf"[YyTtM](?<!\w.)(?:(?:(?<=[Yy])oung|(?<=[Tt])he\s+younger)\s+(Mr\.?)\s+[{_UP}][\w-]*(?![\w-]|\s+[{_UP}])"
    rf"|(?<=M)r\.?\s+[{_UP}][\w-]*,?\s+(?:[Jj]unior|[Jj]un\.|[Jj]r\.?)(?!\w))"
)


#: the words that open a generation mark before its "Mr." (white space between): a word, and the word
#: before it when one must come first ("the elder"), exactly as `_ELDER_MARK` / `_YOUNGER_MARK` spell them
_ELDER_OPENERS = ((frozenset({"old", "Old"}), None), (frozenset({"elder"}), frozenset({"the", "The"})))
_YOUNGER_OPENERS = (
    (frozenset({"young", "Young"}), None),
    (frozenset({"younger"}), frozenset({"the", "The"})),
)
_MR = re.compile("Mr")


def _marks(
    pattern: re.Pattern[str],
    body: str,
    mrs: list[int],
    openers: tuple[tuple[frozenset[str], frozenset[str] | None], ...],
) -> list[re.Match[str]]:
    """``list(pattern.finditer(body))`` for a generation mark, the pattern tried only where a match can
    start: at each "Mr" (``mrs``: their offsets) and at the opener right before one across white space
    ("old Mr.", "the elder Mr."). Every match of these patterns starts so, and trying the positions in
    order, each from the end of the last match, is what `finditer` does; on a novel the letters the
    pattern opens with ([OoTtM]) start a fifth of all words, the "Mr"s a few thousand."""
    starts = set(mrs)
    for q in mrs:
        end = q
        while end and body[end - 1].isspace():  # `\s` is `str.isspace`
            end -= 1
        if end == q:
            continue
        for words, before in openers:
            for word in words:
                start = end - len(word)
                if start < 0 or body[start:end] != word:
                    continue
                if before is None:
                    starts.add(start)
                    continue
                gap = start
                while gap and body[gap - 1].isspace():
                    gap -= 1
                if gap < start and body[max(0, gap - 3) : gap] in before:
                    starts.add(gap - 3)
    found: list[re.Match[str]] = []
    reached = 0
    for start in sorted(starts):
        if start < reached:
            continue
        match = pattern.match(body, start)
        if match is not None:
            found.append(match)
            reached = match.end()
    return found


def _elders(book: Book, mrs: list[int] | None = None) -> Counter[str]:
    """Surnames whose "Mr." the text marks as the elder generation: a married couple named by a bare
    surname ("Mr. and Mrs. Vance": that "Mr. Vance" is the husband of that "Mrs. Vance") or a
    generation marker ("old Mr. Vance", "the elder Mr. Vance", "Mr. Vance, senior"), counted per
    surname (`_Clustering.elder`). ``mrs``: the offsets of "Mr" in the body, if known."""
    body = book.text[book.body.start : book.body.end]
    if mrs is None:
        mrs = [m.start() for m in _MR.finditer(body)]
    found = [m.group(1) for m in _COUPLE.finditer(body)]
    found += [m.group(1) or m.group(2) for m in _marks(_ELDER_MARK, body, mrs, _ELDER_OPENERS)]
    return Counter(found)


def _younger_marks(book: Book, mrs: list[int] | None = None) -> dict[int, tuple[int, int]]:
    """Where a "Mr." the text marks as the younger generation starts ("young Mr. Vance", "Mr. Vance,
    Jr."), with the span of the whole marked name: those mentions are the son's, whoever owns the bare
    "Mr. Vance", and their surface ("young Mr. Vance") is a name of his. ``mrs``: as for `_elders`."""
    start = book.body.start
    body = book.text[start : book.body.end]
    if mrs is None:
        mrs = [m.start() for m in _MR.finditer(body)]
    return {
        start + (m.start(1) if m.lastindex else m.start()): (start + m.start(), start + m.end())
        for m in _marks(_YOUNGER_MARK, body, mrs, _YOUNGER_OPENERS)
    }


def _sentence_cooccurrence(
    book: Book, occurrences: list[_Occurrence], dialogue: Regions
) -> Counter[tuple[_FormKey, _FormKey]]:
    """How many sentences name both forms (both orders stored). Two names in one sentence are
    almost always two people ("Mr. Tressel and George", "'Jane,' said Imogen"), so this count
    is the cannot-link evidence that keeps fathers, sons, sisters and nickname look-alikes apart.
    Only names on the same side of a quotation mark count: '"Miss Fenwick," said he, and Nora
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
    """Names that take turns in one conversation: a speech tagged "said Midge" answered within two
    paragraphs by one tagged "said Marjorie". Each such exchange counts as two shared sentences of
    cannot-link evidence, so two exchanges keep a pet name apart from the formal name it resembles,
    while a narrator who once writes "said Nick" and then "said Nicholas" is not taken for two people."""
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
    # a full name's first word is a given name: how the book styles it ("Lady Perdita") decides, then
    # a clear census gender, which outweighs the pronouns ("Mrs. Cornelius Whitmore ... she" is near him)
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
    if len(words) == 1 and words[0] in votes.given:  # "Bertram" alone, his pronouns unclear
        return votes.styled.get(words[0]) or given_name_gender(words[0])
    return "unknown"


def _form_chapters(book: Book, occurrences: list[_Occurrence]) -> dict[_FormKey, Counter[int]]:
    """For each form, how often each chapter (or synthetic section) of the book uses it."""
    chapters: dict[_FormKey, Counter[int]] = defaultdict(Counter)
    for o in occurrences:
        chapter = book.chapter_at(o.start)
        chapters[_form(o)][chapter.id if chapter is not None else -1] += 1
    return chapters


#: what may stand between two names of one person: "Miss Quarrie, now Mrs Jukes", "Greta Albrecht,
#: now Frau Oberlin", "Mrs. Grey, née Miss Dunn", "Tom, whose name was Thomas"
_LINK_GAP = re.compile(
    r"[ \t]*[,(]?\s*(?:now|formerly|n[ée]e|afterwards|whose\s+(?:real\s+|maiden\s+)?name\s+(?:was|is)"
    r"|otherwise\s+called|known\s+as|alias)\s+"
)


_PAREN_OPEN = re.compile(r"[ \t]*\(\s*")


_PAREN_CLOSE = re.compile(r"\s*\)")


#: "Dorrance's", or "Dorrance s" where a text lost its apostrophes
_POSSESSIVE_NEXT = re.compile(r"(?:['’]| )s\b")


_APPOSITION_GAP = re.compile(r"[ \t]*,\s*")


_LIST_NEXT = re.compile(r"\s*(?:,\s*)?(?:and|or|nor)\b|\s*,\s*[A-Z]")


def _textual_links(
    text: str, occurrences: list[_Occurrence], dialogue: Regions
) -> Counter[tuple[_FormKey, _FormKey]]:
    """Pairs of forms the text itself says name one person, counted: "Miss Quarrie, now Mrs Jukes",
    "Mrs. Delmore (Aunt Prudence)",
    and, in narration, a family title set beside a formal one ("Aunt Drusilla, Mrs. Ashby, who ...")
    when they are not items of a list ("Aunt Drusilla, Mrs. Delmore, and Mr. Dorrance")."""
    links: Counter[tuple[_FormKey, _FormKey]] = Counter()
    for i in range(len(occurrences) - 1):
        a, b = occurrences[i], occurrences[i + 1]
        gap = text[a.end : b.start]
        if len(gap) > 60 or "\n\n" in gap:
            continue
        if _LINK_GAP.fullmatch(gap) or (
            _PAREN_OPEN.fullmatch(gap) and _PAREN_CLOSE.match(text, b.end) and not (a.titled or b.titled)
        ):  # "Miss Quarrie, now Mrs Jukes"; "Mrs. Delmore (Aunt Prudence)"
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
            and not _POSSESSIVE_NEXT.match(text, b.end)  # "Cousin Winifred, Mrs. Dorrance's cousin"
            and not text[max(0, a.start - 3) : a.start].strip().endswith(",")
        ):
            links[(_form(a), _form(b))] += 1
    return links


#: two names joined by "and" ("Tobias and Perdita", "Mr. Ashdown and Miss Quill")
_AND_GAP = re.compile(r"[ \t]*\n?[ \t]*and\s+")


def _coordinated(text: str, occurrences: list[_Occurrence]) -> Counter[tuple[_FormKey, _FormKey]]:
    """Pairs of forms the text joins with "and" ("Tobias and Perdita"), counted in both orders: couples
    are named so (`_joins._join_married_names`), as are siblings and friends."""
    pairs: Counter[tuple[_FormKey, _FormKey]] = Counter()
    for a, b in itertools.pairwise(occurrences):
        if b.start - a.end <= 8 and _AND_GAP.fullmatch(text, a.end, b.start):
            fa, fb = _form(a), _form(b)
            if fa != fb:
                pairs[(fa, fb)] += 1
                pairs[(fb, fa)] += 1
    return pairs


def _vocative_replies(
    book: Book, occurrences: list[_Occurrence], dialogue: Regions
) -> Counter[tuple[_FormKey, _FormKey]]:
    """Family titles to the formal names that answer them: a speech addressing "Aunt Hetty" followed,
    in the next paragraph, by one tagged "said Mrs. Pim". The one addressed usually answers, so when
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
    "Bertram, …" is answered in the next paragraph, or answers the previous one, by a turn the
    narration tags "said Mr. Marlowe" — or "said the Surgeon": the narrator's epithet for a man his
    companions call by name is answered to by that name. Counted per (vocative, tag) pair; a vocative
    answered at least twice by one tagged name, and twice as often as by any other, links the two
    (`_join_addressed` decides whether the names can be one person's)."""
    if not len(book.paragraphs) or not len(dialogue):
        return Counter()
    text = book.text
    paragraph = _paragraph_indices(book, occurrences)
    tagged = _tagged_paragraphs(occurrences, paragraph, dialogue, lambda o: True)
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
    """Paragraph -> the first name the narration tags a speech with there ("said Mr. Marlowe"), among
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
