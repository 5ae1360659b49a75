"""Memorisation probes of the quotation-attribution paper (Michel, Epure, Hennequin and Cerisara, NAACL
2025, Section 5 and Appendices B, D, E; the authors' released ``main_speaker_cloze.py``,
``main_name_cloze.py``, ``main_contamination.py``): does a model answer from reading the passage or from
having memorised the book or its annotations? ``fabula probe BOOK… --llm SPEC``.

* ``csg`` (Corrupted-Speaker-Guessing): a passage of 10 sentences before and after a quote, every named
  mention of the speaker replaced by a gender-matched name absent from the book (the paper's names: Henry
  or Joseph, Emma or Elizabeth; Stone, Walker or Smith; honorifics kept), with the book's title and author
  and the target quote (the quote's own words only, never the narration between its parts). Explicit
  quotes are a cloze: the speaker's name in the referring expression ("said [MASK]") is masked (the
  paper's Figure 3 prompt); other quotes get the Figure 5/6 prompt. A passage is used only when it still
  names the (renamed) speaker and no alias of the true speaker is left in it. 100 quotes per type
  (explicit, anaphoric, implicit; ``--samples``). The answer in ``<speaker>`` tags scores *memorisation*
  when it is exactly one of the true speaker's names, *reasoning* when it is exactly one of the renamed
  ones. ``csg_mem`` / ``csg_reason`` average the three types (the paper's CSG-M and CSG-R);
  ``csg_mem_cloze`` is the explicit (cloze) one (Table 5's CSG-M (Cloze)).
* ``name-cloze`` (Chang et al. 2023 as the paper runs it): a passage of 40-60 words naming exactly one
  character by a one-word name (no other capitalised word except at sentence starts), the name masked; the
  released prompt with its two examples; right when the ``<name>`` answer is exactly the name.
* ``min-k`` (annotation contamination, Appendix E): Min-K% Prob (Shi et al. 2024) of *verbalised
  annotation rows* of a PDNC folder's ``quotation_info.csv`` (Figure 4: ``column: value; …``), 20 % of
  the rows drawn at random, rows of 16-256 tokens; k = 10, 20, 30 (``min_k_10``…). Needs a backend with
  prompt log-probabilities.
* ``no-context`` (fabula's own, not in the paper): the quote and the title only, no passage.

A BOOK is a PDNC novel folder (gold quotes, speakers, types, referring expressions) or a novel file
(fabula's quotes, speakers, types; the mention an explicit quote was attributed by is masked). Per-book
scores are in the report's ``novels``; the summary prints them in Table 5's layout. `compare_probe` relates
a probe's per-book scores to a task's per-book accuracy (Spearman and Student's t-test between the top-5
and bottom-5 books: Table 2); `propensity_match` and `paired_ttest` are the matching and test of
Appendix E.
"""

from __future__ import annotations

import csv
import io
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from fabula.anonymize import draw_person_name, person_mapping
from fabula.errors import BackendError, ConfigError, InputError
from fabula.prompts import load_paper_prompt
from fabula.quotes import paper_alias_table
from fabula.tasks._evaluation import EvalReport
from fabula.tasks._harness import EvalItem, ItemOutcome, Task, TaskOption, task

if TYPE_CHECKING:
    from fabula.book import Book, Character
    from fabula.llm import LLM

