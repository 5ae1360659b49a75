"""BookWorm (Papoudakis et al., 2024): character descriptions and analyses scored against references.

``fabula eval describe --data FILE --method METHOD [--llm SPEC] [--json OUT]``. The data is JSONL, one
item a line: ``{"id", "book": path relative to the data file, "character", "aliases": [...] (optional),
"kind": "description"|"analysis", "reference", "until": POS (optional), "novel" (optional)}``.

Methods, all through the same scoring: the extractive ``lead``, ``random``, ``centroid``, ``textrank``
(`fabula.describe.select_sentences`, k = 4 for descriptions, 25 for analyses), ``oracle`` (the k
candidates with the best ROUGE against the reference: the upper bound of extraction), and ``llm`` with a
``--context`` strategy (lead, bm25, mentions, hierarchical, none). The character is found among the
book's discovered characters by its name or any alias (`fabula.characters.resolve_name`); an item whose
character is not found is scored on an empty output and counted in ``unresolved``.

Metrics (`fabula.metrics`): ``rouge1``/``rouge2``/``rougeL`` and ``entity_recall`` always; with a judge
model (``--llm``) and ``--metrics``: ``qa_em``/``qa_f1``, ``nli``, ``fact_precision``/``fact_recall``/
``fact_f1`` (per-category fact precision and recall pooled over all items in ``micro``); ``bertscore_f1``
with ``--bertscore-model DIR``. For ``--method llm`` the same model writes and judges (BookWorm used GPT-4
as the judge; pass a stronger judge by running the extractive or cached outputs through it).

``--anonymize``: each book renamed once (the names of its whole discovered cast), the item's character,
aliases and reference renamed with the same mapping, ``until`` resolved on the original and carried
over by the offset map; every metric then compares renamed texts.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

import orjson

from fabula.errors import ConfigError, InputError
from fabula.tasks._harness import EvalItem, ItemOutcome, LlmUse, Task, TaskOption, task

if TYPE_CHECKING:
    from fabula.book import Book, Character
    from fabula.llm import LLM

EXTRACTIVE = ("lead", "random", "centroid", "textrank", "oracle")
METHODS = (*EXTRACTIVE, "llm")
BASE_METRICS = ["rouge1", "rouge2", "rougeL", "entity_recall"]
JUDGED_METRICS = ["qa_em", "qa_f1", "nli", "fact_precision", "fact_recall", "fact_f1"]
ALL_METRICS = [*BASE_METRICS, "bertscore_f1", *JUDGED_METRICS]
NLI_PASSAGE_UNITS: Final = "paragraph"


@task("describe")
class BookWormTask(Task):
    """Character descriptions / analyses against reference texts (BookWorm's metrics)."""

    description = (
        "BookWorm character descriptions and analyses: ROUGE, entity recall, BERTScore, QA, NLI, facts."
    )
    metrics: ClassVar[list[str]] = BASE_METRICS
    counts: ClassVar[list[str]] = ["unresolved", "output_words", "prompt_tokens", "completion_tokens"]
    group_by: ClassVar[list[str]] = ["novel", "kind"]
    llm: ClassVar[LlmUse] = "optional"  # --method llm and judged metrics need one (see `check`)
    anonymize_refusal = None  # book, character, aliases and reference renamed by one mapping per book
    options: ClassVar[list[TaskOption]] = [
        TaskOption(
            "data", Path, required=True, metavar="FILE", help="JSONL of references (see docs/describe.md)."
        ),
        TaskOption(
            "method", str, default="lead", choices=METHODS, help="Method: " + ", ".join(METHODS) + "."
        ),
        TaskOption(
            "context",
            str,
            default="mentions",
            choices=("lead", "bm25", "mentions", "hierarchical", "none"),
            help="--method llm: what the model reads.",
        ),
        TaskOption(
            "budget", int, default=4000, metavar="TOKENS", help="--method llm: context size in tokens."
        ),
        TaskOption("seed", int, default=0, help="Seed of the random method."),
        TaskOption(
            "metrics",
            str,
            multiple=True,
            metavar="NAME",
            help="Metrics to compute (repeatable; default rouge1 rouge2 rougeL entity_recall): also "
            + ", ".join(["bertscore_f1", *JUDGED_METRICS])
            + " (judged ones need --llm).",
        ),
        TaskOption(
            "bertscore_model", str, metavar="DIR", help="Local transformers model folder for BERTScore."
        ),
        TaskOption("nli_model", str, metavar="DIR", help="Local NLI model folder (else the LLM judges NLI)."),
    ]

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        wanted = list(self.options_given["metrics"] or []) or list(BASE_METRICS)
        unknown = [m for m in wanted if m not in ALL_METRICS]
        if unknown:
            raise ConfigError(
                f"unknown metric(s) {', '.join(unknown)} (choose from {', '.join(ALL_METRICS)})"
            )
        if "bertscore_f1" in wanted and not self.options_given["bertscore_model"]:
            raise ConfigError("bertscore_f1 needs --bertscore-model DIR (a local model folder)", "--metrics")
        self.metrics = [m for m in ALL_METRICS if m in wanted]  # type: ignore[misc]
        self._lock = threading.Lock()
        self._nli: Any = None
        self._retrievers: dict[int, Any] = {}

    def check(self, llm: LLM | None) -> None:
        """--method llm and the judged metrics need a model: refuse before any item runs."""
        judged = [m for m in self.metrics if m in JUDGED_METRICS]
        if llm is None and (self.options_given["method"] == "llm" or judged):
            what = "--method llm" if self.options_given["method"] == "llm" else ", ".join(judged)
            raise ConfigError(f"{what} needs a model: give --llm SPEC", "--llm")

    @property
    def settings(self) -> dict[str, Any]:
        given = dict(self.options_given)
        settings = {
            "data": str(given["data"]),
            "method": given["method"],
            "metrics": self.metrics,
            "seed": given["seed"],
        }
        if given["method"] == "llm":
            settings |= {"context": given["context"], "budget": given["budget"]}
        for key in ("bertscore_model", "nli_model"):
            if given[key]:
                settings[key] = given[key]
        return settings

    # --- items ------------------------------------------------------------------------------------
    def items(self) -> list[EvalItem]:
        path = Path(self.options_given["data"])
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise InputError(f"cannot read the data file ({exc.strerror})", path) from exc
        items = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            record = _record(line, path, number)
            book = (path.parent / record["book"]).resolve()
            novel = str(record.get("novel") or (book.parent.name if book.stem == "novel_text" else book.stem))
            kind = str(record.get("kind", "description"))
            payload = {**record, "book_path": book}
            items.append(EvalItem(str(record["id"]), {"novel": novel, "kind": kind}, payload))
        return items

    # --- one item ---------------------------------------------------------------------------------
    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        from fabula.describe import K_BY_KIND, candidate_sentences, oracle_sentences, select_sentences
        from fabula.metrics import entity_recall, rouge_scores

        method = self.options_given["method"]
        judged = [m for m in self.metrics if m in JUDGED_METRICS]
        record = item.payload
        kind = item.groups["kind"]
        book = self.books.book(record["book_path"], record.get("until"), needs={"characters"})
        names = [record["character"], *record.get("aliases", [])]
        reference = str(record["reference"])
        copy = self.books.copy(record["book_path"])
        if copy is not None:
            names, reference = [copy.names(str(n)) for n in names], copy.names(reference)
        character = _find(book, names)
        details: dict[str, Any] = {"unresolved": int(character is None)}
        started = time.perf_counter()
        sentences: list[str] = []
        if character is None:
            output = ""
        elif method == "llm":
            from fabula.describe import describe_characters, strip_citations

            assert llm is not None
            [result] = describe_characters(
                book,
                [character],
                llm,
                kind=kind,
                context=self.options_given["context"],
                budget=self.options_given["budget"],
            )
            if result.error:
                raise InputError(f"the model call failed: {result.error}", item.id)
            output = strip_citations(result.text)
            details |= {"prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens}
        else:
            # the paper's lead-k / random / oracle: sentences where coreference finds the character
            paper = method in ("lead", "random", "oracle")
            pool = candidate_sentences(book, character.id, coreference=paper)
            k = K_BY_KIND.get(kind, K_BY_KIND["description"])
            if method == "oracle":
                chosen = oracle_sentences(pool, reference, k, language=book.meta.language)
            else:
                chosen = select_sentences(
                    book, character.id, k=k, method=method, seed=self.options_given["seed"], candidates=pool
                )
            sentences = [c.text for c in chosen]
            output = " ".join(sentences)
        seconds = time.perf_counter() - started
        details["output_words"] = len(output.split())
        rouge = rouge_scores(output, reference, language=book.meta.language)
        scores: dict[str, float | None] = {
            "rouge1": rouge.rouge1,
            "rouge2": rouge.rouge2,
            "rougeL": rouge.rougeL,
            "entity_recall": entity_recall(output, reference),
        }
        if "bertscore_f1" in self.metrics:
            from fabula.metrics import bertscore_f1

            scores["bertscore_f1"] = bertscore_f1(
                output, reference, model_path=self.options_given["bertscore_model"]
            )
        if judged:
            assert llm is not None
            scores |= self._judged(book, output, reference, llm, sentences, details)
        return ItemOutcome(
            {m: scores.get(m) for m in self.metrics},
            prediction=output,
            details={
                **details,
                "character_id": character.id if character else None,
                "seconds": round(seconds, 3),
            },
        )

    def _judged(
        self, book: Book, output: str, reference: str, llm: LLM, sentences: list[str], details: dict[str, Any]
    ) -> dict[str, float | None]:
        from fabula.describe import text_sentences
        from fabula.metrics import fact_scores, nli_entailment, nli_max_entailment, qa_scores

        scores: dict[str, float | None] = {}
        failures = 0
        if {"qa_em", "qa_f1"} & set(self.metrics):
            qa = qa_scores(output, reference, llm)
            scores |= {"qa_em": qa.em, "qa_f1": qa.f1}
            details |= {"qa_asked": qa.asked, "qa_kept": qa.kept}
            failures += qa.failures
        if "nli" in self.metrics:
            claims = sentences or text_sentences(output, book.meta.language)
            scorer = self._scorer()
            if scorer is not None:  # the paper's NLI: the maximum over every paragraph of the book
                result = nli_max_entailment(claims, self._paragraphs(book), scorer)
                details["nli_premises"] = "max over all paragraphs (local NLI model)"
            else:  # an LLM judge cannot read every paragraph per sentence: the best BM25 one
                premises = [self._best_passage(book, claim) for claim in claims]
                result = nli_entailment(claims, premises, llm=llm)
                details["nli_premises"] = "best BM25 paragraph (LLM judge)"
            scores["nli"] = result.score
            details |= {"nli_sentences": len(claims), "nli_entailed": sum(result.entailed)}
            failures += result.failures
        if {"fact_precision", "fact_recall", "fact_f1"} & set(self.metrics):
            facts = fact_scores(output, reference, llm)
            scores |= {"fact_precision": facts.precision, "fact_recall": facts.recall, "fact_f1": facts.f1}
            details |= {f"_{k}": v for k, v in facts.counts().items()}
            failures += facts.failures
        details["judge_failures"] = failures
        return scores

    def micro(self, outcomes: list[ItemOutcome]) -> dict[str, float | int | None] | None:
        """Per-category fact precision and recall, pooled over every item (when facts were scored)."""
        if "fact_precision" not in self.metrics:
            return None
        from fabula.metrics import pooled_fact_scores

        counts: Counter[str] = Counter()
        for outcome in outcomes:
            counts.update({k[1:]: v for k, v in outcome.details.items() if k.startswith("_fact_")})
        return dict(pooled_fact_scores(dict(counts)))

    # --- helpers ----------------------------------------------------------------------------------
    def _best_passage(self, book: Book, claim: str) -> str:
        """The book passage BM25 ranks first for ``claim`` (the NLI premise)."""
        from fabula.retrieval import index_book

        with self._lock:
            retriever = self._retrievers.get(id(book))
            if retriever is None:
                retriever = index_book(book, "bm25", units=NLI_PASSAGE_UNITS, cache=False)
                self._retrievers[id(book)] = retriever
        hits = retriever.search(claim, k=1, until=book.until)
        return hits[0].unit.text if hits else ""

    def _paragraphs(self, book: Book) -> list[str]:
        """The book's paragraphs of at most 512 tokens (longer ones cut), up to its reading position."""
        from fabula.retrieval import UnitSpec, make_units

        until = book.until if book.until is not None else len(book.text)
        units = make_units(book, UnitSpec(kind=NLI_PASSAGE_UNITS, max_tokens=512))
        return [u.text for u in units if u.end <= until]

    def _scorer(self) -> Any:
        path = self.options_given["nli_model"]
        if not path:
            return None
        if self._nli is None:
            from fabula.metrics import load_nli_scorer

            self._nli = load_nli_scorer(path)
        return self._nli

    def summary(self, report: Any) -> list[str]:
        unresolved = sum(
            int(scores.get("unresolved") or 0) for scores in report.groups.get("novel", {}).values()
        )
        return (
            [f"{unresolved} item(s) whose character was not found scored on an empty output"]
            if unresolved
            else []
        )


def _record(line: str, path: Path, number: int) -> dict[str, Any]:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"line {number} is not JSON ({exc})", path) from exc
    if not isinstance(record, dict):
        raise InputError(f"line {number} is not a JSON object", path)
    for key in ("id", "book", "character", "reference"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            raise InputError(f"line {number} needs a string {key!r}", path)
    if record.get("kind", "description") not in ("description", "analysis"):
        raise InputError(f"line {number}: kind must be 'description' or 'analysis'", path)
    if not isinstance(record.get("aliases", []), list):
        raise InputError(f"line {number}: aliases must be a list of names", path)
    return record


def _find(book: Book, names: list[str]) -> Character | None:
    from fabula.characters import resolve_name

    for name in names:
        character = resolve_name(book.characters, str(name))
        if character is not None:
            return character
    return None
