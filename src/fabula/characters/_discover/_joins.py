"""Later joins between whole clusters: nicknames, orphaned one-word clusters, textual links,
addressed names answered by tagged names, and given-name variants. Each is vetoed by the
cannot-link evidence of `_clustering._conflict`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from fabula.characters._choice import clear_winner
from fabula.characters._discover._candidates import (
    _CIVIL_CLASSES,
    _FIRST_NAME_TITLES,
    _NOBLE,
    _WIFE_TITLES,
    _FormKey,
)
from fabula.characters._discover._clustering import (
    BROTHERS_DOMINANCE,
    MIN_NICKNAME_USES,
    _absorb,
    _brothers,
    _Cluster,
    _Clustering,
    _compatible,
    _dominant,
    _family,
    _family_title,
    _most_full_named,
    _nickname_targets,
    _same_class,
    _shared_sentences,
    _styled_miss,
)
from fabula.characters._lexicon import (
    HONORIFICS,
    NATIONAL_ADDRESS,
    NICKNAMES,
    RANKS,
    SURNAME_HONORIFICS,
    given_name_gender,
    honorific_class,
)


def _linked_clusters(
    clusters: dict[int, _Cluster], assign: dict[_FormKey, int], links: Counter[tuple[_FormKey, _FormKey]]
) -> Iterator[tuple[tuple[_FormKey, _FormKey], int, _Cluster, _Cluster]]:
    """The linked form pairs, most often linked first, with their two clusters as they stand when
    reached (joins along the way count): only pairs still in two gender-compatible clusters."""
    for pair, n in links.most_common():
        ca, cb = clusters.get(assign.get(pair[0], -1)), clusters.get(assign.get(pair[1], -1))
        if ca is not None and cb is not None and ca is not cb and _compatible(ca.gender, cb.gender):
            yield pair, n, ca, cb


def _join_addressed(state: _Clustering) -> None:
    """Join a name people address someone by to the name the narration tags their answers with
    ("Bertram" and "Mr. Marlowe", "Miss Ellery" and "Rosalind") when nothing in the two names disagrees:
    genders agree, neither has a first name or a surname the other lacks a match for, and a
    "Miss Penrose" never joins a sister the text styles "Miss Imogen" (she is not the eldest)."""
    clusters, assign, links = state.clusters, state.assign, state.addressed

    def shared(form: _FormKey, c: _Cluster) -> int:
        return _shared_sentences(state.apart, form, c)

    for (a, b), n, ca, cb in _linked_clusters(clusters, assign, links):
        if (ca.first_names and cb.first_names and not ca.first_names & cb.first_names) or (
            ca.last_names and cb.last_names and not ca.last_names & cb.last_names
        ):
            continue
        if _styled_sister(ca, cb, clusters) or _styled_sister(cb, ca, clusters):
            continue
        if _other_given_name(a, cb) or _other_given_name(b, ca):
            continue
        if any(_family_title(form) and _brothers(_family(clusters, form[1][0])) for form in (a, b)):
            continue  # "Mr. Quarrie" may be the father of "Abe" and "Amos"... or either of them
        if state.elder(a, cb) or state.elder(b, ca):
            continue  # "Mr. Vance" of "Mr. and Mrs. Vance" is not their son, whoever answers whom
        if not all(_same_class(cb, h) for h in ca.honorifics) or not all(
            _same_class(ca, h) for h in cb.honorifics
        ):
            continue  # "Mrs. Lorrimer" is not "Miss Viola Lorrimer", whoever answers whom
        small, large = sorted((ca, cb), key=lambda c: c.size)
        # a narrator varies the names of one person in one sentence ("Rosalind ... Miss Ellery"), so
        # shared sentences only keep them apart when they outnumber the replies
        if sum(shared(form, large) for form in small.forms) > n:
            continue
        _absorb(clusters, assign, large, small)


def _other_given_name(form: _FormKey, cluster: _Cluster) -> bool:
    """Whether a bare given name ("Anfisa") meets a cluster with another given name ("Vera")
    that is no variant of it (unlike "Bertie" and "Bertram", "Bea" and "Beatrice")."""
    honorific, words = form
    # a cluster known by a bare given name ("Alice") has that first name too
    firsts = cluster.first_names | {
        w[0] for (h, w) in cluster.forms if h is None and len(w) == 1 and given_name_gender(w[0]) != "unknown"
    }
    if honorific is not None or len(words) != 1 or not firsts or words[0] in firsts:
        return False
    return words[0] not in cluster.last_names and not any(_variant_names(words[0], f) for f in firsts)


def _styled_sister(miss: _Cluster, other: _Cluster, clusters: dict[int, _Cluster]) -> bool:
    """Whether ``miss`` is a bare "Miss Surname" and ``other`` is styled "Miss <first name>" while
    another woman of that surname, never only a wife, may be the elder sister the styling sets her
    apart from. With no such woman in the text, "Miss Imogen" is the only daughter's pet form (a
    servant's, a child's) and the "Miss Penrose" is hers."""
    bare = [w for (h, w) in miss.forms if h == "miss" and len(w) == 1 and w[0] not in other.first_names]
    return any(_styled_miss(other, w[0]) and _elder_sister_about(clusters, w[0], miss, other) for w in bare)


def _elder_sister_about(clusters: dict[int, _Cluster], surname: str, *besides: _Cluster) -> bool:
    """Whether a woman (or a person of unknown gender) of ``surname`` other than ``besides`` is in the
    text, one the text does not only call "Mrs."/"Lady" (a mother, a wife)."""
    return any(
        c not in besides
        and c.gender != "male"
        and surname in c.last_names
        and not (c.honorifics and {honorific_class(h) for h in c.honorifics} <= {"married"})
        for c in clusters.values()
    )


def _join_linked(state: _Clustering) -> None:
    """Join the clusters of two forms the text links ("Miss Quarrie, now Mrs Jukes"): the smaller into
    the larger, when their genders agree and the names do not share sentences as two people do."""
    clusters, assign, conflict, links = state.clusters, state.assign, state.sentence_conflict, state.links
    for _, _, ca, cb in _linked_clusters(clusters, assign, links):
        small, large = sorted((ca, cb), key=lambda c: c.size)
        if any(conflict(form, large) for form in small.forms):
            continue
        _absorb(clusters, assign, large, small)


def _join_orphans(state: _Clustering) -> None:
    """Small clusters of one word ("Miss Philippa", "Kessler", "Mr. Barty") made before the larger
    cluster that carries that word as its first or last name: join it when exactly one does."""
    clusters, assign, conflict = state.clusters, state.assign, state.conflict
    for cluster in sorted(clusters.values(), key=lambda c: c.size):
        words = {w for (_, w) in cluster.forms}
        if len(words) != 1 or len(next(iter(words))) != 1:
            continue
        ((word,),) = words
        honorifics = {h for (h, _) in cluster.forms if h not in (None, "the")}
        married = bool(honorifics & _WIFE_TITLES)
        # "Miss Philippa", "Mr. Barnaby" may be first names; "Colonel Kingsley" is a surname
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
            and not any(state.elder(form, c) for form in cluster.forms)
        ]
        # one candidate, or, for "Mr. Lanyon", one named far more often than the other men of the name
        # (Barnaby, once "Mr. Barnaby" has joined him, over his twin); of brothers known by their
        # given names, one with a much clearer lead, else the one the narrator names in full ("Mr.
        # Quarrie" is Amos Quarrie, named so thrice as often as Abe Quarrie: the head of the house)
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
            continue  # a bare surname is no wife's ("Pollard" is her husband, "Mrs. Pollard" is she)
        if target.size < cluster.size or any(conflict(form, target) for form in cluster.forms):
            continue
        # "Mr. Tressel" beside a habitual "Mr. George Tressel" is another man (his father)
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


def _join_nicknames(state: _Clustering) -> None:
    """Nicknames ("Nell") that became a cluster of their own before their formal name's cluster
    existed: join the one cluster of the formal name, when used near it and never beside it."""
    clusters, assign, conflict, near = state.clusters, state.assign, state.conflict, state.near
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
    one formal name ("Jo"/"Honey"), or a pet form made with a suffix ("Briggsy" of "Briggs")."""
    a, b = a.lower(), b.lower()
    if a == b:
        return False
    na, nb = set(NICKNAMES.get(a, ())), set(NICKNAMES.get(b, ()))
    if b in na or a in nb or na & nb:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= 4 and long in {short + "y", short + "ie", short + "sy", short + "ey"}


