"""Character discovery without a list: rule-based name mentions, then alias clustering.

Hand-written rules rather than a model because the default path must run offline in seconds on a
CPU with nothing to download (BookNLP needs downloaded neural models and minutes per novel). A spaCy
NER pipeline, when the user names one, adds PERSON evidence (`_ner.py`); Chinese uses jieba (`_chinese.py`).

1. Candidates: runs of capitalised words, with an optional honorific ("Mr. Ashdown"), and "the X"
   titles ("the Lamplighter"). Leading non-names ("Poor Lavinia", "Oh Nora") are dropped.
2. A name is kept when it looks like a person: an honorific before it, a speech verb beside it
   ("said Nora"), or several mid-sentence capitalised uses while the lowercase word is rare; words
   in the stop-lists, place-like runs ("Box Tor") and words mostly after "in/at/from" are dropped.
3. Clustering, most specific forms first: full names make clusters; "Hon Surname" joins the
   gender-compatible full name with that surname (unless it is much more frequent than that full
   name, as "Mr. Harlow" is than "John Harlow"); a lone first name joins the full name it
   starts, a nickname ("Nell") its formal name, a lone surname the "Mr." cluster first ("Penrose" is
   Mr. Penrose) or no one when a family shares it ambiguously, "Lady/Sir + first name" its full name.
   "Mr. Penrose", "Mrs. Penrose" and "Jane Penrose" stay apart: different honorific classes never join.
4. Later joins: textual links ("Miss Quarrie, now Mrs Jukes"), vocatives answered by tagged names,
   given-name variants. Every join is vetoed by cannot-link evidence: names sharing sentences, or
   tagging the turns of one conversation; a pet name also needs to be used where its formal name's
   bearer is (between the first and last chapter naming them: "Bill" of the first chapters is not
   the "William" of the last). Generations: "Mr. and Mrs. Vance" or "old Mr. Vance" make "Mr. Vance"
   the elder, never the son the text calls by his given name; "young Mr. Vance" is that son.

The steps are one ordered table of passes (`PASSES`), each a function of the `Discovery` under way,
each switchable by name (`discover_characters(book, skip={...})`, `scripts/discovery_passes.py` prints
every pass's effect on the tuning novels). The stages live in their own modules: `_candidates`
(steps 1-2), `_evidence` (what the clustering reads off the book), `_clustering` (step 3), `_joins`
(step 4).

Genders come from honorifics, then a full name's given name (as the book styles it, else the US census
list in ``given_names.tsv``), then pronouns after the mentions.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from fabula.book import Book, Character, Mention
from fabula.characters._discover._candidates import (
    _THE_LOWER,
    _accept,
    _common_word_at_start,
    _family_plurals,
    _form,
    _headings,
    _name_modifiers,
    _Occurrence,
    _qualified_places,
    _tags_outside,
    _trim_common_tails,
    _verse,
    candidates_and_lowercase,
    spoken_stop_names,
    stop_name_occurrences,
)
from fabula.characters._discover._clustering import (
    _Cluster,
    _cluster_bare_words,
    _cluster_first_names,
    _cluster_full_names,
    _cluster_the_titles,
    _cluster_titled_words,
    _Clustering,
)
from fabula.characters._discover._evidence import (
    _MR,
    _address_replies,
    _coordinated,
    _elders,
    _form_chapters,
    _gender_evidence,
    _sentence_cooccurrence,
    _textual_links,
    _turn_takers,
    _vocative_replies,
    _younger_marks,
)
from fabula.characters._discover._joins import (
    _join_addressed,
    _join_linked,
    _join_married_names,
    _join_name_variants,
    _join_national_epithets,
    _join_nicknames,
    _join_orphans,
    _join_plain_to_rank,
    _join_prefixed_names,
    _join_spelling_variants,
)
from fabula.characters._lexicon import GENERIC_PEOPLE, RELATIVES, SPEECH_VERBS
from fabula.characters._pronouns import PronounMatch
from fabula.characters._speech_verbs import learned_speech_verbs
from fabula.characters._text import Regions, dialogue_regions, is_vocative

MIN_MENTIONS = 2  # a name seen once is not a character (unless NER or an honorific vouches for it)
#: mention confidences: a full or titled name is rarely someone else's; a bare word more often is
FULL_NAME_CONFIDENCE = 0.9
BARE_NAME_CONFIDENCE = 0.75


@dataclass(slots=True)
class Discovery:
    """One book's discovery under way: what every pass reads and changes."""

    book: Book
    dialogue: Regions
    occurrences: list[_Occurrence]  # the name candidates still standing
    ner_model: str | None = None
    #: lowercase uses of each word in the body: a word mostly written so is a common word
    lowercase: Counter[str] = field(default_factory=Counter)
    #: capitalised mid-sentence uses of each word, as the candidates stood before the person test
    mid_caps: Counter[str] | None = None
    state: _Clustering | None = None  # the clusters, from the "evidence" pass on
    #: where a "Mr." marked as the younger generation starts -> the marked name's span ("young Mr.
    #: Vance", `_younger_marks`)
    younger: dict[int, tuple[int, int]] = field(default_factory=dict)
    #: the body's pronouns (`fabula.characters._pronouns.pronoun_matches`), where the candidates' scan made
    #: them (`candidates_and_lowercase`); None otherwise
    pronouns: list[PronounMatch] | None = None

    @property
    def clustering(self) -> _Clustering:
        """The clustering state; the "evidence" pass makes it."""
        if self.state is None:
            raise RuntimeError("discovery passes ran out of order: no clustering before the evidence pass")
        return self.state