PROBES = ("name-cloze", "csg", "no-context", "min-k")
QUOTE_TYPES = ("explicit", "anaphoric", "implicit")
CONTEXT_SENTENCES = 10  # Appendix B: "10 sentences before and after the target quote"
MIN_K_VALUES = (10, 20, 30)  # Appendix E: k = 10, 20, 30
MIN_K_SHARE = 0.2  # Section 5: "20% randomly sampled annotation instances per novel"
MIN_K_TOKENS = (16, 256)  # main_contamination.py keeps rows of more than 16 and fewer than 256 tokens
CLOZE_WORDS = (40, 60)  # name cloze passages (Chang et al. 2023: 40-60 tokens)
# Appendix B's replacement names (gender-matched first names, last names), used when absent from the book
PAPER_GIVEN = {"male": ("Henry", "Joseph"), "female": ("Emma", "Elizabeth")}
PAPER_SURNAMES = ("Stone", "Walker", "Smith")
# Table 5 of the paper: title and author of each PDNC novel (the prompt names both), by PDNC folder name
PDNC_TITLES: dict[str, tuple[str, str]] = {
    "ARoomWithAView": ("A Room With A View", "E. M. Forster"),
    "AlicesAdventuresInWonderland": ("Alice's Adventures in Wonderland", "Lewis Carroll"),
    "AnneOfGreenGables": ("Anne Of Green Gables", "Lucy M. Montgomery"),
    "DaisyMiller": ("Daisy Miller", "Henry James"),
    "Emma": ("Emma", "Jane Austen"),
    "HowardsEnd": ("Howards End", "Edward Morgan Forster"),
    "NightAndDay": ("Night and Day", "Virginia Woolf"),
    "NorthangerAbbey": ("Northanger Abbey", "Jane Austen"),
    "Persuasion": ("Persuasion", "Jane Austen"),
    "PrideAndPrejudice": ("Pride and Prejudice", "Jane Austen"),
    "SenseAndSensibility": ("Sense and Sensibility", "Jane Austen"),
    "TheAgeOfInnocence": ("The Age of Innocence", "Edith Wharton"),
    "TheAwakening": ("The Awakening", "Kate Chopin"),
    "TheGambler": ("The Gambler", "F. M. Dostoevsky"),
    "TheInvisibleMan": ("The Invisible Man", "Herbert George Wells"),
    "TheManWhoWasThursday": ("The Man Who Was Thursday", "Gilbert K. Chesterton"),
    "TheMysteriousAffairAtStyles": ("The Mysterious Affair At Styles", "Agatha Christie"),
    "ThePictureOfDorianGray": ("The Picture Of Dorian Gray", "Oscar Wilde"),
    "TheSignOfTheFour": ("The Sign of the Four", "Arthur Conan Doyle"),
    "TheSportOfTheGods": ("The Sport of the Gods", "Paul Laurence Dunbar"),
    "TheSunAlsoRises": ("The Sun Also Rises", "Ernest Hemingway"),
}
_WORD = re.compile(r"[A-Z][a-z]+(?:['-][A-Za-z]+)?")
_SENTENCE_START = re.compile(r"(?:^|[.!?][\"'”’)]*\s+|[\"“‘(]\s*)$")


@dataclass(frozen=True, slots=True)
class ProbeQuote:
    """A quote to probe with: its parts (inside the marks), type, speaker, the span of the name that
    introduces it (explicit quotes: the referring expression's name, masked in the cloze) and whether the
    speaker is a minor character."""

    spans: tuple[tuple[int, int], ...]
    type: str
    speaker: Character
    mention: tuple[int, int] | None = None
    minor: bool = False

    @property
    def start(self) -> int:
        return self.spans[0][0]

    @property
    def end(self) -> int:
        return self.spans[-1][1]


@dataclass(slots=True)
class ProbeBook:
    name: str
    book: Book
    quotes: list[ProbeQuote]
    title: str
    author: str
    annotations: Path | None = None  # a PDNC quotation_info.csv (Min-K% on its verbalised rows)