def _join_name_variants(state: _Clustering) -> None:
    """Clusters that differ only by a variant of the given name: "Jim Lorrimer" and "James Lorrimer", "Frank" (of
    "Frank Pitcairn") and "Francis Pitcairn", a lone "Jo" and "Honey Quarrie", "Nicholas" and "Nick
    Rennie", "Briggsy" and "Mr. Briggs". The smaller joins the one such cluster, if only one exists."""
    clusters, assign, conflict, near = state.clusters, state.assign, state.conflict, state.near
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
        # pronoun votes mislead here ("Jim" came out female); titles do not ("Mrs. Archie" is no Archibald)
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


#: the shortest word a spelling variant may be: shorter names differ by a letter and are two names
#: ("Joan"/"John", "Gray"/"Grey")
MIN_VARIANT_LENGTH = 6


#: the rarer spelling is a slip or a way of speaking only when the usual one is this many times as common
VARIANT_LEAD = 3.0


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one letter changed, added or dropped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _spelling_variant(rare: str, usual: str) -> bool:
    """Whether ``rare`` is another spelling of the name ``usual``: one letter apart ("Catharine" and
    "Catherine", a misprinted "Atheney"), or the same once a lisp's "th" is read as "s"; never a plural
    or possessive "-s" ("Williams" is no "William")."""
    a, b = rare.lower(), usual.lower()
    if min(len(a), len(b)) < MIN_VARIANT_LENGTH or a.rstrip("s") == b.rstrip("s"):
        return False
    return _one_edit(a, b) or (a != b and a.replace("th", "s") == b.replace("th", "s"))


