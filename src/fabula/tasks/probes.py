"""Memorisation probes (Michel, Epure and Hennequin 2024, after Chang et al. 2023 and Shi et al. 2024): does a
model answer from reading the passage or from having memorised the book? ``fabula probe BOOK… --llm SPEC``.

* ``name-cloze``: a sentence with exactly one character name, the name masked; the model fills it in (exact
  match). High scores mean the model has seen the book.
* ``csg`` (corrupted-speaker guessing): a passage of ±10 sentences around a quote whose speaker's names are
  all replaced by a gender-matched given name and a surname found nowhere in the book (honorifics kept;
  the replacement code and name lists are `fabula.anonymize`'s); who says the quote?
  Naming the *true* speaker shows memory (``csg_true``), naming the replacement shows reading
  (``csg_replaced``). Quotes are sampled per type (explicit, anaphoric, implicit), ``--samples`` each.
* ``no-context``: the same quotes without the passage, only the title: who says it? (``no_context``).
* ``min-k``: Min-K% probability of book passages (mean log-probability of the k % least likely tokens;
  ``--k-percent``, 20 as in the paper), where the backend gives prompt log-probabilities (``min_k``).

A BOOK is a PDNC novel folder (gold quotes, speakers and types) or a novel file (fabula's own quotes,
speakers and types). Per-book scores come out in the report's ``novels``; `compare_probe` relates one probe
score to a task's per-book accuracy (Spearman correlation and Welch's t-test between the top-5 and bottom-5
books, scipy), as the paper does.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from fabula.anonymize import draw_person_name, name_words, person_mapping
from fabula.errors import BackendError, ConfigError, InputError
from fabula.tasks._harness import EvalItem, ItemOutcome, Task, TaskOption, task

if TYPE_CHECKING:
    from fabula.book import Book, Character
    from fabula.llm import LLM

PROBES = ("name-cloze", "csg", "no-context", "min-k")
QUOTE_TYPES = ("explicit", "anaphoric", "implicit")
CONTEXT_SENTENCES = 10  # the paper's passage: the quote's sentence and ten on each side
MIN_K_WORDS = 128  # words per Min-K% passage
_WORD = re.compile(r"[A-Z][a-z]+(?:['-][A-Za-z]+)?")


@dataclass(frozen=True, slots=True)
class ProbeQuote:
    """A quote to probe with: where it is, its type, and who (by names) says it."""

    start: int
    end: int
    type: str
    speaker: Character


@dataclass(slots=True)
class ProbeBook:
    name: str
    book: Book
    quotes: list[ProbeQuote]


def load_probe_book(path: Path) -> ProbeBook:
    """A PDNC folder (gold quotes) or a novel file (fabula's quotes, speakers and types)."""
    if path.is_dir():
        from fabula.datasets import is_pseudo_speaker, load_pdnc_novel

        novel = load_pdnc_novel(path)
        by_id = {c.id: c for c in novel.characters}
        quotes = [
            ProbeQuote(q.start, q.end, q.type, by_id[q.speaker_id])
            for q in novel.quotes
            if q.speaker_id in by_id and not is_pseudo_speaker(by_id[q.speaker_id].name)
        ]
        return ProbeBook(novel.name, novel.book, quotes)
    if not path.is_file():
        raise InputError("no such book or PDNC folder", path)
    from fabula.book import load_book
    from fabula.characters import find_characters
    from fabula.quotes import attribute_quotes, detect_quotes

    book = load_book(path)
    detect_quotes(book)
    find_characters(book)
    attribute_quotes(book)
    by_id = {c.id: c for c in book.characters}
    quotes = [
        ProbeQuote(q.start, q.end, q.type or "implicit", by_id[q.speaker_id])
        for q in book.quotes
        if q.speaker_id in by_id
    ]
    return ProbeBook(path.stem, book, quotes)


# --- building the probes ---------------------------------------------------------------------------


def passage_around(book: Book, start: int, end: int, sentences: int = CONTEXT_SENTENCES) -> tuple[int, int]:
    """The span of ``sentences`` sentences before and after the ones covering [start, end)."""
    layer = book.sentences
    covering = layer.overlapping(start, end)
    if len(covering) == 0:
        return start, end
    first = max(0, covering.start - sentences)
    last = min(len(layer) - 1, covering.stop - 1 + sentences)
    return int(layer.starts[first]), int(layer.ends[last])


def name_tokens(character: Character) -> tuple[set[str], set[str]]:
    """The given-name and surname words of a character's names (honorifics left out), as
    `fabula.anonymize` reads them."""
    words = name_words([character])
    given = {word for word, (role, _) in words.items() if role == "first"}
    return given, set(words) - given


def replacement_names(book: Book, gender: str, rng: random.Random) -> tuple[str, str]:
    """A given name of ``gender`` and a surname (`fabula.anonymize`'s lists), neither written anywhere
    in the book."""
    drawn = draw_person_name(book.text, "female" if gender == "female" else "male", rng)
    if drawn is None:
        raise InputError("no replacement name is absent from this book", book.meta.title or "book")
    return drawn


def corrupt_speaker(passage: str, character: Character, given: str, surname: str) -> str:
    """``passage`` with every one of the character's given names and surnames replaced (honorifics
    kept): `fabula.anonymize`'s replacement, so possessives, plurals and ALL-CAPS forms go too."""
    return person_mapping(character, given, surname).apply(passage)


def min_k_percent(logprobs: list[float], k_percent: float = 20.0) -> float:
    """Min-K% Prob (Shi et al. 2024): the mean of the ``k_percent`` % lowest token log-probabilities."""
    if not logprobs:
        raise ValueError("no token log-probabilities")
    count = max(1, int(len(logprobs) * k_percent / 100))
    lowest = sorted(logprobs)[:count]
    return sum(lowest) / len(lowest)


def _answer_name(raw: str) -> str:
    text = re.sub(r"</?name>", " ", raw)
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line.strip(" .\"'*")


def _names_in(answer: str) -> set[str]:
    return {w for w in _WORD.findall(answer)}


# --- the task ---------------------------------------------------------------------------------------


@task("probe")
class MemorisationProbes(Task):
    description = (
        "Memorisation probes: name cloze, corrupted-speaker guessing, no-context, Min-K% (per book)."
    )
    metrics: ClassVar[list[str]] = ["name_cloze", "csg_true", "csg_replaced", "no_context", "min_k"]
    group_by: ClassVar[list[str]] = ["novel", "probe"]
    llm = "required"
    anonymize_refusal = (
        "the probes measure what a model remembers of the original book (csg already renames the speaker)"
    )
    options: ClassVar[list[TaskOption]] = [
        TaskOption("paths", Path, None, "Novel files or PDNC folders.", "BOOK", required=True, multiple=True),
        TaskOption("probes", str, ",".join(PROBES), f"Comma-separated: {', '.join(PROBES)}."),
        TaskOption("samples", int, 100, "Items per probe (per quote type for csg and no-context)."),
        TaskOption("k_percent", float, 20.0, "Min-K%: the share of least likely tokens averaged."),
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
                of_kind = [q for q in probe_book.quotes if q.type == kind]
                for quote in rng.sample(of_kind, min(samples, len(of_kind))):
                    given, surname = replacement_names(book, quote.speaker.gender, rng)
                    chosen.append({"quote": quote, "type": kind, "given": given, "surname": surname})
            return chosen
        if probe == "name-cloze":
            return [{"sentence": s} for s in _cloze_sentences(probe_book, rng, samples)]
        starts = [s for s, _ in book.paragraphs.pairs()]
        picks = rng.sample(range(len(starts)), min(samples, len(starts)))
        return [{"start": starts[i]} for i in sorted(picks)]

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        if llm is None:
            raise ConfigError("the probes need a model: give --llm SPEC", "--llm")
        probe_book = self._books[item.groups["novel"]]
        probe = item.groups["probe"]
        payload = item.payload
        if probe == "min-k":
            return self._min_k(llm, probe_book.book, payload["start"])
        if probe == "name-cloze":
            return self._name_cloze(llm, payload["sentence"])
        return self._speaker(llm, probe_book, payload, with_passage=probe == "csg")

    def _speaker(
        self, llm: LLM, probe_book: ProbeBook, payload: dict[str, Any], *, with_passage: bool
    ) -> ItemOutcome:
        from fabula.llm import GenerateOptions

        quote: ProbeQuote = payload["quote"]
        book = probe_book.book
        words = book.text[quote.start : quote.end].strip()
        title = book.meta.title or probe_book.name
        if with_passage:
            start, end = passage_around(book, quote.start, quote.end)
            passage = corrupt_speaker(
                book.text[start:end], quote.speaker, payload["given"], payload["surname"]
            )
            prompt = (
                f"Read this passage.\n<<<\n{passage.strip()}\n>>>\n\n"
                f"Who says: {words}\nAnswer with the speaker's name only."
            )
        else:
            prompt = f'In the novel "{title}", who says: {words}\nAnswer with the speaker\'s name only.'
        answer = _answer_name(llm.generate(prompt, GenerateOptions(max_tokens=16, temperature=0.0)).text)
        named = _names_in(answer)
        given_names, surnames = name_tokens(quote.speaker)
        true_hit = bool(named & (given_names | surnames))
        replaced_hit = bool(named & {payload["given"], payload["surname"]})
        details = {"type": payload["type"], "speaker": quote.speaker.name}
        scores: dict[str, float | None]
        if with_passage:
            scores = {"csg_true": float(true_hit), "csg_replaced": float(replaced_hit)}
            details["replacement"] = f"{payload['given']} {payload['surname']}"
        else:
            scores = {"no_context": float(true_hit)}
        return ItemOutcome(scores, prediction=answer, details=details)

    def _name_cloze(self, llm: LLM, sentence: dict[str, Any]) -> ItemOutcome:
        from fabula.llm import GenerateOptions

        prompt = (
            "You have seen the following passage in your training data. What is the proper name that fills in "
            "the [MASK] token in it? This name is exactly one word long, and is a proper name (not a pronoun "
            "or any other word). You must make a guess, even if you are uncertain.\n\n"
            f"Input: {sentence['masked']}\nOutput: <name>"
        )
        answer = _answer_name(llm.generate(prompt, GenerateOptions(max_tokens=8, temperature=0.0)).text)
        first = answer.split()[0] if answer.split() else ""
        right = first.lower().strip(".,;:!?") == sentence["name"].lower()
        return ItemOutcome({"name_cloze": float(right)}, prediction=first, details={"name": sentence["name"]})

    def _min_k(self, llm: LLM, book: Book, start: int) -> ItemOutcome:
        words = book.text[start:].split()[:MIN_K_WORDS]
        values = llm.prompt_logprobs(" ".join(words))
        if values is None:
            raise BackendError(
                "Min-K% needs prompt log-probabilities, which this backend does not give", llm.spec
            )
        return ItemOutcome({"min_k": min_k_percent(values, self.options_given["k_percent"])})


def _cloze_sentences(probe_book: ProbeBook, rng: random.Random, count: int) -> list[dict[str, str]]:
    """Sentences naming exactly one character by a one-word name (and no other capitalised name
    mid-sentence), with that name masked."""
    names: set[str] = set()
    for quote in probe_book.quotes:
        given, surnames = name_tokens(quote.speaker)
        names |= given | surnames
    book = probe_book.book
    found: list[dict[str, str]] = []
    for start, end in book.sentences.pairs():
        text = " ".join(book.text[start:end].split())
        if not 40 <= len(text) <= 400:
            continue
        capitalised = _WORD.findall(text[1:])  # a sentence's first word is capitalised anyway
        hits = [w for w in capitalised if w in names]
        if len(hits) == 1 and len(capitalised) == 1:
            found.append(
                {"masked": re.sub(rf"\b{re.escape(hits[0])}\b", "[MASK]", text, count=1), "name": hits[0]}
            )
    return rng.sample(found, min(count, len(found)))


def compare_probe(
    probe_scores: dict[str, float], task_scores: dict[str, float], top: int = 5
) -> dict[str, Any]:
    """Spearman correlation of a probe's per-book scores with a task's, and Welch's t-test of the task's
    scores between the ``top`` books with the highest probe score and the ``top`` with the lowest."""
    try:
        from scipy import stats
    except ImportError as exc:
        raise ConfigError("probe statistics need scipy: pip install 'fabula[probes]'") from exc
    books = sorted(set(probe_scores) & set(task_scores))
    if len(books) < 3:
        raise InputError(f"need at least 3 books scored by both, found {len(books)}")
    probe = [probe_scores[b] for b in books]
    scores = [task_scores[b] for b in books]
    rho, rho_p = stats.spearmanr(probe, scores)
    ranked = sorted(books, key=lambda b: probe_scores[b])
    n = min(top, len(books) // 2)
    high, low = ranked[-n:], ranked[:n]
    t, t_p = stats.ttest_ind([task_scores[b] for b in high], [task_scores[b] for b in low], equal_var=False)
    return {
        "books": len(books),
        "spearman_rho": float(rho),
        "spearman_p": float(rho_p),
        "top_books": high,
        "bottom_books": low,
        "t_statistic": float(t),
        "t_p": float(t_p),
    }
