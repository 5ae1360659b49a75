"""Alias clustering: the clusters being built (`_Clustering`), phases 1-5 (full names, first names,
titled words, bare words, "the X" titles) and the helpers every join consults (cannot-link conflicts,
honorific classes, families)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from fabula.characters._choice import DOMINANCE, clear_winner
from fabula.characters._discover._candidates import (
    _FIRST_NAME_TITLES,
    _KINSHIP,
    _MALE_TITLES,
    _NOBLE,
    _WIFE_TITLES,
    _FormKey,
)
from fabula.characters._discover._evidence import (
    _gender_of,
    _GenderEvidence,
)
from fabula.characters._lexicon import (
    HONORIFICS,
    NAME_PARTICLES,
    NICKNAMES,
    STANDALONE_TITLES,
    SURNAME_HONORIFICS,
    honorific_class,
)

#: two forms that share this share of the rarer one's sentences name two different people
CONFLICT_SHARE = 0.05


CONFLICT_MIN = 3  # sentences: a name beside another twice may be a slip of the segmenter


#: names the text joins with "and" this often are two people (one "Pompey and Dulcie" may be a slip)
COORDINATED_APART = 2


#: how many times more often the leading brother must be mentioned to be the "Mr. X"
BROTHERS_DOMINANCE = 4.0


WIFE_DOMINANCE = 5.0  # ... and the leading woman never styled "Miss" to be the "Mrs. X"


BROTHER_NAMED = 10  # bare given-name mentions that make a man "known by his given name"


#: the text names "Mr. and Mrs. Vance" or "old Mr. Vance" this often: that "Mr. Vance" is of the elder
#: generation (one may be a slip)
ELDER_MIN = 2


#: a pet name seen once or twice may be anyone's ("his daughter Polly"): it needs this many uses to
#: join a formal name by the nickname list alone
MIN_NICKNAME_USES = 3


#: ... and this share of its uses in chapters that also name the formal name's bearer
NEAR_SHARE = 0.5


MIN_SURNAME_USES = 3  # a bare surname seen fewer times is left unresolved where a family shares it


#: "Fräulein" alone is the one styled so this many times as often as any other: in effect, only
#: the one person the text styles so (a lead of 3 or 10 gave one frozen novel a merge; leave-one-novel-out
#: over 3, 10, 30 and this keeps this for all 21 novels)
ADDRESS_HOLDER_LEAD = 1e9


TITLE_HOLDER_LEAD = 3.0  # "the Admiral" is Admiral Strand when he bears the title 3x as often as any other


#: a word used with a rank this often ("Colonel Kingsley") is a surname before a first name
MIN_RANK_USES = 3


#: "Mr. John Harlow" used this often is a habit that tells him from "Mr. Harlow"
MIN_HABIT_USES = 3


#: ... when "Mr. Harlow" is named this many times as often as his brother's personal names
TITLE_HABIT_LEAD = 3.0


#: ... or, for "Mr. Tressel" beside "Mr. George Tressel", unless the full name is this much more usual
FULL_NAME_LEAD = 2.0


#: the narrator names one of several in full ("Amos Quarrie") or styles one "Miss Posy Lumb" at
#: least this often, and this many times as often as any other, to make them the surname's owner
STYLED_MIN, STYLED_LEAD = 3, 3.0


#: "Miss Lumb" with two sisters about is the one named in the chapters that use it: at least this
#: many of its uses fall in chapters naming her and not her sister, and `STYLED_LEAD` times as many
#: as for the sister
SCENE_MIN = 3


#: abbreviated forms of address and the words they stand for ("Mlle. Vasari" is the mademoiselle Vasari)
_FULL_ADDRESS = {"mlle": "mademoiselle", "mme": "madame", "m": "monsieur"}


def _address(word: str) -> bool:
    """Whether the lowercase ``word`` is a form of address ("monsieur", "signora"), not a rank or a
    family title (`title_holder` treats ranks; "Aunt" is a kinship word)."""
    return word in HONORIFICS and word not in _KINSHIP and word not in STANDALONE_TITLES


@dataclass(slots=True)
class _Cluster:
    id: int
    forms: Counter[tuple[str | None, tuple[str, ...]]] = field(default_factory=Counter)
    gender: str = "unknown"
    first_names: set[str] = field(default_factory=set)
    last_names: set[str] = field(default_factory=set)
    honorifics: set[str] = field(default_factory=set)
    #: forms joined as a word before one of the cluster's names ("Marse Dick"): never its display name
    prefixed: set[tuple[str | None, tuple[str, ...]]] = field(default_factory=set)

    @property
    def size(self) -> int:
        return sum(self.forms.values())


def _compatible(a: str, b: str) -> bool:
    return a == "unknown" or b == "unknown" or a == b


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
    #: the forms in the order the phases take them: longest first, titled before bare, most used first
    order: list[_FormKey] = field(default_factory=list)
    links: Counter[tuple[_FormKey, _FormKey]] = field(default_factory=Counter)  # the text says one person
    addressed: Counter[tuple[_FormKey, _FormKey]] = field(
        default_factory=Counter
    )  # vocative -> tagged answer
    #: surname -> times the text marks its "Mr." as the elder generation ("Mr. and Mrs. <surname>",
    #: "old Mr. <surname>": `_evidence._elders`)
    elders: Counter[str] = field(default_factory=Counter)
    #: forms the text joins with "and" ("Tobias and Perdita": `_evidence._coordinated`)
    coordinated: Counter[tuple[_FormKey, _FormKey]] = field(default_factory=Counter)

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
            cluster.first_names.add(words[0])  # "Mr. van der Vorst" has no first name
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
        return _conflict(self.apart, self.counts, form, cluster) or self.joined_by_and(form, cluster)

    def sentence_conflict(self, form: _FormKey, cluster: _Cluster) -> bool:
        return _conflict(self.together, self.counts, form, cluster) or self.joined_by_and(form, cluster)

    def joined_by_and(self, form: _FormKey, cluster: _Cluster) -> bool:
        """Whether the text names ``form`` and a name of ``cluster`` together with "and" ("Pompey and
        Dulcie") `COORDINATED_APART` times: two people, even where a slip of the text ran the two into
        one full name ("Dulcie Pompey") that would make them parts of one name."""
        return sum(self.coordinated.get((form, other), 0) for other in cluster.forms) >= COORDINATED_APART

    def elder(self, form: _FormKey, cluster: _Cluster) -> bool:
        """Whether "Mr. Vance" is of the elder generation (the text names "Mr. and Mrs. Vance" or
        "old Mr. Vance" at least `ELDER_MIN` times) while ``cluster`` is a man of that surname the text
        calls by his bare given name (`BROTHER_NAMED` times): a son, not that "Mr. Vance". A married
        son is named with his wife ("Mr. and Mrs. Tobias Vance"), which does not count."""
        honorific, words = form
        if len(words) != 1 or honorific_class(honorific) != "plain" or cluster.gender == "female":
            return False
        if self.elders[words[0]] < ELDER_MIN or words[0] not in cluster.last_names:
            return False
        if any(
            c.gender == "female"
            and words[0] in c.last_names
            and "married" in {honorific_class(h) for h in c.honorifics}
            and _bare_given_uses(c) >= BROTHER_NAMED
            for c in self.clusters.values()
        ):
            return False  # "Mrs. Vance" goes by her given name too: the couple is the young generation
        return _bare_given_uses(cluster) >= BROTHER_NAMED

    def son(self, form: _FormKey, owner: int) -> int:
        """The cluster a "young Mr. Vance" names: the one man of that surname other than the owner of
        "Mr. Vance" whom the text calls by his bare given name (`_known_by_given_name`: young men
        are), else the owner."""
        sons = [
            c
            for c in self.clusters.values()
            if c.id != owner and form[1][-1] in c.last_names and _known_by_given_name(c)
        ]
        return sons[0].id if len(sons) == 1 else owner

    def near(self, form: _FormKey, cluster: _Cluster) -> bool:
        """Whether ``form`` is used where ``cluster``'s story is: at least `NEAR_SHARE` of its uses
        fall between the first and the last chapter naming the cluster (a "Bill" of the first
        chapters is not the "William" of the last ones; "Polly" among the chapters of "Anne" may be
        her). Without chapter information, near."""
        own = self.chapters.get(form)
        theirs = [chapter for other in cluster.forms for chapter in self.chapters.get(other, ())]
        if not own or not theirs:
            return True
        first, last = min(theirs), max(theirs)
        inside = sum(n for chapter, n in own.items() if first <= chapter <= last)
        return inside >= NEAR_SHARE * sum(own.values())

    def scene_owner(self, form: _FormKey, candidates: list[_Cluster]) -> _Cluster | None:
        """Of the people ``form`` may name ("Miss Lumb" beside the sisters "Philippa" and "Dora Lumb"),
        the one the chapters using it are about: its uses in chapters that name exactly one of the
        candidates (by another of their names), counted for that one; she needs `SCENE_MIN` such uses
        and `STYLED_LEAD` times as many as any other. Chapters naming none or several say nothing."""
        own = self.chapters.get(form)
        if not own or len(candidates) < 2:
            return None
        present: dict[int, set[int]] = {
            c.id: {ch for f in c.forms if f != form for ch in self.chapters.get(f, ())} for c in candidates
        }
        uses: Counter[int] = Counter()
        for chapter, n in own.items():
            named = [c.id for c in candidates if chapter in present[c.id]]
            if len(named) == 1:
                uses[named[0]] += n
        return clear_winner([(c, uses[c.id]) for c in candidates], at_least=SCENE_MIN, factor=STYLED_LEAD)

    def styled_younger(self, cluster: _Cluster) -> bool:
        """Whether the text anywhere styles ``cluster`` "Miss <given name>" ("Miss Philippa"), as a younger
        sister, whether or not that form has joined her yet."""
        return any(self.counts[("miss", (f,))] for f in cluster.first_names)

    def female_alone(self, word: str) -> _Cluster | None:
        """The one female full-named cluster with surname ``word`` that is never "Miss", if it is the
        only woman of that surname: "Mrs. Delacroix" is "Odile Delacroix" when no daughter shares it."""
        named = [
            c
            for c in self.clusters.values()
            if word in c.last_names and any(len(w) > 1 for (_, w) in c.forms)
        ]
        women = [c for c in named if c.gender == "female"]
        # the daughters are "Miss": "Mrs. Quarrie" is "Winnie Quarrie" beside "Miss Honey Quarrie";
        # of two women never "Miss", one far more often named ("Irene Volska", not a stray "Hang
        # Irene Volska")
        wives = [c for c in women if not {honorific_class(h) for h in c.honorifics} & {"unmarried"}]
        if wives:
            return _dominant(wives, WIFE_DOMINANCE)
        # ... and when they are all "Miss", the one untitled full name of unknown gender is the mother
        unknown = [c for c in named if c.gender == "unknown" and not c.honorifics]
        # ... unless a "Mr. Kemble" is about and no man of that surname has a full name: it may be his
        mister = any(HONORIFICS.get(h or "") == "male" and w == (word,) for (h, w) in self.counts)
        named_man = any(c.gender == "male" for c in named)
        return unknown[0] if len(unknown) == 1 and (named_man or not mister) else None

    def _bearers(self, bears: Callable[[str], bool]) -> list[tuple[_Cluster, int]]:
        """Each cluster with how often the text names it with an honorific that ``bears`` accepts."""
        return [
            (c, sum(n for (h, _), n in c.forms.items() if h not in (None, "the") and bears(h)))
            for c in self.clusters.values()
        ]

    def address_bearers(self, word: str) -> int:
        """How many clusters the text names with the form of address ``word`` ("Monsieur Lacoste")."""
        address = _FULL_ADDRESS.get(word.lower(), word.lower())
        return sum(1 for _, n in self._bearers(lambda h: _FULL_ADDRESS.get(h, h) == address) if n)

    def title_holder(self, form: _FormKey) -> _Cluster | None:
        """For a bare title ("the Admiral", "Colonel"), the one cluster that bears it ("Admiral Strand"),
        or the bearer named with it at least three times as often as any other (Strand 14, Ferris 4)."""
        words = form[1]
        word = words[0].lower() if len(words) == 1 else ""
        if word in STANDALONE_TITLES:
            title = honorific_class(word)

            def bears(h: str) -> bool:
                return honorific_class(h) == title

        elif _address(word):
            # a form of address alone ("Fräulein", "Mlle", "Signorina") is the one person the text
            # names with it: the same word, or its abbreviation ("Mlle. Vasari"), not its whole class
            # (a "Miss Vance" is no "Fräulein")
            address = _FULL_ADDRESS.get(word, word)

            def bears(h: str) -> bool:
                return _FULL_ADDRESS.get(h, h) == address

        else:
            return None
        uses = self._bearers(bears)
        # ... far more clearly for a form of address: "Monsieur" alone may be any of the men so styled
        lead = TITLE_HOLDER_LEAD if word in STANDALONE_TITLES else ADDRESS_HOLDER_LEAD
        holder = clear_winner(uses, at_least=1, factor=lead)
        return None if holder is None or self.conflict(form, holder) else holder

    def by_first_name(self, form: _FormKey, gender: str) -> _Cluster | None:
        """The full-name cluster this first name (or nickname) belongs to, if one dominates. With an
        honorific only clusters of its class compete, and for "Sir/Lady/Aunt + first name" those
        already holding that very honorific win ("Sir Roland" is "Sir Roland Thornbury", not Carstairs)."""
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


def _cluster_full_names(state: _Clustering) -> None:
    """Phase 1: full names (two or more words) make one cluster each, or join the longer name that
    contains them."""
    forms = state.order
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
                continue  # "John Ellery" is not "Mrs. John Ellery"; "Rosina Pettigrew" is "Mrs. Rosina Pettigrew"
            if any(_contains(other, words) for (_, other) in cluster.forms if len(other) >= len(words)):
                target = cluster
                break
        state.add_or_new(target, form, gender)


def _cluster_first_names(state: _Clustering) -> None:
    """Phase 2: a first name alone joins the full name it starts ("Nora" -> "Nora Fenwick")."""
    forms = state.order
    counts = state.counts
    for form in forms:
        honorific, words = form
        if form in state.assign or len(words) != 1 or honorific is not None:
            continue
        # "Kingsley" is Colonel Kingsley's surname before it is Mr. Kingsley Ashdown's first name
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


def _cluster_titled_words(state: _Clustering) -> None:
    """Phase 3: an honorific and one word ("Mr. Ashdown", "Lady Honoria", "Miss Penrose"), the most
    frequent first."""
    # "Mr." before "General" on a tie, so "General Ormsby" finds "Mr. Ormsby" already taken
    forms = sorted(state.order, key=lambda f: (-state.counts[f], honorific_class(f[0]) != "plain"))
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
    a clergyman, or the owner of a first name ("Miss Philippa")."""
    honorific, (word,) = form
    assert honorific is not None
    clusters = state.clusters
    surname = any(word in c.last_names for c in clusters.values())
    # "Lady Garside" is a wife, like "Mrs. Garside"; "Lady Honoria" is a first name
    married = honorific_class(honorific) == "married" or (honorific == "lady" and surname)
    candidates = [
        c
        for c in clusters.values()
        if _compatible(c.gender, gender)
        and _same_class(c, honorific)
        and word in c.last_names
        # "Mrs. Ellery" is the mother, not "Philippa Ellery": only join a cluster already married
        and (not married or c.honorifics & _WIFE_TITLES)
        and not state.elder(form, c)
    ]
    # "Mr. Marlowe" beside the brothers "Charles" and "Rupert Marlowe" is likelier their father than the
    # elder brother: two sons known by their given names need a much clearer winner
    plain = honorific_class(honorific) == "plain"
    factor = BROTHERS_DOMINANCE if _brothers(candidates) and plain else DOMINANCE
    # a candidate known to be of the form's gender beats those of unknown gender ("Comrade Lansing",
    # a man by his pronouns, is "Mr. Ambrose Lansing", not "Clarissa Lansing")
    confirmed = [c for c in candidates if gender != "unknown" and c.gender == gender]
    if len(confirmed) == 1 and honorific != "miss":
        candidates = confirmed
    # "Miss Penrose" with several Penrose sisters about: only a unique candidate is safe
    target = _dominant(candidates, factor) if honorific != "miss" or len(candidates) == 1 else None
    if target is None and honorific == "miss":
        target = (
            _styled_so(candidates, honorific, word)
            or _eldest_sister(candidates, word)
            # ... of the sisters the text never styles "Miss <given name>" (the younger ones are)
            or state.scene_owner(form, [c for c in candidates if not state.styled_younger(c)])
        )
    if target is None and honorific_class(honorific) == "married" and not candidates:
        target = state.female_alone(word)
        if target is not None and state.conflict(form, target):
            target = None
    if target is None and plain and not candidates:
        # a clergyman is "Mr. Pruett" as often as "the Rev. Ebenezer Pruett": the one of that surname
        clergy = _family(clusters, word)
        if len(clergy) == 1 and {honorific_class(h) for h in clergy[0].honorifics} == {"reverend"}:
            target = None if state.conflict(form, clergy[0]) else clergy[0]
    if target is None and not surname:
        target = state.by_first_name(form, gender)  # "Miss Philippa", "Mr. Barnaby", "Lady Honoria"
        if target is not None and not _same_class(target, honorific):
            target = None
    return target


def _known_apart_by_first_name(state: _Clustering, form: _FormKey, target: _Cluster) -> bool:
    """Whether ``target`` names its "Mr. X" with a first name to tell him from another "Mr. X":
    "Mr. John Harlow" beside "Mr. Harlow", "Mr. George Tressel" beside his father."""
    honorific, (word,) = form
    if honorific not in SURNAME_HONORIFICS or word not in target.last_names:
        return False
    counts, votes = state.counts, state.votes
    married = honorific_class(honorific) == "married"
    personal = sum(n for (h, w), n in target.forms.items() if len(w) > 1 or w[0] in target.first_names)
    first_named = [w for (h, w) in target.forms if h == honorific and len(w) > 1]
    own_first_name = married and all(_gender_of(None, w[:1], votes) == "female" for w in first_named)
    # ... and a first name used once or twice is no such habit ("Mr. John Harlow" in a list)
    habitual = sum(counts[(honorific, w)] for w in first_named) >= MIN_HABIT_USES
    # ... nor one the narrator gives a man with no family of his name about ("Mr. Jasper Bristow")
    kin = any(c is not target for c in _family(state.clusters, word))
    # the son's first name alone is common too: "Mr. Tressel" is the father of "George"
    # ... unless the full name is what the text calls him ("Lucius Lisle" twice as often as "Mr. Lisle")
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


def _cluster_bare_words(state: _Clustering) -> None:
    """Phase 4: one word alone: a bare title, a surname, a first name or nickname, or a new character."""
    forms = state.order
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
        if _address(word.lower()) and state.address_bearers(word) >= 2:
            continue  # "Monsieur" alone, with two men styled so: either of them, no one new
        gender = _gender_of(None, words, state.votes)
        by_last = _family(state.clusters, word)
        target = _surname_owner(state, form, by_last)
        if target is None and not by_last:
            target = state.by_first_name(form, gender)
        # "Tressel" with a father and a son about is ambiguous: no one's, and no one new; so is a
        # surname used once or twice in a family ("Penrose" may be Mr. or Mrs. Penrose)
        # (one used more than any of the family's named members is a character known by it: kept)
        if (
            len(by_last) >= 2
            and (target is None or counts[form] < MIN_SURNAME_USES)
            and counts[form] <= max(c.size for c in by_last)
        ):
            continue
        state.add_or_new(target, form, gender)


def _surname_owner(state: _Clustering, form: _FormKey, by_last: list[_Cluster]) -> _Cluster | None:
    """Whose a bare surname is: a man's ("Penrose" is Mr. Penrose) before a woman's."""
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
        # as often as the bare surname, owns it like the title ("Marlowe" is Mr. Marlowe, the father
        # of Charles and Rupert; two "Monsieur Morel"s do not claim six "Morel"s); else a clear
        # lead, or the one the narrator names in full ("Quarrie" is Amos Quarrie, the father,
        # not his son Abe, though Abe is named more)
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
        # a woman's only when she is the one woman of that surname ("Saint-Aubin" may be Lucienne or her
        # mother), and never a "Mrs." ("Pollard" is Mr., whom the text may not title)
        target = by_last[0]
    return target


def _cluster_the_titles(state: _Clustering) -> None:
    """Phase 5: "the Colonel", "the Lamplighter": a titled person alone, else one of a kind."""
    forms = state.order
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
        # "the Cat" is "the Marmalade Cat" when only one longer title ends in its word
        longer = [
            c
            for c in state.clusters.values()
            if any(h == "the" and len(w) > len(words) and w[-len(words) :] == words for (h, w) in c.forms)
        ]
        state.add_or_new(longer[0] if len(longer) == 1 else None, form, "unknown")


def _styled_miss(cluster: _Cluster, surname: str) -> bool:
    """Whether the text styles ``cluster`` "Miss <first name>" ("Miss Imogen (Penrose)"): a younger
    sister, not the "Miss Penrose" of that surname."""
    return any(h == "miss" and w[0] in cluster.first_names and w != (surname,) for (h, w) in cluster.forms)


def _absorb(
    clusters: dict[int, _Cluster], assign: dict[_FormKey, int], target: _Cluster, cluster: _Cluster
) -> None:
    """Move every form of ``cluster`` into ``target`` and forget ``cluster``."""
    target.forms.update(cluster.forms)
    target.honorifics |= cluster.honorifics
    target.first_names |= cluster.first_names
    target.last_names |= cluster.last_names
    target.prefixed |= cluster.prefixed
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
    # "Harlow" and "Mr. Harlow", "Anne" and "Anne Quince" in one sentence are one person
    # ... nor a bare "Pettigrew" and "Mrs. Rosina" when the cluster holds "Rosina Pettigrew": parts of one name
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
        and not c.honorifics & _NOBLE  # nobody calls Lady Honoria "Honey"
        and (formal & c.first_names or any((None, (f,)) in c.forms for f in formal))
    ]