@dataclass(frozen=True, slots=True)
class Pass:
    """One step of discovery: ``run`` changes the `Discovery` in place."""

    name: str
    stage: str  # "candidates", "evidence", "clustering" or "joins"
    run: Callable[[Discovery], None]
    doc: str
    required: bool = False  # later passes cannot do without it: never switched off


def _drop_verse_and_headings(d: Discovery) -> None:
    # names in songs and poems ("Beautiful Soup", "You are old, Father William") are not the story's
    # people, nor title-case runs in chapter headings ("Inspector Quill Gives a Demonstration"); a
    # heading's titled name ("Miss Tamsin Applegate Tells the Truth") is kept: it links the names
    verse, headings = _verse(d.book), _headings(d.book)
    d.occurrences = [
        o
        for o in d.occurrences
        if o.start not in verse and (o.start not in headings or o.honorific is not None)
    ]


def _trim_tails(d: Discovery) -> None:
    d.occurrences = _trim_common_tails(d.book.text, d.occurrences, d.lowercase)


def _keep_persons(d: Discovery) -> None:
    book = d.book
    text = book.text
    # "the cat" written in lowercase, against "the Cat": a title the book capitalises is a name
    lowercase_titles = Counter(_THE_LOWER.findall(text, book.body.start, book.body.end))  # lowercase already
    ner_votes: Counter[str] = Counter()
    ner_against: Counter[str] = Counter()
    if d.ner_model:
        from fabula.characters._ner import person_evidence

        ner_votes, ner_against = person_evidence(book, d.ner_model)
    accepted = _accept(
        d.occurrences, d.lowercase, ner_votes, ner_against, lowercase_titles, _qualified_places(text)
    )
    spoken = spoken_stop_names(accepted)
    if spoken:  # "said May" twice: the book's other "May"s inside a sentence are hers too
        known = {o.start for o in d.occurrences}
        more = stop_name_occurrences(text, book.body.start, book.body.end, spoken, known)
        d.occurrences = sorted([*d.occurrences, *_tags_outside(more, d.dialogue)], key=lambda o: o.start)
    d.mid_caps = _mid_caps(d.occurrences)
    d.occurrences = [o for o in d.occurrences if _form(o) in accepted]


def _mid_caps(occurrences: list[_Occurrence]) -> Counter[str]:
    return Counter(w for o in occurrences if not o.initial for w in o.words)


def _drop_common_words_at_start(d: Discovery) -> None:
    mid_caps = d.mid_caps if d.mid_caps is not None else _mid_caps(d.occurrences)
    d.occurrences = [o for o in d.occurrences if not _common_word_at_start(o, d.lowercase, mid_caps)]


def _drop_family_plurals(d: Discovery) -> None:
    plurals = _family_plurals(d.occurrences, d.book.text, d.lowercase)
    d.occurrences = [o for o in d.occurrences if not (len(o.words) == 1 and o.words[0] in plurals)]