def load_probe_book(path: Path) -> ProbeBook:
    """A PDNC folder (gold quotes) or a novel file (fabula's quotes, speakers and types)."""
    if path.is_dir():
        from fabula.datasets import is_pseudo_speaker, load_pdnc_novel

        novel = load_pdnc_novel(path)
        by_id = {c.id: c for c in novel.characters}
        quotes = []
        for q in novel.quotes:
            speaker = by_id.get(q.speaker_id or "")
            if speaker is None or is_pseudo_speaker(speaker.name):
                continue
            spans = tuple((s.start, s.end) for s in q.spans)
            mention = None
            if q.type == "explicit":
                mention = referring_name(novel.book.text, spans, q.referring_expression, speaker)
            quotes.append(ProbeQuote(spans, q.type, speaker, mention, speaker.category == "minor"))
        title, author = PDNC_TITLES.get(
            novel.name, (novel.book.meta.title or novel.name, "an unknown author")
        )
        annotations = path / "quotation_info.csv"
        return ProbeBook(novel.name, novel.book, quotes, title, author, annotations)
    if not path.is_file():
        raise InputError("no such book or PDNC folder", path)
    from fabula.annotation import annotate
    from fabula.book import load_book

    book = annotate(load_book(path), {"speakers"})
    by_id = {c.id: c for c in book.characters}
    quotes = [
        ProbeQuote(
            tuple((s.start, s.end) for s in q.spans),
            q.type or "implicit",
            by_id[q.speaker_id],
            (q.mention.start, q.mention.end) if q.mention and q.type == "explicit" else None,
        )
        for q in book.quotes
        if q.speaker_id in by_id
    ]
    title = book.meta.title or path.stem
    return ProbeBook(path.stem, book, quotes, title, book.meta.author or "an unknown author")


def referring_name(
    text: str, spans: tuple[tuple[int, int], ...], expression: str, speaker: Character
) -> tuple[int, int] | None:
    """Where the speaker's name in a quote's referring expression ("said Anne") is: the occurrence of the
    expression nearest the quote (within 300 characters), and in it the longest name of the speaker; None
    when the expression is not in the text (PDNC sometimes edits it) or names no alias."""
    expression = " ".join(expression.split())
    if not expression:
        return None
    start, end = max(0, spans[0][0] - 300), min(len(text), spans[-1][1] + 300)
    flexible = r"\s+".join(re.escape(w) for w in expression.split())
    found = [m.span() for m in re.finditer(flexible, text[start:end])]
    if not found:
        return None
    middle = (spans[0][0] + spans[-1][1]) / 2 - start
    a, b = min(found, key=lambda s: abs((s[0] + s[1]) / 2 - middle))
    piece = text[start + a : start + b]
    for name in sorted(speaker.all_names(), key=len, reverse=True):
        match = re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", piece)
        if match:
            return start + a + match.start(), start + a + match.end()
    return None


# --- CSG ----------------------------------------------------------------------------------------------


def passage_around(book: Book, start: int, end: int, sentences: int = CONTEXT_SENTENCES) -> tuple[int, int]:
    """The span of ``sentences`` sentences before and after the ones covering [start, end)."""
    layer = book.sentences
    covering = layer.overlapping(start, end)
    if len(covering) == 0:
        return start, end
    first = max(0, covering.start - sentences)
    last = min(len(layer) - 1, covering.stop - 1 + sentences)
    return int(layer.starts[first]), int(layer.ends[last])


def replacement_names(book: Book, gender: str, rng: random.Random) -> tuple[str, str]:
    """A gender-matched first name and a last name, neither written in the book: the paper's (Henry or
    Joseph, Emma or Elizabeth; Stone, Walker or Smith) when one of each is free, else `fabula.anonymize`'s
    lists (a documented extension: the paper's authors chose by hand)."""
    words = _words_of(book.text)
    pool = PAPER_GIVEN["female" if gender == "female" else "male"]
    given = [n for n in pool if n not in words]
    surnames = [n for n in PAPER_SURNAMES if n not in words]
    if given and surnames:
        return rng.choice(given), rng.choice(surnames)
    drawn = draw_person_name(book.text, "female" if gender == "female" else "male", rng)
    if drawn is None:
        raise InputError("no replacement name is absent from this book", book.meta.title or "book")
    return drawn


