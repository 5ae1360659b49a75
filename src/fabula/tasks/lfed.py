"""Literary multiple-choice QA (LFED: Yu, Liu and Xiong, LREC-COLING 2024), and any MCQ set of the same shape
(∞Bench En.MC, NovelQA): ``fabula eval mcq --data FILE --llm SPEC``.

The protocol, as the paper (section 4.1) describes it:
* prompts: the paper's short or long instruction, then the title, the question, the four choices and the suffix
  "the correct answer is:" (`fabula.prompts.mcq_prompt`; the paper's English wording word for word, or
  fabula's Chinese rendering of it, since the paper sends Chinese inputs: ``--prompt-language``, recorded in the
  report's settings);
* zero-shot, n-shot (n = 1-5 worked examples, each from a different novel, never the question's own), or
  ``--shots 1-5``: every question asked with 1, 2, 3, 4 and 5 examples and the five accuracies averaged, the
  paper's "few-shot" number (each n is reported too);
* answer extraction (`fabula.prompts.read_choice`, ``--extraction fabula|paper``): the paper's script counts
  answer indicators (one → it; several → the most frequent); fabula's chain first reads an answer stated in
  words. No answer → run again with the suffix changed to the paper's "According to the above question, please
  output the answer directly and do not output any rationals.", at most three runs in all, then the item is
  wrong. Every run is recorded in the item's log, and the report counts items answered at the first run, at a
  later run, or never;
* ``--method loglik``: each option scored by the log-probability of its letter after the prompt, where the
  backend returns prompt log-probabilities (no extraction needed; not the paper's method);
* with a book (the JSONL's ``book`` field, or ``--book-dir`` holding ``NOVEL.txt``): BM25 passages for the
  question and its options are put in the prompt within ``--budget`` tokens (not the paper's: LFED is closed-book);
* accuracy overall, per novel and per category: a data set's own ``category``, or for LFED (whose CSV has no
  category column) *approximate* categories from a keyword classifier, reported under ``approx_category`` with
  its measured agreement with hand labels (`fabula.tasks._mcq_categories`);
* ``--anonymize``: each book renamed (its discovered cast), the question, its options and the few-shot
  examples renamed by their own book's mapping, passages drawn from the renamed copy. It needs every
  question's book, in English: LFED (Chinese, no texts) is refused in one line.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from fabula._words import counted
from fabula.datasets import McqQuestion, load_mcq
from fabula.errors import BackendError, ConfigError
from fabula.prompts import CHAINS, mcq_prompt, mcq_prompt_ids, prompt_language, read_choice
from fabula.tasks._evaluation import EvalReport
from fabula.tasks._harness import EvalItem, ItemOutcome, Task, TaskOption, task
from fabula.tasks._mcq_categories import CATEGORY_AGREEMENT, categorize

if TYPE_CHECKING:
    from fabula.book import Book
    from fabula.llm import LLM
    from fabula.retrieval import Retriever

MAX_RUNS = 3  # "We run this process at most three times, or we will treat as LLMs answer wrong" (LFED 4.1)
ANSWER_TOKENS = 48  # room for "答案是B" or a one-line explanation; the letter comes first in practice
RETRY_TEMPERATURE = (
    0.7  # the third run samples (with a seed), else it would repeat the second's cached answer
)
FEW_SHOT_RANGE = "1-5"  # the paper's few-shot number: the average over 1, 2, 3, 4 and 5 examples


def _shot_counts(value: str) -> list[int]:
    """``"0"``-``"5"`` → [n]; ``"1-5"`` → [1, 2, 3, 4, 5]; anything else is a `ConfigError`."""
    if value == FEW_SHOT_RANGE:
        return [1, 2, 3, 4, 5]
    if value.isdigit() and 0 <= int(value) <= 5:
        return [int(value)]
    raise ConfigError(
        f"--shots must be 0-5 or {FEW_SHOT_RANGE} (the average over 1-5 shots), not {value!r}", "--shots"
    )


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
        TaskOption(
            "shots",
            str,
            "0",
            "Worked examples from other novels before the question: 0-5, or 1-5 for the paper's few-shot "
            "number (each question asked with 1..5 examples, the accuracies averaged).",
        ),
        TaskOption(
            "prompt", str, "short", "The paper's short or long instruction.", choices=("short", "long")
        ),
        TaskOption(
            "prompt_language",
            str,
            "auto",
            "Prompt language: auto (the question's: Chinese for LFED, as the paper sends), zh (fabula's "
            "rendering) or en (the paper's printed English, word for word).",
            choices=("auto", "zh", "en"),
        ),
        TaskOption(
            "extraction",
            str,
            "fabula",
            "Answer extraction: fabula (a stated answer first, then the paper's rules) or paper (answer "
            "indicators counted, as the paper's script).",
            choices=CHAINS,
        ),
        TaskOption(
            "method",
            str,
            "generate",
            "generate (answer extraction, at most three runs) or loglik (option log-probabilities).",
            choices=("generate", "loglik"),
        ),
        TaskOption("book_dir", Path, None, "Folder of NOVEL.txt files: passages go in the prompt.", "DIR"),
        TaskOption("budget", int, 1500, "Tokens of book passages per question (with a book)."),
        TaskOption(
            "categories",
            str,
            "keyword",
            "How questions without a category get an approximate one: keyword rules or the model (llm, cached).",
            choices=("keyword", "llm"),
        ),
        TaskOption("seed", int, 0, "Seed for drawing the few-shot examples."),
    ]

    def __init__(self, **settings: Any) -> None:
        settings["shots"] = str(settings.get("shots", "0"))
        super().__init__(**settings)
        self.shot_counts = _shot_counts(self.options_given["shots"])
        self.data = load_mcq(self.options_given["data"])
        self._llm_categories: dict[str, str] = {}
        # categories a classifier guessed are reported under their own name, never as the data's
        self.approximate = any(q.category is None for q in self.data.questions)
        self.category_key = "approx_category" if self.approximate else "category"
        # per instance: the group name and the per-n metrics depend on the data and --shots
        self.group_by = [self.category_key, "novel"]  # type: ignore[misc]
        if len(self.shot_counts) > 1:
            self.metrics = [  # type: ignore[misc]
                "accuracy",
                *(f"accuracy_{n}shot" for n in self.shot_counts),
            ]

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
        languages = sorted({self._language(q) for q in self.questions})
        out["prompt_languages"] = languages
        out["prompt_templates"] = [
            name for lang in languages for name in mcq_prompt_ids(self.options_given["prompt"], lang)
        ]
        out["max_runs"] = MAX_RUNS
        out["skipped_rows"] = len(self.data.problems)
        if self.approximate:
            out["category_source"] = (
                f"approximate: {self.options_given['categories']} classifier (the data has no category); "
                f"{CATEGORY_AGREEMENT}"
            )
        return out

    def items(self) -> list[EvalItem]:
        items = []
        for question in self.questions:
            category = question.category or categorize(question.question, question.options)
            groups = {self.category_key: category, "novel": question.novel or "?"}
            items.append(EvalItem(question.id, groups, question))
        return items

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        if llm is None:
            raise ConfigError("the mcq task needs a model: give --llm SPEC", "--llm")
        question: McqQuestion = item.payload
        category = item.groups[self.category_key]
        if self.options_given["categories"] == "llm" and question.category is None:
            category = _llm_category(llm, question) or category
        rename = self._renamer(question)
        examples = self._examples(question)
        language = self._language(question)
        context = self._context(question)
        scores: dict[str, float | None] = {}
        runs: dict[str, Any] = {}
        totals = {"first_try": 0, "retried": 0, "failed": 0}
        choice: str | None = None
        for shots in self.shot_counts:

            def prompt(reask: bool, shots: int = shots) -> str:
                return mcq_prompt(
                    novel=rename(question.novel),
                    question=rename(question.question),
                    options=tuple(rename(o) for o in question.options),
                    language=language,
                    style=self.options_given["prompt"],
                    examples=examples[:shots],
                    context=context,
                    reask=reask,
                )

            if self.options_given["method"] == "loglik":
                choice, details = _choose_by_loglik(llm, prompt(False), question)
            else:
                choice, details = _choose_by_generation(
                    llm, prompt, question, self.options_given["extraction"]
                )
            for key in totals:
                totals[key] += details.pop(key)
            scores[f"accuracy_{shots}shot"] = 1.0 if choice == question.answer_letter else 0.0
            runs[str(shots)] = {"prediction": choice, **details}
        accuracy = sum(v or 0.0 for v in scores.values()) / len(scores)
        if len(self.shot_counts) == 1:
            (only,) = runs.values()
            details = {k: v for k, v in only.items() if k != "prediction"}
            prediction: Any = choice
        else:
            details = {"by_shots": runs}
            prediction = {n: run["prediction"] for n, run in runs.items()}
            details |= {"_shot_scores": scores}
        details.update({"questions": 1, **totals, "gold": question.answer_letter, "category": category})
        out_scores = {"accuracy": accuracy, **(scores if len(self.shot_counts) > 1 else {})}
        return ItemOutcome(out_scores, prediction=prediction, details=details)

    def finish(self, report: EvalReport) -> None:
        if self.data.problems:
            report.settings["skipped"] = self.data.problems[:50]

    def summary(self, report: EvalReport) -> list[str]:
        lines = []
        if self.approximate:
            lines.append(f"categories ({self.category_key}) are approximate: {CATEGORY_AGREEMENT}")
        problems = self.data.problems
        if problems:
            more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
            lines += [
                f"skipped {counted(len(problems), 'malformed row')}{more}:",
                *(f"  line {p}" for p in problems[:5]),
            ]
        return lines

    def title(self) -> str:
        given = self.options_given
        return (
            f"fabula eval mcq ({given['prompt']} prompt, {given['shots']}-shot, {given['method']}, "
            f"{given['extraction']} extraction)"
        )

    # --- parts -------------------------------------------------------------------------------------

    def _language(self, question: McqQuestion) -> str:
        return prompt_language(question.language, self.options_given["prompt_language"])

    def _examples(self, question: McqQuestion) -> list[tuple[str, str, tuple[str, ...], str]]:
        """Up to five worked examples, each from a different novel and none from the question's own (the
        paper: "the examples provided to LLMs in the prompt are from different novels"), fixed per question;
        an n-shot prompt shows the first n, so the 1..5-shot runs differ only in n."""
        most = max(self.shot_counts)
        if not most:
            return []
        others = [q for q in self.data.questions if q.novel != question.novel and q.id != question.id]
        same_language = [q for q in others if q.language == question.language]
        pool = same_language if len({q.novel for q in same_language}) >= most else others
        rng = random.Random(f"{self.options_given['seed']}:{question.id}")
        rng.shuffle(pool := list(pool))
        chosen: list[McqQuestion] = []
        for candidate in pool:  # one per novel first; more from the same novels only when too few novels
            if len(chosen) < most and candidate.novel not in {q.novel for q in chosen}:
                chosen.append(candidate)
        chosen += [q for q in pool if q not in chosen][: most - len(chosen)]
        return [
            (rename(q.novel), rename(q.question), tuple(rename(o) for o in q.options), q.answer_letter)
            for q, rename in ((q, self._renamer(q)) for q in chosen)
        ]

    def _renamer(self, question: McqQuestion) -> Callable[[str], str]:
        """How the question's texts are asked: with ``--anonymize``, renamed by its own book's mapping
        (its title, question and options); else as they are."""
        path = self._book_path(question) if self.anonymizer is not None else None
        if path is None:
            return str
        self._book(path)
        copy = self.books.copy(path)
        assert copy is not None
        return copy.names

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
        """The book (renamed with ``--anonymize``: the names of its annotated cast) and its BM25 index."""
        from fabula.retrieval import index_book

        book = self.books.book(path)
        return book, self.books.derived(book, "bm25", lambda b: index_book(b, "bm25"))


def _choose_by_generation(
    llm: LLM, prompt: Callable[[bool], str], question: McqQuestion, chain: str
) -> tuple[str | None, dict[str, Any]]:
    """Ask; read the choice; with none, run again with the paper's "answer directly" suffix, at most
    `MAX_RUNS` runs in all (the third samples, so it is not the second's cached answer)."""
    from fabula.llm import GenerateOptions

    attempts: list[dict[str, Any]] = []
    for run in range(MAX_RUNS):
        options = GenerateOptions(
            max_tokens=ANSWER_TOKENS,
            temperature=0.0 if run <= 1 else RETRY_TEMPERATURE,
            seed=None if run <= 1 else run,
        )
        generation = llm.generate(prompt(run > 0), options)
        choice = read_choice(generation.text, question.options, chain)
        record: dict[str, Any] = {"raw": generation.text, "parsed": choice.letter, "rule": choice.rule}
        if generation.error is not None:
            record["error"] = generation.error
        attempts.append(record)
        if choice.letter is not None:
            status = {"first_try": int(run == 0), "retried": int(run > 0), "failed": 0}
            return choice.letter, {"attempts": attempts, **status}
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