def _drop_name_modifiers(d: Discovery) -> None:
    body = d.book.body
    modifiers = _name_modifiers(d.occurrences, d.book.text, body.start, body.end)
    if modifiers:
        d.occurrences = [o for o in d.occurrences if o.start not in modifiers]


#: a role the narration tags speeches with this often ("said the boatman") is a character (leave-one-novel-out
#: over 2, 3, 5 and off chooses 5 for 20 of the 21 novels)
ROLE_MIN = 5


#: "the boatman," closing a tag, or "the boatman said" (the word before or after is checked to be a
#: speech verb; the pattern opens with its literal, which the regex engine scans for quickly)
_ROLE = re.compile(r"the[ \t\n]+([a-z][a-z-]+)(?:(?=[ \t\n]*[,.;:!?\u2014-])|[ \t\n]+([a-z]+))")
_WORD_BEFORE = re.compile(r"([A-Za-z]+)[ \t\n]+$")


#: the marks a speech ends with
QUOTE_ENDS = frozenset('"\u201d\u2019')


def _role_speakers(d: Discovery) -> None:
    """Lowercase roles that speak ("said the boatman", "the ferryman cried"): the tagged uses in the
    narration become "the X" name occurrences when one role tags `ROLE_MIN` speeches (speech verbs: the
    lexicon's and the book's own, `learned_speech_verbs`), unless the book also capitalises it (then the
    titled form stands), it is anyone ("the man", "the girl": `GENERIC_PEOPLE`) or a relation ("the
    son": `RELATIVES`, someone's, often a named person's)."""
    text, body = d.book.text, d.book.body
    verbs = SPEECH_VERBS.union(learned_speech_verbs(text))  # and the book's own ("quavered the keeper")
    found: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for m in _ROLE.finditer(text, body.start, body.end):
        start = m.start()
        if start and text[start - 1].isalnum():
            continue  # "bathe", "clothe"
        after = m.group(2)
        if after is not None:
            # '"...," the boatman said': right after a speech
            tagged = after in verbs and text[max(0, start - 3) : start].rstrip(" ,\t\n")[-1:] in QUOTE_ENDS
        else:
            before = _WORD_BEFORE.search(text, max(0, start - 20), start)
            tagged = before is not None and before.group(1).lower() in verbs  # "said the boatman,"
        if tagged and start not in d.dialogue:
            found[m.group(1)].append((start, m.end(1)))
    capitalised = {o.words[0].lower() for o in d.occurrences if o.titled and len(o.words) == 1}
    added = [
        _Occurrence(start, end, None, (noun,), False, True, True, False, False, False, False, False)
        for noun, spans in found.items()
        if len(spans) >= ROLE_MIN
        and noun not in GENERIC_PEOPLE | RELATIVES | verbs
        and noun not in capitalised
        for start, end in spans
    ]
    if added:
        d.occurrences = sorted(d.occurrences + added, key=lambda o: o.start)


def _evidence(d: Discovery) -> None:
    counts = Counter(_form(o) for o in d.occurrences)
    together = _sentence_cooccurrence(d.book, d.occurrences, d.dialogue)
    d.state = _Clustering(
        counts=counts,
        votes=_gender_evidence(d.book.text, d.occurrences),
        together=together,
        apart=Counter(together),
        chapters=_form_chapters(d.book, d.occurrences),
        order=sorted(counts, key=lambda f: (-len(f[1]), -(f[0] is not None and f[0] != "the"), -counts[f])),
    )


def _elder_generation(d: Discovery) -> None:
    book = d.book
    mrs = [m.start() for m in _MR.finditer(book.text, book.body.start, book.body.end)]
    mrs = [q - book.body.start for q in mrs]  # offsets in the body, where both look
    d.clustering.elders.update(_elders(book, mrs))
    d.younger = _younger_marks(book, mrs)


def _turns_apart(d: Discovery) -> None:
    d.clustering.apart.update(_turn_takers(d.book, d.occurrences, d.dialogue))


def _stated_links(d: Discovery) -> None:
    d.clustering.links.update(_textual_links(d.book.text, d.occurrences, d.dialogue))


