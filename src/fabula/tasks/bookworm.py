"""BookWorm (Papoudakis et al., 2024): character descriptions and analyses scored against references.

``fabula eval describe --data FILE --method METHOD [--llm SPEC] [--json OUT]``. The data is JSONL, one
item a line: ``{"id", "book": path relative to the data file, "character", "aliases": [...] (optional),
"kind": "description"|"analysis", "reference", "until": POS (optional), "novel" (optional)}``; or
``--data`` is a BookWorm ``data`` folder (the release's ``books.tsv`` and ``splits/``, the user's copy of
the texts in ``corpus/TASK/SPLIT.jsonl`` and the books in ``corpus/books/ID/book_cleaned.txt``:
`fabula.datasets.bookworm_references`) read with ``--split TASK/SPLIT`` (default ``description/test``).

Methods, all through the same scoring: the extractive ``lead``, ``random``, ``centroid``, ``textrank``
(`fabula.describe.select_sentences`, k = 4 for descriptions, 25 for analyses), ``oracle`` (the k
candidates with the best ROUGE against the reference: the upper bound of extraction), and ``llm`` with a
``--context`` strategy (lead, bm25, mentions, hierarchical, none). ``--protocol bookworm`` makes ``llm``
the paper's zero-shot setting as released (`fabula.describe.bookworm_describe`: the released prompts,
temperature 0.4, 110 new tokens, 7,600-token contexts; ``--context lead|bm25|coref|hierarchical``) and
logs each item's calls, context tokens and hierarchical segment outputs. The character is found among the
book's discovered characters by its name or any alias (`fabula.characters.resolve_name`); an item whose
character is not found is scored on an empty output and counted in ``unresolved``.

Metrics (`fabula.metrics`): ``rouge1``/``rouge2``/``rougeL`` and ``entity_recall`` always; with a judge
model (``--llm``) and ``--metrics``: ``qa_em``/``qa_f1``, ``nli``, ``fact_precision``/``fact_recall``/
``fact_f1`` (per-category fact precision and recall pooled over all items in ``micro``); ``bertscore_f1``
with ``--bertscore-model DIR``; entity recall by spaCy with ``--ner-model``; QA answers by a local extractive
reader with ``--qa-model DIR``. The judge is ``--judge SPEC``, required with ``--method llm`` so the
described model never judges itself (BookWorm: GPT-3.5 wrote the QA pairs, GPT-4o-mini judged PRISMA);
for the extractive methods ``--llm`` judges when no ``--judge`` is given.

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

from fabula._jsonl import read_jsonl
from fabula._words import counted
from fabula.errors import ConfigError, InputError
from fabula.tasks._harness import EvalItem, ItemOutcome, LlmUse, Task, TaskOption, task

if TYPE_CHECKING:
    from fabula.book import Book, Character
    from fabula.llm import LLM

EXTRACTIVE = ("lead", "random", "centroid", "textrank", "oracle")
PROTOCOLS = ("fabula", "bookworm")
CONTEXTS = ("lead", "bm25", "mentions", "coref", "hierarchical", "none")
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
            "data",
            Path,
            required=True,
            metavar="FILE|DIR",
            help="JSONL of references, or a BookWorm data folder read with --split (see docs/describe.md).",
        ),
        TaskOption(
            "split",
            str,
            default="description/test",
            metavar="TASK/SPLIT",
            help="With a BookWorm data folder: which task and split (description|analysis / train|val|test).",
        ),
        TaskOption(
            "method", str, default="lead", choices=METHODS, help="Method: " + ", ".join(METHODS) + "."
        ),
        TaskOption(
            "context",
            str,
            default="mentions",
            choices=CONTEXTS,
            help="--method llm: what the model reads (--protocol bookworm: lead, bm25, coref = mentions, "
            "hierarchical).",
        ),
        TaskOption(
            "protocol",
            str,
            default="fabula",
            choices=PROTOCOLS,
            help="--method llm: fabula's prompts and budget, or BookWorm's released zero-shot setting.",
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
        TaskOption(
            "ner_model",
            str,
            metavar="NAME",
            help="spaCy pipeline finding entity_recall's entities, as the paper (e.g. en_core_web_sm; needs "
            "fabula[ner]); default: runs of capitalised words.",
        ),
        TaskOption(
            "qa_model",
            str,
            metavar="DIR",
            help="Local extractive question-answering model folder answering the QA metric's questions "
            "(the paper's reader; else the judge answers).",
        ),
        TaskOption(
            "judge",
            str,
            metavar="SPEC",
            help="Judge model for qa_*, nli and fact_* (needed with --method llm, so the described model "
            "never judges itself; default for the extractive methods: --llm).",
        ),
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
        if self.options_given["method"] != "llm":  # refused, not dropped: the report would not say so
            unread = [
                f"--{name}"
                for name, default in (("context", "mentions"), ("protocol", "fabula"), ("budget", 4000))
                if self.options_given[name] != default
            ]
            if unread:
                raise ConfigError(
                    f"only --method llm reads {'it' if len(unread) == 1 else 'them'} (the "
                    f"{self.options_given['method']} method picks sentences)",
                    ", ".join(unread),
                )
        if self.options_given["protocol"] == "bookworm" and self.options_given["context"] == "none":
            raise ConfigError(
                "--protocol bookworm has no context 'none' (lead, bm25, coref, hierarchical)", "--context"
            )
        split = str(self.options_given["split"])
        if split.count("/") != 1:
            raise ConfigError(f"--split must be TASK/SPLIT, e.g. description/test (got {split!r})", "--split")
        self._lock = threading.Lock()
        self._nli: Any = None
        self._retrievers: dict[int, Any] = {}
        self._qa_reader: Any = None
        self._ner: Any = None
        self.judge: LLM | None = None  # set by `check` (or by a caller before the run)
        self._own_judge = False

    def check(self, llm: LLM | None) -> None:
        """--method llm needs a model, the judged metrics a judge (never the described model itself):
        refuse before any item runs; the judge is opened here."""
        judged = [m for m in self.metrics if m in JUDGED_METRICS]
        method = self.options_given["method"]
        if llm is None and method == "llm":
            raise ConfigError("--method llm needs a model: give --llm SPEC", "--llm")
        if not judged:
            return
        spec = self.options_given["judge"]
        if spec is None and method == "llm":
            raise ConfigError(
                f"{', '.join(judged)} with --method llm need a separate judge: give --judge SPEC (the "
                "described model would judge itself; BookWorm judged with GPT-3.5 and GPT-4o-mini)",
                "--judge",
            )
        if spec is None and llm is None:
            raise ConfigError(f"{', '.join(judged)} needs a model: give --llm SPEC or --judge SPEC", "--llm")
        if method == "llm" and llm is not None and spec is not None and str(spec) == llm.spec:
            raise ConfigError("--judge names the described model: give a different judge", "--judge")
        if spec is not None and self.judge is None:
            from fabula.llm import get_llm

            self.judge = get_llm(str(spec), cache=True)
            self._own_judge = True
        elif self.judge is None:
            self.judge = llm

    def finish(self, report: Any) -> None:
        """Record the judge's usage in the report."""
        if self.judge is not None and [m for m in self.metrics if m in JUDGED_METRICS]:
            report.settings["judge_usage"] = self.judge.usage.line()

    def close(self) -> None:
        """Close a judge this task opened (the harness calls this after every run, failed ones too)."""
        if self._own_judge and self.judge is not None:
            self.judge.close()
            self.judge, self._own_judge = None, False

    @property
    def settings(self) -> dict[str, Any]:
        given = dict(self.options_given)
        settings = {
            "data": str(given["data"]),
            "method": given["method"],
            "metrics": self.metrics,
            "seed": given["seed"],
        }
        if Path(given["data"]).is_dir():
            settings["split"] = given["split"]
        if given["method"] == "llm" and given["protocol"] == "bookworm":
            from fabula.describe import BOOKWORM_SETTINGS

            settings |= {
                "protocol": "bookworm",
                "context": _bookworm_context(given["context"]),
                **BOOKWORM_SETTINGS,
            }
        elif given["method"] == "llm":
            settings |= {"context": given["context"], "budget": given["budget"]}
        if [m for m in self.metrics if m in JUDGED_METRICS]:
            settings["judge"] = given["judge"] or "the --llm model"
        settings["entities"] = f"spaCy {given['ner_model']}" if given["ner_model"] else "capitalised runs"
        for key in ("bertscore_model", "nli_model", "qa_model"):
            if given[key]:
                settings[key] = given[key]
        return settings

    # --- items ------------------------------------------------------------------------------------
    def items(self) -> list[EvalItem]:
        path = Path(self.options_given["data"])
        if path.is_dir():
            return self._bookworm_items(path)
        items = []
        for number, raw in read_jsonl(path):
            record = _record(raw, path, number)
            book = (path.parent / record["book"]).resolve()
            novel = str(record.get("novel") or (book.parent.name if book.stem == "novel_text" else book.stem))
            kind = str(record.get("kind", "description"))
            payload = {**record, "book_path": book}
            items.append(EvalItem(str(record["id"]), {"novel": novel, "kind": kind}, payload))
        return items

    def _bookworm_items(self, root: Path) -> list[EvalItem]:
        """Items of a BookWorm data folder's ``--split`` (`fabula.datasets.bookworm_references`)."""
        from fabula.datasets import BOOKWORM_TASKS, bookworm_references

        kind, split = str(self.options_given["split"]).split("/")
        if kind not in BOOKWORM_TASKS:
            raise ConfigError(
                f"unknown BookWorm task {kind!r} (choose from {', '.join(BOOKWORM_TASKS)})", "--split"
            )
        items = []
        for ref in bookworm_references(root, kind, split):
            payload = {
                "character": ref.character,
                "reference": ref.reference,
                "book_path": ref.book_path.resolve(),
                "gutenberg_id": ref.book.gutenberg_id,
            }
            item_id = f"{ref.book.gutenberg_id}:{ref.character}"
            items.append(EvalItem(item_id, {"novel": ref.book.title, "kind": kind}, payload))
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
        elif method == "llm" and self.options_given["protocol"] == "bookworm":
            from fabula.describe import bookworm_describe

            assert llm is not None
            # the paper prompts with the reference's own name for the character
            [out] = bookworm_describe(
                book,
                [record["character"]],
                llm,
                kind=kind,
                context=_bookworm_context(self.options_given["context"]),
            )
            if out.error:
                raise InputError(f"the model call failed: {out.error}", item.id)
            output = out.text
            details |= {"calls": out.calls, "context_tokens": out.context_tokens, "prompts": out.prompts}
            if out.segment_outputs:
                details["segment_outputs"] = out.segment_outputs
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
            "entity_recall": entity_recall(output, reference, nlp=self._spacy()),
        }
        if "bertscore_f1" in self.metrics:
            from fabula.metrics import bertscore_f1

            scores["bertscore_f1"] = bertscore_f1(
                output, reference, model_path=self.options_given["bertscore_model"]
            )
        if judged:
            assert self.judge is not None
            scores |= self._judged(book, output, reference, self.judge, sentences, details)
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
            qa = qa_scores(output, reference, llm, reader=self._reader())
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
            details["prisma_calls"] = facts.calls
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

    def _spacy(self) -> Any:
        name = self.options_given["ner_model"]
        if not name:
            return None
        with self._lock:
            if self._ner is None:
                from fabula.metrics import load_ner

                self._ner = load_ner(name)
        return self._ner

    def _reader(self) -> Any:
        path = self.options_given["qa_model"]
        if not path:
            return None
        with self._lock:
            if self._qa_reader is None:
                from fabula.metrics import load_qa_reader

                self._qa_reader = load_qa_reader(path)
        return self._qa_reader

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
            [f"{counted(unresolved, 'item')} whose character was not found scored on an empty output"]
            if unresolved
            else []
        )


def _bookworm_context(context: str) -> str:
    """fabula's ``mentions`` is BookWorm's ``coref`` (fabula's mention layer stands in for BookNLP)."""
    return "coref" if context == "mentions" else context


def _record(record: dict[str, Any], path: Path, number: int) -> dict[str, Any]:
    """One reference line, checked: the keys every item needs."""
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