def _variant_form(form: _FormKey, other: _FormKey) -> bool:
    """Whether ``form`` is ``other`` with one word spelt differently (`_spelling_variant`)."""
    (honorific, words), (other_honorific, other_words) = form, other
    if honorific != other_honorific or len(words) != len(other_words):
        return False
    differ = [(w, o) for w, o in zip(words, other_words, strict=True) if w != o]
    return len(differ) == 1 and _spelling_variant(*differ[0])


def _join_spelling_variants(state: _Clustering) -> None:
    """A cluster whose every form is another cluster's form with one word spelt differently ("Miss
    Catherine Alan" beside "Miss Catharine Alan", "Mithter Pennyfeather" beside "Mister
    Pennyfeather") joins that cluster when it is at least `VARIANT_LEAD` times as large, the genders
    agree and the two never share sentences as two people do."""
    clusters, assign, conflict = state.clusters, state.assign, state.conflict
    by_shape: dict[tuple[str | None, int], list[_FormKey]] = {}
    for form in assign:
        by_shape.setdefault((form[0], len(form[1])), []).append(form)
    for cluster in sorted(clusters.values(), key=lambda c: c.size):
        if cluster.id not in clusters:
            continue
        owners: set[int] = set()
        for form in cluster.forms:
            found = {
                assign[other]
                for other in by_shape.get((form[0], len(form[1])), ())
                if assign[other] != cluster.id and _variant_form(form, other)
            }
            if not found:
                owners = set()
                break
            owners |= found
        if len(owners) != 1:
            continue
        target = clusters.get(owners.pop())
        if (
            target is None
            or target.size < VARIANT_LEAD * cluster.size
            or not _compatible(cluster.gender, target.gender)
            or any(conflict(form, target) for form in cluster.forms)
        ):
            continue
        _absorb(clusters, assign, target, cluster)