def _family_title_replies(d: Discovery) -> None:
    d.clustering.links.update(_vocative_replies(d.book, d.occurrences, d.dialogue))


def _couples_named(d: Discovery) -> None:
    d.clustering.coordinated.update(_coordinated(d.book.text, d.occurrences))


def _addressed_names(d: Discovery) -> None:
    d.clustering.addressed.update(_address_replies(d.book, d.occurrences, d.dialogue))


def _on_clusters(step: Callable[[_Clustering], None]) -> Callable[[Discovery], None]:
    """A clustering or join step as a pass."""

    def run(d: Discovery) -> None:
        step(d.clustering)

    return run


#: every step of discovery, in order; ``skip`` switches any but the required ones off
PASSES: tuple[Pass, ...] = (
    Pass(
        "verse_headings",
        "candidates",
        _drop_verse_and_headings,
        "drop names in verse and untitled runs in headings",
    ),
    Pass(
        "common_tails",
        "candidates",
        _trim_tails,
        "cut title-case heading words off names; drop leading common words",
    ),
    Pass("persons", "candidates", _keep_persons, "keep the forms that name people (`_accept`)"),
    Pass(
        "common_word_at_start",
        "candidates",
        _drop_common_words_at_start,
        "a common word opening a sentence is the word",
    ),
    Pass(
        "family_plurals",
        "candidates",
        _drop_family_plurals,
        "'the Tressels', 'the Miss Vances': a family, no one",
    ),
    Pass(
        "name_modifiers",
        "candidates",
        _drop_name_modifiers,
        "'the Tressel carriage', 'the Pellow family': a name before a noun is no one",
    ),
    Pass("role_speakers", "candidates", _role_speakers, "'said the boatman': a role that speaks"),
    Pass("evidence", "evidence", _evidence, "gender votes, shared sentences, chapters", required=True),
    Pass(
        "generations",
        "evidence",
        _elder_generation,
        "'Mr. and Mrs. Vance', 'old Mr. Vance': that 'Mr. Vance' is not the son; 'young Mr. Vance' is",
    ),
    Pass(
        "turn_takers", "evidence", _turns_apart, "names tagging the turns of one conversation are two people"
    ),
    Pass(
        "textual_links",
        "evidence",
        _stated_links,
        "'Miss Quarrie, now Mrs Jukes', 'Aunt Drusilla, Mrs. Ashby'",
    ),
    Pass(
        "vocative_replies",
        "evidence",
        _family_title_replies,
        "a family title answered by a tagged formal name",
    ),
    Pass("address_replies", "evidence", _addressed_names, "a vocative answered by a tagged name"),
    Pass("coordinated", "evidence", _couples_named, "names joined by 'and' ('Tobias and Perdita')"),
    Pass("full_names", "clustering", _on_clusters(_cluster_full_names), "full names make clusters"),
    Pass(
        "first_names",
        "clustering",
        _on_clusters(_cluster_first_names),
        "a first name joins the full name it starts",
    ),
    Pass(
        "titled_words",
        "clustering",
        _on_clusters(_cluster_titled_words),
        "'Mr. Ashdown', 'Lady Honoria', 'Miss Penrose'",
    ),
    Pass(
        "bare_words", "clustering", _on_clusters(_cluster_bare_words), "a bare title, surname or first name"
    ),
    Pass("the_titles", "clustering", _on_clusters(_cluster_the_titles), "'the Colonel', 'the Lamplighter'"),
    Pass(
        "join_nicknames", "joins", _on_clusters(_join_nicknames), "a nickname's cluster joins its formal name"
    ),
    Pass(
        "join_orphans",
        "joins",
        _on_clusters(_join_orphans),
        "one-word clusters join the one cluster bearing the word",
    ),
    Pass("join_linked", "joins", _on_clusters(_join_linked), "names the text links are one person"),
    Pass(
        "join_addressed",
        "joins",
        _on_clusters(_join_addressed),
        "an address joins the name tagging the answers",
    ),
    Pass(
        "join_name_variants", "joins", _on_clusters(_join_name_variants), "given-name variants of one surname"
    ),
    Pass(
        "join_married_names",
        "joins",
        _on_clusters(_join_married_names),
        "'Mrs. Vance' is the woman named with her husband ('Tobias and Perdita')",
    ),
    Pass(
        "join_spelling_variants",
        "joins",
        _on_clusters(_join_spelling_variants),
        "a name spelt one letter apart (or lisped) joins the usual spelling",
    ),
    Pass(
        "join_prefixed_names",
        "joins",
        _on_clusters(_join_prefixed_names),
        "'Marse Dick', 'Doc Lanyon', 'Gwen Pellow': a word before one person's name is that person",
    ),
    Pass(
        "join_plain_to_rank",
        "joins",
        _on_clusters(_join_plain_to_rank),
        "'Mr. Vance' is the one man of the surname known by a rank ('Colonel Vance')",
    ),
    Pass(
        "join_national_epithets",
        "joins",
        _on_clusters(_join_national_epithets),
        "'the Frenchman' is the one man styled 'Monsieur X' where no other man is",
    ),
    Pass(
        "join_orphans_again",
        "joins",
        _on_clusters(_join_orphans),
        "one-word clusters the joins above left one bearer of the word for",
    ),
)
PASS_NAMES: tuple[str, ...] = tuple(p.name for p in PASSES)