@lru_cache(maxsize=4)
def _words_of(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[A-Za-z]+", text))


def speaker_names(character: Character) -> list[str]:
    """The names that count as the true speaker's: its names and aliases plus the honorific-stripped
    forms the authors' names list adds ("Sir Septimus Wrexham" -> "Septimus Wrexham"), longest first."""
    table = paper_alias_table([character])
    names = {character.name, *character.aliases, *table.name_to_id}
    return sorted((n for n in names if n.strip()), key=len, reverse=True)


def corrupt_speaker(passage: str, character: Character, given: str, surname: str) -> str:
    """``passage`` with every one of the character's given names and surnames replaced (honorifics
    kept): `fabula.anonymize`'s replacement, so possessives, plurals and ALL-CAPS forms go too."""
    return person_mapping(character, given, surname).apply(passage)


def contains_name(text: str, names: set[str] | list[str]) -> bool:
    """Whether any of ``names`` is written in ``text`` as whole words."""
    return any(re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text) for n in names if n.strip())


@dataclass(frozen=True, slots=True)
class CsgItem:
    """One CSG prompt's parts and its two answer sets."""

    type: str
    passage: str  # corrupted (and for explicit quotes masked)
    target: str  # the quote's own words, names replaced
    true_names: tuple[str, ...]
    replaced_names: tuple[str, ...]
    replacement: str


def build_csg(book: Book, quote: ProbeQuote, given: str, surname: str) -> CsgItem | None:
    """The CSG item for a quote, or None when the paper's conditions fail: an explicit quote whose
    speaker's name in the referring expression is not found (nothing to mask), a corrupted passage that
    names the speaker by no replaced name, or one where an alias of the true speaker is left."""
    start, end = passage_around(book, quote.start, quote.end)
    text = book.text[start:end]
    if quote.type == "explicit":
        if quote.mention is None or not start <= quote.mention[0] < quote.mention[1] <= end:
            return None
        a, b = quote.mention[0] - start, quote.mention[1] - start
        text = text[:a] + "[MASK]" + text[b:]
    mapping = person_mapping(quote.speaker, given, surname)
    corrupted = mapping.apply(text)
    true_names = speaker_names(quote.speaker)
    replaced = sorted({mapping.apply(n) for n in true_names} - set(true_names), key=len, reverse=True)
    if contains_name(corrupted, true_names) or not contains_name(corrupted, [given, surname]):
        return None
    target = mapping.apply(" ".join(book.text[s:e] for s, e in quote.spans))
    return CsgItem(quote.type, corrupted, target, tuple(true_names), tuple(replaced), f"{given} {surname}")


def csg_prompt(item: CsgItem, title: str, author: str) -> str:
    """The paper's CSG prompt (Figure 3 for explicit quotes, Figures 5-6 for others), filled."""
    name = "michel2025_csg_explicit.txt" if item.type == "explicit" else "michel2025_csg_other.txt"
    values = {
        "NOVEL": title,
        "AUTHOR": author,
        "CORRUPTED PASSAGE": item.passage,
        "TARGET QUOTE": item.target,
    }
    template = load_paper_prompt(f"probes/{name}")
    return re.sub(
        r"<INSERT (NOVEL|AUTHOR|CORRUPTED PASSAGE|TARGET QUOTE)>", lambda m: values[m.group(1)], template
    )


def parse_tagged(answer: str, tag: str) -> str | None:
    """The released parse_answer: the text in ``<tag>…`` (any case of the tag; brackets stripped), else
    after the first ``": "``; None when neither is there."""
    for form in (tag, tag.capitalize(), tag.upper()):
        found = re.findall(rf"<{form}>[\[]?([^<>\]]+)[\]]?[<>]", answer)
        if found:
            return str(found[0])
    found = re.findall(r": ([^<]+)[<>]?", answer)
    return str(found[0]) if found else None


def score_csg(prediction: str | None, item: CsgItem) -> tuple[float, float]:
    """(memorisation, reasoning) of one answer: exactly a true name, or exactly a replaced one."""
    if prediction is None:
        return 0.0, 0.0
    if prediction in item.true_names:
        return 1.0, 0.0
    return 0.0, float(prediction in item.replaced_names)