#: a wife's given or maiden name is joined with her husband's names ("Tobias and Perdita") this often...
COUPLE_MIN = 2
#: ... and this many times as often as any other woman's
COUPLE_LEAD = 2.0


def _husband(state: _Clustering, wife: _Cluster) -> _Cluster | None:
    """The man whose name a "Mrs." cluster bears: the owner of "Tobias Vance" for "Mrs. Tobias
    Vance", else of "Mr. Vance" for "Mrs. Vance"; None when the names disagree."""
    clusters, assign = state.clusters, state.assign
    titles = [w for (h, w) in wife.forms if honorific_class(h) == "married"]
    # "Mrs. Tobias Vance" names her husband more surely than "Mrs. Vance" does
    found = {
        c.id
        for words in titles
        if len(words) > 1
        for c in clusters.values()
        if c.gender != "female" and words[0] in c.first_names and words[-1] in c.last_names
    } or {
        assign[("mr", words)]
        for words in titles
        if len(words) == 1 and ("mr", words) in assign and assign[("mr", words)] in clusters
    }
    return clusters[found.pop()] if len(found) == 1 else None


#: a "Mrs." cluster that names the husband ("Mrs. Tobias Vance") in this share of its uses is his
#: wife's for sure
HUSBAND_NAMED_SHARE = 0.5


#: the share of a bride's name uses that must fall in chapters before the first one naming the wife:
#: a maiden name gives way to the married one ("Miss Quill" before "Mrs. Ashdown"), while the
#: husband's mother is "Mrs. Ashdown" all along
MAIDEN_SHARE = 0.75


def _maiden_before(state: _Clustering, bride: _Cluster, wife: _Cluster) -> bool:
    """Whether `MAIDEN_SHARE` of ``bride``'s uses come in chapters before ``wife``'s first one."""
    wife_chapters = [ch for f in wife.forms for ch in state.chapters.get(f, ())]
    bride_chapters = Counter[int]()
    for f in bride.forms:
        bride_chapters.update(state.chapters.get(f, Counter()))
    if not wife_chapters or not bride_chapters:
        return False  # no chapters: no telling a maiden name from a mother-in-law
    first = min(wife_chapters)
    before = sum(n for ch, n in bride_chapters.items() if ch < first)
    return before >= MAIDEN_SHARE * sum(bride_chapters.values())


def _join_married_names(state: _Clustering) -> None:
    """A wife known as "Mrs. Vance" or "Mrs. Tobias Vance" joins the woman the text names with
    her husband ("Tobias and Perdita", "Mr. Ashdown and Miss Quill") `COUPLE_MIN` times and
    `COUPLE_LEAD` times as often as any other woman: her given or maiden name. Never a woman of the
    husband's own surname (a daughter, a sister), nor one sharing sentences or turns with the wife's
    names as two people do."""
    clusters, assign = state.clusters, state.assign
    for wife in sorted(clusters.values(), key=lambda c: -c.size):
        if wife.id not in clusters or wife.gender == "male":
            continue
        if not any(honorific_class(h) == "married" for (h, _) in wife.forms):
            continue
        own_first = {w[0] for (h, w) in wife.forms if len(w) > 1 and honorific_class(h) != "married"}
        if any(h is None and len(w) == 1 for (h, w) in wife.forms):
            continue  # she is known by a bare name already
        if own_first:  # "Perdita Vance": her given name with her husband's surname
            _join_wife_by_given_name(state, wife, own_first)
            continue
        husband = _husband(state, wife)
        if husband is None:
            continue
        named: Counter[int] = Counter()
        for (a, b), n in state.coordinated.items():
            if a in husband.forms and b in assign and assign[b] in clusters:
                named[assign[b]] += n
        women = [
            (clusters[cid], n)
            for cid, n in named.items()
            if cid not in (wife.id, husband.id)
            and _maybe_woman(clusters[cid])
            and not clusters[cid].last_names & husband.last_names
            and not any(honorific_class(h) == "married" for h in clusters[cid].honorifics)
        ]
        bride = clear_winner(women, at_least=COUPLE_MIN, factor=COUPLE_LEAD)
        if bride is None:
            continue
        # "Mrs. Tobias Vance" is Tobias Vance's wife, never his mother: her given name may be used
        # all along; a bare "Mrs. Vance" may be his mother, unless the bride's name gives way to it
        specific = sum(
            n for (h, w), n in wife.forms.items() if honorific_class(h) == "married" and len(w) > 1
        )
        if specific < HUSBAND_NAMED_SHARE * wife.size and not _maiden_before(state, bride, wife):
            continue
        if any(state.conflict(form, wife) for form in bride.forms):
            continue
        small, large = sorted((wife, bride), key=lambda c: c.size)
        _absorb(clusters, assign, large, small)