def run_passes(
    book: Book, *, ner_model: str | None = None, skip: Collection[str] = (), until: str | None = None
) -> Discovery:
    """Run every pass of `PASSES` not in ``skip`` on ``book`` (not Chinese: see `discover_characters`),
    stopping before the pass named ``until`` if given (to look at the discovery half-way)."""
    unknown = set(skip) - set(PASS_NAMES)
    if unknown:
        raise ValueError(
            f"unknown discovery passes: {', '.join(sorted(unknown))} (known: {', '.join(PASS_NAMES)})"
        )
    required = {p.name for p in PASSES if p.required} & set(skip)
    if required:
        raise ValueError(f"discovery passes that cannot be switched off: {', '.join(sorted(required))}")
    dialogue = dialogue_regions(book)
    candidates, lowercase, pronouns = candidates_and_lowercase(book, dialogue)
    d = Discovery(book, dialogue, candidates, ner_model=ner_model, lowercase=lowercase, pronouns=pronouns)
    for p in PASSES:
        if p.name == until:
            break
        if p.name in skip:
            continue
        p.run(d)
        if not d.occurrences:
            break  # nothing left to cluster: no characters
    return d


def discover_characters(
    book: Book, *, ner_model: str | None = None, skip: Collection[str] = ()
) -> tuple[list[Character], list[Mention]]:
    """Characters (ids ``D1``… in no order yet; `find_characters` renumbers by rank) and name mentions.
    ``skip``: names of `PASSES` to switch off (to measure what each does)."""
    found = discover_cast(book, ner_model=ner_model, skip=skip)
    return found.characters, found.mentions


#: occurrences with person evidence (`_person_evidence`) a discovered character needs to rank among the
#: people: below it, it ranks after every character that has them (`find_characters`). 2, chosen on the
#: tuning novels (1, 2, 3 tried; docs/benchmarks.md): one stray "he" or person verb beside a place is common
PERSON_EVIDENCE_MIN = 2
#: occurrences with person evidence a discovered entry needs to be in the cast at all: below it, it is set
#: aside (`find_characters` keeps it in ``book.set_aside``, out of every command's cast). 1: an entry the
#: book never once shows as a person (a place, a book, an exclamation; also a person only ever named in
#: passing, who neither speaks nor acts). Chosen leave-one-novel-out over 0-4 (docs/benchmarks.md, "Issue
#: 28, tenth session"): the most labelled non-persons set aside for the fewest gold-listed speakers lost
SET_ASIDE_EVIDENCE = 1


@dataclass(frozen=True, slots=True)
class DiscoveredCast:
    """What discovery finds: the characters, their name mentions, the ids of the characters the book
    gives too little person evidence for to rank among the people (`PERSON_EVIDENCE_MIN`), and of those,
    the ids of the ones with too little to be in the cast at all (`SET_ASIDE_EVIDENCE`); and the body's
    pronouns where discovery scanned them (`Discovery.pronouns`), for `find_characters` to use."""

    characters: list[Character]
    mentions: list[Mention]
    unevidenced: frozenset[str] = frozenset()
    set_aside: frozenset[str] = frozenset()
    pronouns: list[PronounMatch] | None = None