# --- name cloze ---------------------------------------------------------------------------------------


def cloze_passages(probe_book: ProbeBook, rng: random.Random, count: int) -> list[dict[str, str]]:
    """Passages of 40-60 words (whole sentences) naming exactly one character once by a one-word name,
    with no other capitalised word except at a sentence start, that name masked (Chang et al.'s
    selection, with the cast's names in place of a named-entity tagger)."""
    names: set[str] = set()
    for quote in probe_book.quotes:
        names |= {n for n in quote.speaker.all_names() if len(n.split()) == 1 and n[:1].isupper()}
    book = probe_book.book
    sentences = book.sentences.pairs()
    found: list[dict[str, str]] = []
    next_free = 0
    for i in range(len(sentences)):
        words = 0
        for j in range(i, len(sentences)):
            words += len(book.text[sentences[j][0] : sentences[j][1]].split())
            if words >= CLOZE_WORDS[0]:
                break
        if not CLOZE_WORDS[0] <= words <= CLOZE_WORDS[1]:
            continue
        text = " ".join(book.text[sentences[i][0] : sentences[j][1]].split())
        capitalised = [m for m in _WORD.finditer(text) if not _SENTENCE_START.search(text[: m.start()])]
        if len(capitalised) == 1 and capitalised[0].group() in names and i >= next_free:
            m = capitalised[0]
            found.append({"masked": text[: m.start()] + "[MASK]" + text[m.end() :], "name": m.group()})
            next_free = j + 1  # passages do not overlap
    return rng.sample(found, min(count, len(found)))


def name_cloze_prompt(passage: str) -> str:
    """The released name-cloze prompt with its two examples, filled."""
    return load_paper_prompt("probes/michel2025_name_cloze.txt").replace("<INSERT PASSAGE>", passage)


# --- Min-K% on annotations ----------------------------------------------------------------------------


def verbalize_rows(path: Path) -> list[str]:
    """Each row of a PDNC ``quotation_info.csv`` verbalised as the paper's Figure 4: ``column: value``
    joined by ``"; "`` (an empty cell reads ``nan``, as pandas gives it)."""
    try:
        rows = list(csv.DictReader(io.StringIO(path.read_text("utf-8-sig"), newline="")))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"cannot read annotations ({exc})", path) from exc
    return ["; ".join(f"{k}: {v if v != '' else 'nan'}" for k, v in row.items()) for row in rows]


def min_k_percent(logprobs: list[float], k_percent: float, sequence_tokens: int | None = None) -> float:
    """Min-K% Prob (Shi et al. 2024) as the released ``get_min_k_perc``: the mean of the k lowest token
    log-probabilities, k = int(k_percent % of the sequence's tokens) (``sequence_tokens``, the scored
    tokens plus the first, by default len(logprobs) + 1), at least one."""
    if not logprobs:
        raise ValueError("no token log-probabilities")
    total = len(logprobs) + 1 if sequence_tokens is None else sequence_tokens
    count = max(1, int(k_percent / 100 * total))
    lowest = sorted(logprobs)[:count]
    return sum(lowest) / len(lowest)


# --- statistics (Table 2, Appendix E) -------------------------------------------------------------------