def _join_wife_by_given_name(state: _Clustering, wife: _Cluster, given: set[str]) -> None:
    """A "Mrs. Vance" cluster holding "Perdita Vance" (her given name before her married surname, as a
    wife signs a letter) joins the one woman known by that bare given name: her maiden self, when she
    bears no surname of the wife's, is styled no "Mrs." herself, and shares no sentences or turns with
    the wife's names as two people do."""
    clusters, assign = state.clusters, state.assign
    owners = {
        assign[(None, (name,))]
        for name in given
        if given_name_gender(name) != "male" and (None, (name,)) in assign
    }
    owners.discard(wife.id)
    if len(owners) != 1 or next(iter(owners)) not in clusters:
        return
    bride = clusters[next(iter(owners))]
    if (
        not _maybe_woman(bride)
        or bride.last_names & wife.last_names
        or any(honorific_class(h) == "married" for h in bride.honorifics)
        or any(state.conflict(form, wife) for form in bride.forms)
    ):
        return
    small, large = sorted((wife, bride), key=lambda c: c.size)
    _absorb(clusters, assign, large, small)


def _maybe_woman(cluster: _Cluster) -> bool:
    """Whether ``cluster`` may be a woman: not male, and no bare name of it a man's given name (a son
    named with his father: "Tobias and Amos")."""
    return cluster.gender != "male" and not any(
        h is None and len(w) == 1 and given_name_gender(w[0]) == "male" for (h, w) in cluster.forms
    )


#: a cluster named only "<word> <name>" joins the owner of the name when that owner is this many times
#: as large (the rare form is a way of speaking to or of that person, not a second person)
PREFIX_LEAD = 3.0


#: words that mark another generation or another person of the name ("old Jolyon", "Little Nell")
_GENERATION_WORDS = frozenset(
    {"old", "young", "little", "elder", "younger", "big", "junior", "senior", "late"}
)


def _short_form(word: str, cluster: _Cluster) -> bool:
    """Whether ``word`` is a short or pet form of one of ``cluster``'s first names ("Gwen" of "Gwendolen",
    "Jim" of "James")."""
    low = word.lower()
    return any(
        (len(low) >= 3 and first.lower().startswith(low) and first.lower() != low)
        or _variant_names(word, first)
        for first in cluster.first_names
    )