def discover_cast(book: Book, *, ner_model: str | None = None, skip: Collection[str] = ()) -> DiscoveredCast:
    """`discover_characters` with the ids of the characters that lack person evidence."""
    if book.meta.language == "zh":
        from fabula.characters._chinese import discover_chinese

        return DiscoveredCast(*discover_chinese(book))
    d = run_passes(book, ner_model=ner_model, skip=skip)
    if d.state is None:
        return DiscoveredCast([], [], pronouns=d.pronouns)
    clusters, form_cluster = d.state.clusters, d.state.assign
    mentions: list[Mention] = []
    for o in d.occurrences:
        cid = form_cluster.get(_form(o))
        if cid is None:
            continue
        start, end = o.start, o.end
        if o.start in d.younger:
            # "young Mr. Vance" is the son, whoever "Mr. Vance" is, and the marked name is his
            son = d.state.son(_form(o), cid)
            if son != cid:
                cid, (start, end) = son, d.younger[o.start]
        confidence = FULL_NAME_CONFIDENCE if o.honorific or len(o.words) > 1 else BARE_NAME_CONFIDENCE
        mentions.append(Mention(start, end, f"D{cid}", "title" if o.titled else "name", confidence))
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
    evidence = _person_evidence(d)
    unevidenced = frozenset(c.id for c in characters if evidence[c.id] < PERSON_EVIDENCE_MIN)
    set_aside = frozenset(c.id for c in characters if evidence[c.id] < SET_ASIDE_EVIDENCE)
    return DiscoveredCast(characters, mentions, unevidenced, set_aside, d.pronouns)


def _person_evidence(d: Discovery) -> Counter[str]:
    """Per character id (``D<cluster>``), its name occurrences that show a person (up to
    `PERSON_EVIDENCE_MIN`, enough to rank among the people, or `SET_ASIDE_EVIDENCE` if higher): an honorific, a speech tag, "he"/"she"
    after it, a person verb other than "was/is/had/has", or an address set off by a comma inside a
    speech ("…, Tamsin." / "Tamsin, come"; not a speech opening with the bare word and "!" or "?",
    which echoes a word: "Venice!"). A place, a book or a capitalised adjective is named, never shown
    so; a minor person named in passing may not be either."""
    text, dialogue, assign = d.book.text, d.dialogue, d.clustering.assign
    shown: Counter[int] = Counter()
    rest: list[tuple[int, _Occurrence]] = []  # occurrences with none of the flags: maybe an address
    for o in d.occurrences:
        cid = assign.get(("the" if o.titled else o.honorific, o.words))  # `_form`, inlined
        if cid is None:
            continue
        if o.speech or o.pronoun_after or (o.person_verb and not o.auxiliary) or o.honorific is not None:
            shown[cid] += 1  # (a titled occurrence's honorific is None: "the" is no honorific)
        else:
            rest.append((cid, o))
    enough = max(PERSON_EVIDENCE_MIN, SET_ASIDE_EVIDENCE)
    for cid, o in rest:  # the address test only where the flags fell short (most casts need none)
        if shown[cid] < enough and _addressed(text, o.start, o.end, dialogue):
            shown[cid] += 1
    counts: Counter[str] = Counter({f"D{cid}": n for cid, n in shown.items()})
    return counts


def _addressed(text: str, start: int, end: int, dialogue: Regions) -> bool:
    """Whether the name at ``[start, end)`` addresses someone (`is_vocative`) with a comma beside it."""
    region = dialogue.index(start)
    if region < 0 or not is_vocative(text, start, end, (dialogue.starts[region], dialogue.ends[region])):
        return False
    return text[end : end + 1] == "," or text[max(0, start - 3) : start].rstrip()[-1:] == ","


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
    # "Marse Dick" joined to Dick Tressel is how someone speaks to him, not his name
    forms = Counter({f: n for f, n in cluster.forms.items() if f not in cluster.prefixed}) or cluster.forms
    frequent = [f for f, n in forms.items() if n >= max(2, 0.1 * total)]
    if frequent:
        best = max(frequent, key=lambda f: (len(f[1]), f[0] not in (None, "the"), forms[f]))
        return render(best)
    return render(forms.most_common(1)[0][0])
