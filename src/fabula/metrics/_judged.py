"""Scores that need a judge model (BookWorm's QA, NLI and PRISMA-style fact metrics), through the LLM layer.

- QA (``qa_em``, ``qa_f1``): the judge writes questions with short answers from the reference; each
  question is answered from the reference itself and kept only when that answer is right (SQuAD F1 ≥
  ``ROUND_TRIP_F1``: the round-trip filter drops questions the judge cannot answer from its own source);
  the kept questions are answered from the output and scored with SQuAD EM/F1 against the reference's
  answers ("unanswerable" scores 0).
- NLI (``nli``): share of the output's sentences entailed by their best-matching book passage, judged by
  the LLM, or by a local NLI classifier when one is given (any ``(premise, hypothesis) -> bool``).
- Facts (``fact_precision``/``fact_recall``/``fact_f1``, PRISMA-style after Mahbub et al.): the judge
  splits each text into atomic facts, each classified Role / Relationship / Personality / Event /
  Mental state / Other, then checks every fact of one text against the other text; precision is the share
  of the output's facts the reference supports, recall the share of the reference's facts the output
  supports; counts per category are kept so they can be pooled and reported per category.

Every judge answer is untrusted JSON, parsed strictly (`fabula.llm.ask_json_many`: one retry with a
reminder); an unparseable answer counts as "not supported"/"wrong", and the number of such failures is
returned so reports can show it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from fabula.metrics._registry import metric
from fabula.metrics._text import exact_match, token_f1

if TYPE_CHECKING:
    from fabula.llm import LLM

FACT_CATEGORIES = ("Role", "Relationship", "Personality", "Event", "Mental state", "Other")
ROUND_TRIP_F1 = 0.5
QUESTIONS = 5
UNANSWERABLE = "unanswerable"


class _QAPair(BaseModel):
    question: str
    answer: str


class _Questions(BaseModel):
    questions: list[_QAPair] = Field(default_factory=list)


class _Answer(BaseModel):
    answer: str


class _Verdict(BaseModel):
    entailed: bool


class _Fact(BaseModel):
    fact: str
    category: str = "Other"


class _Facts(BaseModel):
    facts: list[_Fact] = Field(default_factory=list)


def _options(max_tokens: int = 512) -> Any:
    from fabula.llm import GenerateOptions

    return GenerateOptions(max_tokens=max_tokens, temperature=0.0, json_mode=True)


# --- QA --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class QAResult:
    """QA-based scores (None when no question survived the round trip) and what they rest on."""

    em: float | None
    f1: float | None
    asked: int  # questions the judge wrote
    kept: int  # questions it answered right from the reference
    failures: int  # unparseable judge answers
    questions: list[dict[str, Any]] = field(default_factory=list)


def _answer_prompts(llm: LLM, text: str, questions: Sequence[str]) -> list[Any]:
    from fabula.prompts import load_prompt

    template = load_prompt("describe/qa_answer")
    return [template.messages(text=text, question=q, unanswerable=UNANSWERABLE) for q in questions]


def qa_scores(prediction: str, reference: str, llm: LLM, *, questions: int = QUESTIONS) -> QAResult:
    """Questions from ``reference`` (round-trip filtered) answered from ``prediction``, scored SQuAD-style."""
    from fabula.llm import ask_json, ask_json_many
    from fabula.prompts import load_prompt

    asked = ask_json(
        llm,
        load_prompt("describe/qa_questions").messages(text=reference, n=questions),
        _Questions,
        _options(),
    )
    failures = 0 if asked.ok else 1
    pairs = [(p.question.strip(), p.answer.strip()) for p in (asked.value.questions if asked.ok else [])]
    pairs = [(q, a) for q, a in pairs if q and a][:questions]
    if not pairs:
        return QAResult(None, None, 0, 0, failures)
    from_reference = ask_json_many(
        llm, _answer_prompts(llm, reference, [q for q, _ in pairs]), _Answer, _options(64)
    )
    kept = []
    for (question, gold), answer in zip(pairs, from_reference, strict=True):
        failures += 0 if answer.ok else 1
        if answer.ok and token_f1(answer.value.answer, gold) >= ROUND_TRIP_F1:
            kept.append((question, gold))
    if not kept:
        return QAResult(None, None, len(pairs), 0, failures)
    from_output = ask_json_many(
        llm, _answer_prompts(llm, prediction, [q for q, _ in kept]), _Answer, _options(64)
    )
    records = []
    for (question, gold), answer in zip(kept, from_output, strict=True):
        failures += 0 if answer.ok else 1
        given = answer.value.answer if answer.ok else ""
        records.append(
            {
                "question": question,
                "gold": gold,
                "answer": given,
                "em": exact_match(given, gold),
                "f1": token_f1(given, gold),
            }
        )
    return QAResult(
        sum(r["em"] for r in records) / len(records),
        sum(r["f1"] for r in records) / len(records),
        len(pairs),
        len(kept),
        failures,
        records,
    )


@metric("qa_f1")
def qa_f1(prediction: str, reference: str, llm: LLM) -> float | None:
    return qa_scores(prediction, reference, llm).f1


@metric("qa_em")
def qa_em(prediction: str, reference: str, llm: LLM) -> float | None:
    return qa_scores(prediction, reference, llm).em


# --- NLI -------------------------------------------------------------------------------------------

Classifier = Callable[[str, str], bool]
Scorer = Callable[[str, str], float]  # P(entailment | premise, hypothesis)
NLI_THRESHOLD = 0.5


@dataclass(slots=True)
class NliResult:
    score: float | None  # share of sentences entailed (None without sentences)
    entailed: list[bool]
    failures: int


def nli_entailment(
    sentences: Sequence[str],
    premises: Sequence[str],
    *,
    llm: LLM | None = None,
    classifier: Classifier | None = None,
) -> NliResult:
    """Whether each sentence is entailed by its premise (the best-matching passage), by ``classifier``
    when given, else by the LLM judge."""
    if not sentences:
        return NliResult(None, [], 0)
    if classifier is not None:
        verdicts = [classifier(p, s) for s, p in zip(sentences, premises, strict=True)]
        return NliResult(sum(verdicts) / len(verdicts), verdicts, 0)
    if llm is None:
        raise ValueError("NLI needs an LLM judge or a classifier")
    from fabula.llm import ask_json_many
    from fabula.prompts import load_prompt

    template = load_prompt("describe/nli")
    answers = ask_json_many(
        llm,
        [template.messages(premise=p, hypothesis=s) for s, p in zip(sentences, premises, strict=True)],
        _Verdict,
        _options(32),
    )
    verdicts = [bool(a.ok and a.value.entailed) for a in answers]
    return NliResult(sum(verdicts) / len(verdicts), verdicts, sum(1 for a in answers if not a.ok))


def nli_max_entailment(
    sentences: Sequence[str], paragraphs: Sequence[str], scorer: Scorer, *, threshold: float = NLI_THRESHOLD
) -> NliResult:
    """BookWorm's NLI (after Laban et al., 2021): a sentence is entailed when its maximum entailment
    probability over all the book's paragraphs (≤ 512 tokens each) reaches ``threshold`` (0.5); the score
    is the share of sentences entailed. The scan of a sentence stops at the first paragraph over the
    threshold (the maximum is then over it too, so the verdict is the same)."""
    if not sentences:
        return NliResult(None, [], 0)
    verdicts: list[bool] = []
    for sentence in sentences:
        verdicts.append(any(scorer(paragraph, sentence) >= threshold for paragraph in paragraphs))
    return NliResult(sum(verdicts) / len(verdicts), verdicts, 0)


@metric("nli")
def nli(sentences: Sequence[str], premises: Sequence[str], llm: LLM | None = None) -> float | None:
    return nli_entailment(sentences, premises, llm=llm).score


def load_nli_scorer(model_path: str) -> Scorer:
    """A local NLI model folder (transformers sequence classification with an ENTAILMENT label) as a
    scorer: the probability of entailment of a (premise, hypothesis) pair, premise cut to the model's
    limit; needs the optional transformers and torch."""
    try:
        from transformers import pipeline
    except ImportError as exc:
        from fabula.errors import BackendError

        raise BackendError(
            "a local NLI model needs transformers and torch: pip install 'fabula[hf]'"
        ) from exc
    classify = pipeline("text-classification", model=model_path, tokenizer=model_path, top_k=None)

    def entailment(premise: str, hypothesis: str) -> float:
        result = classify({"text": premise, "text_pair": hypothesis}, truncation=True)
        rows = result[0] if result and isinstance(result[0], list) else result
        return max(
            (float(r["score"]) for r in rows if str(r["label"]).lower().startswith("entail")), default=0.0
        )

    return entailment


def load_nli_classifier(model_path: str) -> Classifier:
    """A local NLI model folder (transformers sequence classification with an ENTAILMENT label) as a
    classifier; needs the optional transformers and torch."""
    try:
        from transformers import pipeline
    except ImportError as exc:
        from fabula.errors import BackendError

        raise BackendError(
            "a local NLI model needs transformers and torch: pip install 'fabula[hf]'"
        ) from exc
    classify = pipeline("text-classification", model=model_path, tokenizer=model_path)

    def entailed(premise: str, hypothesis: str) -> bool:
        result = classify({"text": premise, "text_pair": hypothesis}, truncation=True)
        label = (result[0] if isinstance(result, list) else result)["label"]
        return str(label).lower().startswith("entail")

    return entailed


# --- PRISMA-style facts ----------------------------------------------------------------------------


def _category(name: str) -> str:
    folded = " ".join(name.replace("_", " ").split()).lower()
    for category in FACT_CATEGORIES:
        if folded == category.lower() or folded.startswith(category.lower().split()[0]):
            return category
    return "Other"


@dataclass(slots=True)
class FactResult:
    """Fact precision / recall / F1 with per-category counts (supported, total) for pooling."""

    precision: float | None
    recall: float | None
    f1: float | None
    output_facts: list[dict[str, Any]] = field(default_factory=list)  # fact, category, supported
    reference_facts: list[dict[str, Any]] = field(default_factory=list)
    failures: int = 0

    def counts(self) -> dict[str, int]:
        """``fact_{p|r}_{category}_{supported|total}`` counts (snake-case categories) for pooling."""
        out: dict[str, int] = {}
        for side, facts in (("p", self.output_facts), ("r", self.reference_facts)):
            for category in FACT_CATEGORIES:
                key = category.lower().replace(" ", "_")
                of_category = [f for f in facts if f["category"] == category]
                out[f"fact_{side}_{key}_supported"] = sum(1 for f in of_category if f["supported"])
                out[f"fact_{side}_{key}_total"] = len(of_category)
        return out


def fact_scores(prediction: str, reference: str, llm: LLM) -> FactResult:
    """PRISMA-style atomic-fact precision and recall of ``prediction`` against ``reference``."""
    from fabula.llm import ask_json_many
    from fabula.prompts import load_prompt

    extract = load_prompt("describe/facts")
    categories = ", ".join(FACT_CATEGORIES)
    extracted = ask_json_many(
        llm,
        [extract.messages(text=t, categories=categories) for t in (prediction, reference)],
        _Facts,
        _options(768),
    )
    failures = sum(1 for a in extracted if not a.ok)
    sides = [
        [{"fact": f.fact.strip(), "category": _category(f.category)} for f in a.value.facts if f.fact.strip()]
        if a.ok
        else []
        for a in extracted
    ]
    check = load_prompt("describe/fact_check")
    jobs = [
        (fact, other) for facts, other in ((sides[0], reference), (sides[1], prediction)) for fact in facts
    ]
    verdicts = ask_json_many(
        llm, [check.messages(text=other, fact=fact["fact"]) for fact, other in jobs], _Verdict, _options(32)
    )
    for (fact, _), verdict in zip(jobs, verdicts, strict=True):
        fact["supported"] = bool(verdict.ok and verdict.value.entailed)
        failures += 0 if verdict.ok else 1
    output, gold = sides
    precision = sum(f["supported"] for f in output) / len(output) if output else None
    recall = sum(f["supported"] for f in gold) / len(gold) if gold else None
    f1 = (
        2 * precision * recall / (precision + recall)
        if precision is not None and recall is not None and precision + recall > 0
        else (0.0 if precision is not None and recall is not None else None)
    )
    return FactResult(precision, recall, f1, output, gold, failures)


@metric("fact_precision")
def fact_precision(prediction: str, reference: str, llm: LLM) -> float | None:
    return fact_scores(prediction, reference, llm).precision


@metric("fact_recall")
def fact_recall(prediction: str, reference: str, llm: LLM) -> float | None:
    return fact_scores(prediction, reference, llm).recall


@metric("fact_f1")
def fact_f1(prediction: str, reference: str, llm: LLM) -> float | None:
    return fact_scores(prediction, reference, llm).f1


def pooled_fact_scores(counts: dict[str, int]) -> dict[str, float | None]:
    """Per-category fact precision and recall from summed `FactResult.counts`."""
    out: dict[str, float | None] = {}
    for category in FACT_CATEGORIES:
        key = category.lower().replace(" ", "_")
        for side, name in (("p", "precision"), ("r", "recall")):
            total = counts.get(f"fact_{side}_{key}_total", 0)
            supported = counts.get(f"fact_{side}_{key}_supported", 0)
            out[f"fact_{name}_{key}"] = supported / total if total else None
    return out