def _same_class(cluster: _Cluster, honorific: str | None) -> bool:
    """Mr./Mrs./Miss/General/Captain forms of one surname are different people ("General Ormsby",
    "Captain Ormsby", "Mr. Ormsby"): forms with different honorific classes never join."""
    if honorific is None or honorific == "the" or honorific in _KINSHIP:
        return True  # "Aunt Aurelia" is "Aurelia Tench" whether she is Mrs. or Marchioness
    classes = {honorific_class(h) for h in cluster.honorifics if h not in _KINSHIP}
    return not classes or honorific_class(honorific) in classes


def _contains(longer: tuple[str, ...], shorter: tuple[str, ...]) -> bool:
    if len(shorter) > len(longer):
        return False
    n = len(shorter)
    if shorter[0] in NAME_PARTICLES:  # "van der Vorst" is the surname of "Bertram van der Vorst"
        return longer[-n:] == shorter
    # "Septimus Wrexham" is not "William Septimus Wrexham": a name of several words must keep the first one
    return any(longer[i : i + n] == shorter for i in range(len(longer) - n + 1)) and (
        longer[0] == shorter[0] or (n == 1 and longer[-1] == shorter[-1])
    )


def _most_full_named(candidates: list[_Cluster], surname: str) -> _Cluster | None:
    """The candidate named in full ("Amos Quarrie") at least three times, and three times as often
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
    return sum(_known_by_given_name(c) for c in candidates) >= 2


def _known_by_given_name(cluster: _Cluster) -> bool:
    """Whether ``cluster`` is a man the text calls by his bare given name `BROTHER_NAMED` times."""
    return cluster.gender == "male" and _bare_given_uses(cluster) >= BROTHER_NAMED


def _bare_given_uses(cluster: _Cluster) -> int:
    """How often the text calls ``cluster`` by a bare given name of his or hers."""
    return sum(cluster.forms[(None, (f,))] for f in cluster.first_names)


def _dominant(candidates: list[_Cluster], factor: float = DOMINANCE) -> _Cluster | None:
    """The only candidate, or one mentioned at least ``factor`` times as often as the next."""
    return clear_winner([(c, c.size) for c in candidates], factor=factor)


def _styled_so(candidates: list[_Cluster], honorific: str, surname: str) -> _Cluster | None:
    """Among several of one surname, the one the text itself styles "Miss Posy Lumb" at least three
    times, and three times as often as anyone else is styled so: "Miss Lumb" is her. Sisters whom
    the text styles alike ("Miss Imogen/Cressida Penrose") leave "Miss Penrose" open."""
    uses = [
        (c, sum(n for (h, w), n in c.forms.items() if h == honorific and len(w) > 1 and w[-1] == surname))
        for c in candidates
    ]
    return clear_winner(uses, at_least=STYLED_MIN, factor=STYLED_LEAD)


def _eldest_sister(candidates: list[_Cluster], surname: str) -> _Cluster | None:
    """Among sisters, "Miss Penrose" is the eldest, and the younger ones are the ones the text styles
    "Miss Imogen (Penrose)", "Miss Cressida": when all but one of the women of that surname are styled
    so, the one left is "Miss Penrose"."""
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
