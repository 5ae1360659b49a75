"""Literary multiple-choice QA (LFED: Yu, Liu and Xiong, LREC-COLING 2024), and any MCQ set of the same shape
(∞Bench En.MC, NovelQA): ``fabula eval mcq --data FILE --llm SPEC``.

The protocol, as the paper runs it:
* prompts: a short or a long instruction, zero-shot or n-shot (n = 1-5 worked examples drawn from *other*
  novels, never the question's own), in Chinese for Chinese questions, ending with the answer cue;
* answer extraction as a filter chain (`fabula.prompts` filters ``option_letters`` → ``majority_letter``):
  one option letter → it; several → the most frequent; none → ask again with "answer directly" appended,
  at most three times, then the item is wrong. Every attempt is recorded in the item's log, and the report
  counts items answered at the first try, after a re-ask, or never;
* ``--method loglik``: each option scored by the log-probability of its letter after the prompt, where the
  backend returns prompt log-probabilities (no extraction needed);
* with a book (the JSONL's ``book`` field, or ``--book-dir`` holding ``NOVEL.txt``): BM25 passages for the
  question and its options are put in the prompt within ``--budget`` tokens;
* accuracy overall and per category (LFED's eight, `fabula.tasks._mcq_categories`), and per novel;
* ``--anonymize``: each book renamed (its discovered cast), the question, its options and the few-shot
  examples renamed by their own book's mapping, passages drawn from the renamed copy. It needs every
  question's book, in English: LFED (Chinese, no texts) is refused in one line.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from fabula.datasets import McqQuestion, load_mcq
from fabula.errors import BackendError, ConfigError, InputError
from fabula.prompts import (
    ANSWER_DIRECTLY,
    EXAMPLE_CUE,
    majority_letter,
    mcq_prompt,
    mcq_prompt_id,
    option_letters,
)
from fabula.tasks._evaluation import EvalReport
from fabula.tasks._harness import EvalItem, ItemOutcome, Task, TaskOption, task
from fabula.tasks._mcq_categories import categorize

if TYPE_CHECKING:
    from fabula.anonymize import AnonymizedBook
    from fabula.book import Book
    from fabula.llm import LLM
    from fabula.retrieval import Retriever

MAX_REASKS = 3  # the paper re-asks at most three times before counting the item wrong
ANSWER_TOKENS = 48  # room for "答案是B" or a one-line explanation; the letter comes first in practice
RETRY_TEMPERATURE = 0.7  # re-asks sample (with a seed per attempt), so they are not copies of one answer


@task("mcq")
class LiteraryMcq(Task):
    description = "Multiple-choice questions about novels (LFED protocol): accuracy overall and per category."
    metrics: ClassVar[list[str]] = ["accuracy"]
    counts: ClassVar[list[str]] = ["questions", "first_try", "retried", "failed"]
    group_by: ClassVar[list[str]] = ["category", "novel"]
    llm = "required"
    anonymize_refusal = None  # with every question's (English) book; `check` refuses the rest
    anonymize_note = "Needs every question's book, in English (so not LFED): title, question, options and passages renamed."
    options: ClassVar[list[TaskOption]] = [
        TaskOption("data", Path, required=True, metavar="FILE", help="LFED .csv or a .jsonl question file."),
        TaskOption("shots", int, 0, "Worked examples from other novels before the question (0-5)."),
        TaskOption("prompt", str, "short", "Instruction: short or long.", choices=("short", "long")),
        TaskOption(
            "method",
            str,
            "generate",
            "generate (answer extraction with re-asks) or loglik (option log-probabilities).",
            choices=("generate", "loglik"),
        ),
        TaskOption("book_dir", Path, None, "Folder of NOVEL.txt files: passages go in the prompt.", "DIR"),
        TaskOption("budget", int, 1500, "Tokens of book passages per question (with a book)."),
        TaskOption(
            "categories",
            str,
            "keyword",
            "How questions without a category get one: keyword rules or the model (llm, cached).",
            choices=("keyword", "llm"),
        ),
        TaskOption("seed", int, 0, "Seed for drawing the few-shot examples."),
    ]

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        if not 0 <= self.options_given["shots"] <= 5:
            raise ConfigError("--shots must be between 0 and 5", "--shots")
        self.data = load_mcq(self.options_given["data"])
        self._books: dict[Path, tuple[Book, Retriever]] = {}
        self._copies: dict[Path, AnonymizedBook] = {}
        self._books_lock = threading.Lock()
        self._llm_categories: dict[str, str] = {}

    @property
    def questions(self) -> list[McqQuestion]:
        """The questions this run asks: the first ``--limit`` (the harness's) or all."""
        return self.data.questions[: self.limit]

    def check(self, llm: LLM | None) -> None:
        """``--anonymize`` needs every question's book, in English: the names to replace are its
        characters' (LFED ships no novel texts, and its questions are Chinese)."""
        if self.anonymizer is None:
            return
        bookless = [q for q in self.questions if self._book_path(q) is None]
        if bookless:
            raise ConfigError(
                f"mcq --anonymize needs each question's book (a 'book' field or --book-dir: the names to "
                f"replace are its characters'); {len(bookless)} of {len(self.questions)} questions have none",
                "--anonymize",
            )
        chinese = [q for q in self.questions if q.language != "en"]
        if chinese:
            raise ConfigError(
                f"mcq --anonymize renames English name words; {len(chinese)} of {len(self.questions)} "
                "questions are not in English",
                "--anonymize",
            )

    @property
    def settings(self) -> dict[str, Any]:
        out = super().settings
        languages = sorted({q.language for q in self.questions})
        out["prompt_templates"] = [mcq_prompt_id(self.options_given["prompt"], lang) for lang in languages]
        out["skipped_rows"] = len(self.data.problems)
        return out

    def items(self) -> list[EvalItem]:
        items = []
        for question in self.questions:
            category = question.category or categorize(question.question, question.options)
            groups = {"category": category, "novel": question.novel or "?"}
            items.append(EvalItem(question.id, groups, question))
        return items

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        if llm is None:
            raise ConfigError("the mcq task needs a model: give --llm SPEC", "--llm")
        question: McqQuestion = item.payload
        category = item.groups["category"]
        if self.options_given["categories"] == "llm" and question.category is None:
            category = _llm_category(llm, question) or category
        rename = self._renamer(question)
        prompt = mcq_prompt(
            novel=rename(question.novel),
            question=rename(question.question),
            options=tuple(rename(o) for o in question.options),
            language=question.language,
            style=self.options_given["prompt"],
            examples=self._examples(question),
            context=self._context(question),
        )
        if self.options_given["method"] == "loglik":
            choice, details = _choose_by_loglik(llm, prompt, question)
        else:
            choice, details = _choose_by_generation(llm, prompt, question)
        right = choice == question.answer_letter
        details.update({"questions": 1, "gold": question.answer_letter, "category": category})
        return ItemOutcome({"accuracy": 1.0 if right else 0.0}, prediction=choice, details=details)

    def finish(self, report: EvalReport) -> None:
        if self.data.problems:
            report.settings["skipped"] = self.data.problems[:50]

    def summary(self, report: EvalReport) -> list[str]:
        problems = self.data.problems
        if not problems:
            return []
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        return [f"skipped {len(problems)} malformed row(s){more}:", *(f"  line {p}" for p in problems[:5])]

    def title(self) -> str:
        given = self.options_given
        return f"fabula eval mcq ({given['prompt']} prompt, {given['shots']}-shot, {given['method']})"

    # --- parts -------------------------------------------------------------------------------------

    def _examples(self, question: McqQuestion) -> list[tuple[str, tuple[str, ...], str]]:
        """``shots`` questions from other novels (same language when possible), fixed per question."""
        shots = self.options_given["shots"]
        if not shots:
            return []
        others = [q for q in self.data.questions if q.novel != question.novel and q.id != question.id]
        same_language = [q for q in others if q.language == question.language]
        pool = same_language if len(same_language) >= shots else others
        rng = random.Random(f"{self.options_given['seed']}:{question.id}")
        chosen = rng.sample(pool, min(shots, len(pool)))
        return [
            (rename(q.question), tuple(rename(o) for o in q.options), q.answer_letter)
            for q, rename in ((q, self._renamer(q)) for q in chosen)
        ]

    def _renamer(self, question: McqQuestion) -> Callable[[str], str]:
        """How the question's texts are asked: with ``--anonymize``, renamed by its own book's mapping
        (its title, question and options); else as they are."""
        path = self._book_path(question) if self.anonymizer is not None else None
        if path is None:
            return str
        self._book(path)
        return self._copies[path].names

    def _book_path(self, question: McqQuestion) -> Path | None:
        path = question.book
        if path is None and self.options_given["book_dir"] is not None and question.novel:
            candidate = Path(self.options_given["book_dir"]) / f"{question.novel}.txt"
            path = candidate if candidate.is_file() else None
        return path

    def _context(self, question: McqQuestion) -> str:
        path = self._book_path(question)
        if path is None:
            return ""
        from fabula.retrieval import retrieval_context

        _, retriever = self._book(path)
        rename = self._renamer(question)
        query = " ".join(rename(t) for t in (question.question, *question.options))
        return retrieval_context(retriever, query, self.options_given["budget"]).text

    def _book(self, path: Path) -> tuple[Book, Retriever]:
        with self._books_lock:
            if path not in self._books:
                from fabula.book import load_book
                from fabula.retrieval import index_book

                if not path.is_file():
                    raise InputError("no such book", path)
                book = load_book(path)
                if self.anonymizer is not None:  # names from the book's discovered cast
                    self._copies[path] = self.anonymizer.copy(book)
                    book = self._copies[path].book
                self._books[path] = (book, index_book(book, "bm25"))
            return self._books[path]


def _choose_by_generation(llm: LLM, prompt: str, question: McqQuestion) -> tuple[str | None, dict[str, Any]]:
    """Ask; extract the letter; re-ask with "answer directly" up to `MAX_REASKS` times."""
    from fabula.llm import GenerateOptions

    count = len(question.options)
    attempts: list[dict[str, Any]] = []
    asked = prompt
    for attempt in range(MAX_REASKS + 1):
        options = GenerateOptions(
            max_tokens=ANSWER_TOKENS,
            temperature=0.0 if attempt <= 1 else RETRY_TEMPERATURE,
            seed=None if attempt <= 1 else attempt,
        )
        generation = llm.generate(asked, options)
        letters = option_letters(generation.text, count)
        record: dict[str, Any] = {"raw": generation.text, "letters": letters}
        if generation.error is not None:
            record["error"] = generation.error
        attempts.append(record)
        if letters:
            record["rule"] = "single" if len(set(letters)) == 1 else "most frequent"
            status = {"first_try": int(attempt == 0), "retried": int(attempt > 0), "failed": 0}
            return majority_letter(generation.text, count), {"attempts": attempts, **status}
        language = question.language
        asked = f"{prompt}\n{ANSWER_DIRECTLY[language]}\n{EXAMPLE_CUE[language]}"
    return None, {"attempts": attempts, "first_try": 0, "retried": 0, "failed": 1}


def _choose_by_loglik(llm: LLM, prompt: str, question: McqQuestion) -> tuple[str | None, dict[str, Any]]:
    """The option whose letter is most likely after the prompt (log P(prompt + letter) - log P(prompt))."""
    base = llm.prompt_logprobs(prompt)
    if base is None:
        raise BackendError("this backend gives no prompt log-probabilities: use --method generate", llm.spec)
    scores: dict[str, float] = {}
    for index in range(len(question.options)):
        letter = chr(65 + index)
        values = llm.prompt_logprobs(f"{prompt} {letter}")
        if values is None:
            raise BackendError("the backend stopped giving log-probabilities", llm.spec)
        scores[letter] = sum(values) - sum(base)
    choice = max(scores, key=lambda letter: scores[letter])
    return choice, {"option_logprobs": scores, "first_try": 1, "retried": 0, "failed": 0}


def _llm_category(llm: LLM, question: McqQuestion) -> str | None:
    """The model's category for a question (one of `CATEGORIES`), or None when it answers anything else."""
    from fabula.llm import GenerateOptions
    from fabula.tasks._mcq_categories import CATEGORIES, category_prompt, parse_category

    generation = llm.generate(
        category_prompt(question.question, question.options), GenerateOptions(max_tokens=16)
    )
    found = parse_category(generation.text)
    return found if found in CATEGORIES else None