def _join_prefixed_names(state: _Clustering) -> None:
    """A cluster whose every form is one word before another cluster's given name or surname, the word
    naming no one ("Marse Dick", "Doc Lanyon", a dialect or lisped form of address; "Neither Tamsin", a
    common word the capitals run into) or being a short form of that person's given name ("Gwen
    Pellow" of "Gwendolen Pellow", with "Gwen" alone), joins that cluster when it is `PREFIX_LEAD` times
    as large, the genders agree and the names never share sentences as two people's do. A prefix that
    is a given name ("Anne Cox" beside "Miss Cox": a sister) or a generation word ("old Jolyon") joins
    nothing. Where a family shares the name, the word's other uses tell whom it addresses: the gender of
    the people it goes with elsewhere ("Marse Dick"), and of those the one the text names with that
    surname and a form of address of that gender ("Marse Tressel" is the "Mr. Tressel"). A word joined so
    to two or more people is a form of address: alone it is no cast entry."""
    clusters, assign = state.clusters, state.assign

    # the forms holding each word, once; a form's cluster is looked up as it stands (joins move forms)
    forms_with: dict[str, list[_FormKey]] = {}
    for form in assign:
        for word in set(form[1]):
            forms_with.setdefault(word, []).append(form)

    def owners(name: str, besides: _Cluster) -> list[_Cluster]:
        found = {assign[form] for form in forms_with.get(name, ())} - {besides.id}
        return [c for c in clusters.values() if c.id in found]

    def named_so(head: str, besides: _Cluster) -> bool:
        # whether the word is someone's name; heading names ("Marse Pellow" beside "Marse Dick"), or
        # standing alone as nothing else ("Marse!"), does not make it one
        found = {
            assign[form]
            for form in forms_with.get(head, ())
            if not (form[0] is None and len(form[1]) == 2 and form[1][0] == head)
        } - {besides.id}
        return any(
            not all(h is None and w[0] == head and len(w) <= 2 for (h, w) in clusters[cid].forms)
            for cid in found
            if cid in clusters
        )

    def targets_of(form: _FormKey, cluster: _Cluster, gender: str) -> list[_Cluster]:
        head, name = form[1]
        found = [c for c in owners(name, cluster) if _compatible(c.gender, cluster.gender)]
        if len(found) > 1:
            found = [c for c in found if _short_form(head, c)] or found
        if len(found) > 1 and gender != "unknown":
            # the one of the family addressed with an honorific of that gender and the surname alone
            found = [
                c
                for c in found
                if c.gender == gender
                and any(h and HONORIFICS.get(h) == gender and w == (name,) for (h, w) in c.forms)
            ]
        return found

    def eligible(form: _FormKey, cluster: _Cluster) -> bool:
        honorific, words = form
        if honorific is not None or len(words) != 2:
            return False
        head, name = words
        if head.lower() in _GENERATION_WORDS or head.lower() in HONORIFICS or named_so(head, cluster):
            return False  # another generation, a known honorific, or someone's name
        return given_name_gender(head) == "unknown" or any(
            _short_form(head, c) for c in owners(name, cluster)
        )

    # the gender of the people each prefix word goes with where the name is one person's
    head_genders: dict[str, Counter[str]] = {}
    for cluster in clusters.values():
        for form in cluster.forms:
            if eligible(form, cluster):
                found = targets_of(form, cluster, "unknown")
                if len(found) == 1 and found[0].gender != "unknown":
                    head_genders.setdefault(form[1][0], Counter())[found[0].gender] += 1
    addressed: dict[str, set[int]] = {}  # each prefix word -> the people it was joined to
    for cluster in sorted(clusters.values(), key=lambda c: c.size):
        if cluster.id not in clusters:
            continue
        named = [form for form in cluster.forms if len(form[1]) == 2]
        if not named or not all(eligible(form, cluster) for form in named):
            continue
        chosen: set[int] = set()
        for form in named:
            genders = head_genders.get(form[1][0], Counter())
            gender = genders.most_common(1)[0][0] if len(genders) == 1 else "unknown"
            found = targets_of(form, cluster, gender)
            chosen |= {c.id for c in found} if len(found) == 1 else {-1, -2}
        if len(chosen) != 1:
            continue
        target = clusters[chosen.pop()]
        short = {(None, (form[1][0],)) for form in named if _short_form(form[1][0], target)}
        if any(form not in named and form not in short for form in cluster.forms):
            continue  # the word alone ("Gwen") goes with the name only as a short form of the given name
        if (
            target.size < PREFIX_LEAD * cluster.size
            or any(state.conflict(form, target) for form in cluster.forms)
            or any(state.together.get((form, other), 0) for form in cluster.forms for other in target.forms)
        ):
            continue  # "Oswin, Tybalt, and Pellam Oswin": a rare form beside the name is another
        cluster.prefixed.update(named)
        _absorb(clusters, assign, target, cluster)
        for form in named:
            addressed.setdefault(form[1][0], set()).add(target.id)
    # a word that went so before the names of two or more people is a form of address: alone ("Marse!",
    # a lisped "Mithter") it names no one, as "Fräulein" alone does not where two are so styled
    addresses = {head for head, people in addressed.items() if len(people) >= 2}
    for cluster in list(clusters.values()):
        if all(h is None and len(w) == 1 and w[0] in addresses for (h, w) in cluster.forms):
            for form in cluster.forms:
                del assign[form]
            del clusters[cluster.id]