def compare_probe(
    probe_scores: dict[str, float], task_scores: dict[str, float], top: int = 5
) -> dict[str, Any]:
    """Table 2: Spearman correlation of a probe's per-book scores with a task's, and Student's t-test of
    the task's scores between the ``top`` books with the highest probe score and the ``top`` lowest."""
    stats = _scipy_stats()
    books = sorted(set(probe_scores) & set(task_scores))
    if len(books) < 3:
        raise InputError(f"need at least 3 books scored by both, found {len(books)}")
    probe = [probe_scores[b] for b in books]
    scores = [task_scores[b] for b in books]
    rho, rho_p = stats.spearmanr(probe, scores)
    ranked = sorted(books, key=lambda b: probe_scores[b])
    n = min(top, len(books) // 2)
    high, low = ranked[-n:], ranked[:n]
    t, t_p = stats.ttest_ind([task_scores[b] for b in high], [task_scores[b] for b in low])
    return {
        "books": len(books),
        "spearman_rho": float(rho),
        "spearman_p": float(rho_p),
        "top_books": high,
        "bottom_books": low,
        "t_test": "Student (equal variances), two-sided",
        "t_statistic": float(t),
        "t_p": float(t_p),
    }


def propensity_match(covariates: dict[str, list[float]], treated: set[str]) -> dict[str, str]:
    """Appendix E's matching: a logistic regression of "is treated" (a PDNC-2 novel) on the covariates
    (per novel: CSG-M, name cloze, Min-K%, accuracy), then each treated novel paired with the untreated one
    of closest propensity score (with replacement). Returns treated -> matched novel."""
    import numpy as np

    names = sorted(covariates)
    if not treated or not set(names) - treated:
        raise InputError("matching needs treated and untreated novels")
    x = np.asarray([covariates[n] for n in names], dtype=float)
    x = (x - x.mean(axis=0)) / np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
    x = np.hstack([np.ones((len(names), 1)), x])
    y = np.asarray([n in treated for n in names], dtype=float)
    w = np.zeros(x.shape[1])
    for _ in range(100):  # Newton-Raphson with a small ridge (few novels separate perfectly)
        p = 1 / (1 + np.exp(-x @ w))
        gradient = x.T @ (y - p) - 1e-2 * w
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + 1e-2 * np.eye(len(w))
        w = w + np.linalg.solve(hessian, gradient)
    score = dict(zip(names, 1 / (1 + np.exp(-x @ w)), strict=True))
    controls = [n for n in names if n not in treated]
    return {t: min(controls, key=lambda c: (abs(score[c] - score[t]), c)) for t in sorted(treated)}


def paired_ttest(first: list[float], second: list[float]) -> dict[str, float]:
    """Appendix E's paired Student t-test (two-sided) between matched values."""
    stats = _scipy_stats()
    t, p = stats.ttest_rel(first, second)
    return {"t_statistic": float(t), "p": float(p), "pairs": len(first)}


def _scipy_stats() -> Any:
    try:
        from scipy import stats
    except ImportError as exc:
        raise ConfigError("probe statistics need scipy: pip install 'fabula[probes]'") from exc
    return stats


# --- the task ---------------------------------------------------------------------------------------


def _type_metrics() -> list[str]:
    return [f"csg_{kind}_{t}" for t in QUOTE_TYPES for kind in ("mem", "reason")]


@task("probe")
class MemorisationProbes(Task):
    description = (
        "Memorisation probes of Michel et al. 2025: name cloze, CSG, Min-K% on annotations (per book)."
    )
    metrics: ClassVar[list[str]] = [
        "name_cloze",
        "csg_mem",
        "csg_mem_cloze",
        "csg_reason",
        "no_context",
        *(f"min_k_{k}" for k in MIN_K_VALUES),
        *_type_metrics(),
    ]
    group_by: ClassVar[list[str]] = ["novel", "probe"]
    llm = "required"
    anonymize_refusal = (
        "the probes measure what a model remembers of the original book (csg already renames the speaker)"
    )
    options: ClassVar[list[TaskOption]] = [
        TaskOption("paths", Path, None, "Novel files or PDNC folders.", "BOOK", required=True, multiple=True),
        TaskOption("probes", str, ",".join(PROBES), f"Comma-separated: {', '.join(PROBES)}."),
        TaskOption(
            "samples", int, 100, "Items per probe (per quote type for csg and no-context; the paper: 100)."
        ),
        TaskOption("seed", int, 0, "Seed of the sampling and the replacement names."),
    ]

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        wanted = [p.strip() for p in str(self.options_given["probes"]).split(",") if p.strip()]
        unknown = [p for p in wanted if p not in PROBES]
        if unknown or not wanted:
            raise ConfigError(
                f"unknown probe(s) {', '.join(unknown)} (choose from {', '.join(PROBES)})", "--probes"
            )
        self.probes = wanted
        self._books: dict[str, ProbeBook] = {}

    def items(self) -> list[EvalItem]:
        items: list[EvalItem] = []
        for path in self.options_given["paths"]:
            probe_book = load_probe_book(Path(path))
            self._books[probe_book.name] = probe_book
            rng = random.Random(f"{self.options_given['seed']}:{probe_book.name}")
            for probe in self.probes:
                for index, payload in enumerate(self._sample(probe_book, probe, rng)):
                    groups = {"novel": probe_book.name, "probe": probe}
                    items.append(EvalItem(f"{probe_book.name}/{probe}/{index}", groups, payload))
        return items

    def _sample(self, probe_book: ProbeBook, probe: str, rng: random.Random) -> list[dict[str, Any]]:
        samples = self.options_given["samples"]
        book = probe_book.book
        if probe in ("csg", "no-context"):
            chosen: list[dict[str, Any]] = []
            for kind in QUOTE_TYPES:
                # the released code: quotes of non-minor speakers; a uniform sample of those whose
                # passage meets the conditions (shuffled, then the first ``samples`` that do)
                of_kind = [q for q in probe_book.quotes if q.type == kind and not q.minor]
                rng.shuffle(of_kind)
                taken = 0
                for quote in of_kind:
                    if taken >= samples:
                        break
                    given, surname = replacement_names(book, quote.speaker.gender, rng)
                    item = build_csg(book, quote, given, surname)
                    if item is None and probe == "csg":
                        continue
                    words = " ".join(book.text[s:e] for s, e in quote.spans)
                    chosen.append({"csg": item, "type": kind, "speaker": quote.speaker, "words": words})
                    taken += 1
            return chosen
        if probe == "name-cloze":
            return [{"sentence": s} for s in cloze_passages(probe_book, rng, samples)]
        if probe_book.annotations is None:
            return []  # Min-K% reads annotation rows: PDNC folders only
        rows = verbalize_rows(probe_book.annotations)
        picks = rng.sample(range(len(rows)), len(rows))  # filtered by length after tokenizing, then 20 %
        return [{"rows": [rows[i] for i in picks], "share": MIN_K_SHARE}]

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        if llm is None:
            raise ConfigError("the probes need a model: give --llm SPEC", "--llm")
        probe_book = self._books[item.groups["novel"]]
        probe = item.groups["probe"]
        payload = item.payload
        if probe == "min-k":
            return self._min_k(llm, payload["rows"], payload["share"])
        if probe == "name-cloze":
            return self._name_cloze(llm, payload["sentence"])
        if probe == "csg":
            return self._csg(llm, probe_book, payload["csg"])
        return self._no_context(llm, probe_book, payload)

    def _csg(self, llm: LLM, probe_book: ProbeBook, item: CsgItem) -> ItemOutcome:
        from fabula.llm import GenerateOptions

        prompt = csg_prompt(item, probe_book.title, probe_book.author)
        answer = llm.generate(prompt, GenerateOptions(max_tokens=50, temperature=0.0)).text
        prediction = parse_tagged(answer, "speaker")
        memorised, reasoned = score_csg(prediction, item)
        scores: dict[str, float | None] = {
            f"csg_mem_{item.type}": memorised,
            f"csg_reason_{item.type}": reasoned,
        }
        details = {
            "type": item.type,
            "speaker": item.true_names[0],
            "replacement": item.replacement,
            "gold": {"memorisation": list(item.true_names), "reasoning": list(item.replaced_names)},
            "prompt": prompt,
        }
        sample = {"prompt": prompt, "gold": details["gold"], "answer": prediction, **scores}
        return ItemOutcome(scores, prediction=prediction, details=details, samples=[sample])

    def _no_context(self, llm: LLM, probe_book: ProbeBook, payload: dict[str, Any]) -> ItemOutcome:
        from fabula.llm import GenerateOptions

        prompt = (
            f'In the novel "{probe_book.title}" by {probe_book.author}, who says: "{payload["words"]}"\n'
            "Answer with the speaker's name only."
        )
        answer = llm.generate(prompt, GenerateOptions(max_tokens=16, temperature=0.0)).text.strip()
        answer = answer.splitlines()[0].strip(" .\"'*") if answer else ""
        speaker: Character = payload["speaker"]
        right = answer in speaker.all_names()
        details = {"type": payload["type"], "gold": sorted(speaker.all_names()), "prompt": prompt}
        sample = {"prompt": prompt, "gold": details["gold"], "answer": answer, "no_context": float(right)}
        return ItemOutcome({"no_context": float(right)}, prediction=answer, details=details, samples=[sample])

    def _name_cloze(self, llm: LLM, sentence: dict[str, str]) -> ItemOutcome:
        from fabula.llm import GenerateOptions

        prompt = name_cloze_prompt(sentence["masked"])
        answer = llm.generate(prompt, GenerateOptions(max_tokens=50, temperature=0.0)).text
        prediction = parse_tagged(answer, "name")
        right = prediction == sentence["name"]
        sample = {
            "prompt": prompt,
            "gold": sentence["name"],
            "answer": prediction,
            "name_cloze": float(right),
        }
        details = {"gold": sentence["name"], "prompt": prompt}
        return ItemOutcome(
            {"name_cloze": float(right)}, prediction=prediction, details=details, samples=[sample]
        )

    def _min_k(self, llm: LLM, rows: list[str], share: float) -> ItemOutcome:
        kept = [r for r in rows if MIN_K_TOKENS[0] < llm.count_tokens(r) + 1 < MIN_K_TOKENS[1]]
        kept = kept[: int(len(kept) * share)]
        values: dict[int, list[float]] = {k: [] for k in MIN_K_VALUES}
        for row in kept:
            logprobs = llm.prompt_logprobs(row)
            if logprobs is None:
                raise BackendError(
                    "Min-K% needs prompt log-probabilities, which this backend does not give", llm.spec
                )
            if not logprobs:
                continue
            for k in MIN_K_VALUES:
                values[k].append(min_k_percent(logprobs, k))
        scores = {f"min_k_{k}": (sum(v) / len(v) if v else None) for k, v in values.items()}
        samples = [{"prompt": row, "gold": None} for row in kept]  # Min-K% scores each row; no answer
        return ItemOutcome(scores, details={"rows": len(kept)}, samples=samples)

    def finish(self, report: EvalReport) -> None:
        """CSG-M and CSG-R per novel: the mean over quote types of each type's accuracy (Appendix B)."""
        for scores in report.novels.values():
            for kind in ("mem", "reason"):
                per_type = [scores.get(f"csg_{kind}_{t}") for t in QUOTE_TYPES]
                present = [v for v in per_type if isinstance(v, int | float)]
                scores[f"csg_{kind}"] = sum(present) / len(present) if present else None
            scores["csg_mem_cloze"] = scores.get("csg_mem_explicit")

    def summary(self, report: EvalReport) -> list[str]:
        return table5_lines(report, {n: (b.title, b.author) for n, b in self._books.items()})


def table5_lines(report: EvalReport, titles: dict[str, tuple[str, str]]) -> list[str]:
    """Table 5 of the paper: Title, Author, Name-Cloze, CSG-M, CSG-M (Cloze), CSG-R per novel."""
    lines = ["Table 5 layout: Title | Author | Name-Cloze | CSG-M | CSG-M (Cloze) | CSG-R"]
    for name, scores in sorted(report.novels.items(), key=lambda kv: -(kv[1].get("csg_mem") or 0.0)):
        title, author = titles.get(name, (name, ""))
        cells = [_two(scores.get(k)) for k in ("name_cloze", "csg_mem", "csg_mem_cloze", "csg_reason")]
        lines.append(f"{title} | {author} | " + " | ".join(cells))
    return lines


def _two(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) else "-"