#: ranks a man is known by that a "Mr." of the same surname may be his plain form ("Colonel Vance" is
#: "Mr. Vance" to his old acquaintance), with their abbreviations; titles of nobility and royalty are not
#: among them ("Lord Vance" and "Mr. Vance" are often father and son)
_RANKS = RANKS | frozenset({"capt", "dr", "rev", "reverend"})


def _join_plain_to_rank(state: _Clustering) -> None:
    """A cluster of plain forms of address before one surname ("Mr. Vance", "Monsieur Vance") joins the
    one man of that surname the text knows by a rank ("Colonel Vance", `_RANKS`) when no other man
    bears the surname, he is `PREFIX_LEAD` times as often named, the "Mr. Vance" is not marked as the
    elder generation, and the names never share a sentence."""
    clusters, assign = state.clusters, state.assign
    for cluster in sorted(clusters.values(), key=lambda c: c.size):
        if cluster.id not in clusters:
            continue
        surnames = {w[-1] for (_, w) in cluster.forms}
        if len(surnames) != 1 or not all(
            h is not None and honorific_class(h) == "plain" and len(w) == 1 for (h, w) in cluster.forms
        ):
            continue
        (surname,) = surnames
        men = [
            c
            for c in clusters.values()
            if c is not cluster and surname in c.last_names and c.gender != "female"
        ]
        if len(men) != 1 or not men[0].honorifics & _RANKS:
            continue
        (man,) = men
        if (
            man.size < PREFIX_LEAD * cluster.size
            or not _compatible(man.gender, cluster.gender)
            or any(state.elder(form, man) or state.conflict(form, man) for form in cluster.forms)
            or any(state.together.get((form, other), 0) for form in cluster.forms for other in man.forms)
        ):
            continue
        _absorb(clusters, assign, man, cluster)


#: times the text must style the one man (or woman) so before a nationality noun is taken for them
NATIONAL_MIN = 3


def _join_national_epithets(state: _Clustering) -> None:
    """A cluster of a noun of nationality alone ("the Dutchman", "Spaniard") joins the one person of
    its gender the text styles with that nation's form of address ("Mynheer Vance", "Don Quill";
    `NATIONAL_ADDRESS`) `NATIONAL_MIN` times and `PREFIX_LEAD` times as often as anyone else, when the
    two names do not share sentences as two people do. In a novel of one nation the address is
    everyone's ("Mr." in an English novel) and no one leads, so nothing joins; among foreigners it
    singles out the one the narrator calls by his nationality."""
    clusters, assign = state.clusters, state.assign
    for cluster in sorted(clusters.values(), key=lambda c: c.size):
        if cluster.id not in clusters:
            continue
        nouns = {w[0].lower() for (_, w) in cluster.forms if len(w) == 1}
        if len(nouns) != 1 or any(len(w) != 1 for (_, w) in cluster.forms):
            continue
        addresses = NATIONAL_ADDRESS.get(next(iter(nouns)))
        if addresses is None:
            continue
        gender = cluster.gender if cluster.gender in addresses else next(iter(addresses), "")
        if len(addresses) > 1 and cluster.gender not in addresses:
            continue  # a noun for either gender, and the cluster of no known gender
        styled = addresses[gender]
        counts = [
            (c, sum(n for (h, _), n in c.forms.items() if h in styled))
            for c in clusters.values()
            if c is not cluster and _compatible(c.gender, gender)
        ]
        target = clear_winner([(c, n) for c, n in counts if n], at_least=NATIONAL_MIN, factor=PREFIX_LEAD)
        if target is None or any(state.conflict(form, target) for form in cluster.forms):
            continue
        _absorb(clusters, assign, target, cluster)
