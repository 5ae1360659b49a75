"""Scores that need a judge model (BookWorm's QA, NLI and PRISMA metrics), through the LLM layer.

- QA (``qa_em``, ``qa_f1``; BookWorm §4.5): the judge writes questions with short answers from the
  reference; each question is answered from the reference itself and kept only when that answer matches
  the judge's answer exactly after SQuAD normalisation (round-trip filtering, Alberti et al. 2019); the
  kept questions are answered from the output and scored with SQuAD EM/F1 against the reference's
  answers. The answers come from an extractive reader when one is given (``reader``: the paper's
  fine-tuned RoBERTa; `load_qa_reader` reads a local transformers question-answering folder), else from
  the judge generatively ("unanswerable" scores 0).
- NLI (``nli``): share of the output's sentences entailed by the book: the paper's maximum over all
  paragraphs with a local classifier (`nli_max_entailment`), or a judge on one passage per sentence.
- PRISMA (``fact_precision``/``fact_recall``/``fact_f1``; Mahon and Lapata 2024 as BookWorm uses it,
  Appendix B): three separate prompts, the paper's Tables 11-13 word for word: facts are extracted
  sentence by sentence (the sentence marked ``<SOS>…<EOS>`` in its text), each fact is verified True/False
  against the other text, and each fact is classified Role / Relationship / Personality / Event / Mental
  state / Other; precision is the share of the output's facts the reference supports, recall the share of
  the reference's facts the output supports. Counts per category are kept for pooling.

Every judge answer is untrusted and parsed strictly (JSON by `fabula.llm.ask_json_many`; PRISMA's plain
answers by `parse_fact_lines`, `parse_true_false`, `parse_category`): an unparseable answer counts as
"not supported"/"wrong"/"Other", and the number of such failures is returned so reports can show it. The
judge should be a different model from the one whose output is judged (BookWorm: GPT-3.5 for the QA
pairs, GPT-4o-mini for PRISMA); `fabula eval describe --judge SPEC` takes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from fabula.metrics._registry import metric
from fabula.metrics._text import exact_match, token_f1

if TYPE_CHECKING:
    from fabula.llm import LLM

FACT_CATEGORIES = ("Role", "Relationship", "Personality", "Event", "Mental state", "Other")
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


def _options(max_tokens: int = 512) -> Any:
    from fabula.llm import GenerateOptions

    return GenerateOptions(max_tokens=max_tokens, temperature=0.0, json_mode=True)


def _plain(max_tokens: int) -> Any:
    """PRISMA's prompts ask for plain text (a list of facts, True/False, a category): greedy, no JSON mode
    (the paper gives no decoding settings for GPT-4o-mini)."""
    from fabula.llm import GenerateOptions

    return GenerateOptions(max_tokens=max_tokens, temperature=0.0)


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


Reader = Callable[[str, str], str]  # (question, context) -> the answer span


def _answer_prompts(text: str, questions: Sequence[str]) -> list[Any]:
    from fabula.prompts import load_prompt

    template = load_prompt("describe/qa_answer")
    return [template.messages(text=text, question=q, unanswerable=UNANSWERABLE) for q in questions]


def _answers(llm: LLM, reader: Reader | None, text: str, questions: Sequence[str]) -> list[tuple[str, bool]]:
    """Each question answered from ``text``: by the extractive reader when given, else by the judge;
    (answer, parsed) pairs."""
    if reader is not None:
        return [(reader(question, text), True) for question in questions]
    from fabula.llm import ask_json_many

    answers = ask_json_many(llm, _answer_prompts(text, questions), _Answer, _options(64))
    return [(a.value.answer if a.ok else "", a.ok) for a in answers]


def qa_scores(
    prediction: str,
    reference: str,
    llm: LLM,
    *,
    questions: int = QUESTIONS,
    reader: Reader | None = None,
) -> QAResult:
    """Questions the judge ``llm`` writes from ``reference``, round-trip filtered (the answer from the
    reference must match exactly, SQuAD-normalised), answered from ``prediction`` and scored SQuAD-style;
    answers by ``reader`` (an extractive QA model) when given, else by the judge."""
    from fabula.llm import ask_json
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
    kept = []
    for (question, gold), (answer, ok) in zip(
        pairs, _answers(llm, reader, reference, [q for q, _ in pairs]), strict=True
    ):
        failures += 0 if ok else 1
        if ok and exact_match(answer, gold) == 1.0:
            kept.append((question, gold))
    if not kept:
        return QAResult(None, None, len(pairs), 0, failures)
    records = []
    for (question, gold), (given, ok) in zip(
        kept, _answers(llm, reader, prediction, [q for q, _ in kept]), strict=True
    ):
        failures += 0 if ok else 1
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


QA_MAX_LENGTH = 384  # tokens per window of question + context (SQuAD fine-tuning's usual setting)
QA_STRIDE = 128  # tokens of context shared by consecutive windows
QA_MAX_ANSWER = 30  # tokens at most in an answer span


def load_qa_reader(model_path: str, *, max_length: int = QA_MAX_LENGTH, stride: int = QA_STRIDE) -> Reader:
    """A local extractive question-answering model folder (transformers ``AutoModelForQuestionAnswering``,
    e.g. a RoBERTa fine-tuned on SQuAD or, as BookWorm, on its own QA pairs) as a reader: the context is
    read in overlapping windows and the answer is the span with the highest start + end logit over all
    windows (start ≤ end, at most `QA_MAX_ANSWER` tokens, inside the context), as SQuAD readers decode.
    Needs the optional transformers and torch (transformers 5 has no question-answering pipeline)."""
    try:
        import torch
        from transformers import AutoModelForQuestionAnswering, AutoTokenizer
    except ImportError as exc:
        from fabula.errors import BackendError

        raise BackendError(
            "a local QA reader needs transformers and torch: pip install 'fabula[hf]'"
        ) from exc
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    model = AutoModelForQuestionAnswering.from_pretrained(model_path)
    model.eval()
    limit = min(max_length, int(getattr(model.config, "max_position_embeddings", max_length) or max_length))

    def read(question: str, context: str) -> str:
        if not context.strip() or not question.strip():
            return ""
        encoded = tokenizer(
            question,
            context,
            truncation="only_second",
            max_length=limit,
            stride=min(stride, limit // 4),
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
            padding=True,
            return_tensors="pt",
        )
        offsets = encoded.pop("offset_mapping").tolist()
        encoded.pop("overflow_to_sample_mapping", None)
        with torch.no_grad():
            logits = model(
                **{k: v for k, v in encoded.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
            )
        best: tuple[float, int, int] | None = None
        for window in range(len(offsets)):
            in_context = [sid == 1 for sid in encoded.sequence_ids(window)]
            starts, ends = logits.start_logits[window].tolist(), logits.end_logits[window].tolist()
            for i, start_ok in enumerate(in_context):
                if not start_ok:
                    continue
                for j in range(i, min(i + QA_MAX_ANSWER, len(in_context))):
                    if not in_context[j]:
                        break
                    score = starts[i] + ends[j]
                    if best is None or score > best[0]:
                        best = (score, offsets[window][i][0], offsets[window][j][1])
        return "" if best is None else context[best[1] : best[2]].strip()

    return read


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


# --- PRISMA facts -----------------------------------------------------------------------------------

SOS, EOS = "<SOS>", "<EOS>"
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d{1,3}[.)])\s+(?P<fact>\S.*)$")
_NO_FACTS = re.compile(r"no (?:verifiable )?(?:claims?|facts?)", re.IGNORECASE)
_TRUTH = re.compile(r"^[\s\"'*(\[]*(?:output\s*:\s*)?(?P<word>true|false)\b", re.IGNORECASE)


def parse_fact_lines(answer: str) -> list[str] | None:
    """The facts of an extraction answer: lines that start with ``-``, ``*``, ``•`` or ``1.``; an answer
    saying there is no claim gives none; anything else is unparseable (None)."""
    facts = [m.group("fact").strip() for line in answer.splitlines() if (m := _BULLET.match(line))]
    if facts:
        return facts
    return [] if not answer.strip() or _NO_FACTS.search(answer) else None


def parse_true_false(answer: str) -> bool | None:
    """A verification answer that starts with True or False (optionally after ``Output:`` or quotes);
    anything else is None."""
    match = _TRUTH.match(answer)
    return None if match is None else match.group("word").lower() == "true"


def parse_category(answer: str) -> str | None:
    """A classification answer (the paper asks for "just a single or two words") as one of
    `FACT_CATEGORIES` ("Events" is Event, "Other Fact" is Other); anything else is None."""
    words = re.sub(r"[^a-z ]", " ", answer.lower()).split()
    if not words or len(words) > 4:
        return None
    head = " ".join(words[:2])
    for category, forms in (
        ("Mental state", ("mental state", "mental")),
        ("Role", ("role",)),
        ("Relationship", ("relationship", "relationships")),
        ("Personality", ("personality",)),
        ("Event", ("event", "events")),
        ("Other", ("other fact", "other")),
    ):
        if any(head == form or words[0] == form for form in forms):
            return category
    return None


def _sentences(text: str) -> list[tuple[int, int]]:
    from fabula.book import SpanLayer, split_sentences

    if not text.strip():
        return []
    return list(split_sentences(text, SpanLayer([0], [len(text)]), "en").pairs())


@dataclass(slots=True)
class FactResult:
    """Fact precision / recall / F1 with per-category counts (supported, total) for pooling."""

    precision: float | None
    recall: float | None
    f1: float | None
    output_facts: list[dict[str, Any]] = field(default_factory=list)  # fact, category, supported
    reference_facts: list[dict[str, Any]] = field(default_factory=list)
    failures: int = 0
    calls: dict[str, int] = field(default_factory=dict)  # per prompt: extract, verify, classify

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


def extract_facts(text: str, llm: LLM) -> tuple[list[str], int]:
    """PRISMA step 1 (Table 11): one call per sentence of ``text``, the sentence marked ``<SOS>…<EOS>``
    in the whole text; (facts in order, unparseable answers)."""
    from fabula.prompts import load_prompt

    template, examples = (
        load_prompt("describe/prisma_extract"),
        load_prompt("describe/prisma_extract_examples"),
    )
    spans = _sentences(text)
    prompts = [
        template.messages(
            examples=examples.text,
            snippet=f"{text[:start]}{SOS}{text[start:end]}{EOS}{text[end:]}",
            sentence=text[start:end],
        )
        for start, end in spans
    ]
    answers = llm.generate_many(prompts, _plain(512))
    facts: list[str] = []
    failures = 0
    for answer in answers:
        parsed = None if answer.error else parse_fact_lines(answer.text)
        failures += parsed is None
        facts.extend(parsed or [])
    return facts, failures


def fact_scores(prediction: str, reference: str, llm: LLM) -> FactResult:
    """PRISMA precision and recall of ``prediction`` against ``reference`` by the judge ``llm``: facts
    extracted from each text (Table 11), each verified against the other text (Table 12) and classified
    against its own (Table 13) — three separate prompts."""
    from fabula.prompts import load_prompt

    (out_facts, out_failed), (ref_facts, ref_failed) = (
        extract_facts(t, llm) for t in (prediction, reference)
    )
    failures = out_failed + ref_failed
    verify, examples = load_prompt("describe/prisma_verify"), load_prompt("describe/prisma_verify_examples")
    classify = load_prompt("describe/prisma_classify")
    jobs = [(fact, reference, prediction) for fact in out_facts] + [
        (fact, prediction, reference) for fact in ref_facts
    ]
    verdicts = llm.generate_many(
        [verify.messages(examples=examples.text, context=other, fact=fact) for fact, other, _ in jobs],
        _plain(8),
    )
    classes = llm.generate_many(
        [classify.messages(description=own, fact=fact) for fact, _, own in jobs], _plain(8)
    )
    records: list[dict[str, Any]] = []
    for (fact, _, _), verdict, category in zip(jobs, verdicts, classes, strict=True):
        supported = None if verdict.error else parse_true_false(verdict.text)
        kind = None if category.error else parse_category(category.text)
        failures += (supported is None) + (kind is None)
        records.append({"fact": fact, "category": kind or "Other", "supported": bool(supported)})
    output, gold = records[: len(out_facts)], records[len(out_facts) :]
    precision = sum(bool(f["supported"]) for f in output) / len(output) if output else None
    recall = sum(bool(f["supported"]) for f in gold) / len(gold) if gold else None
    f1 = (
        2 * precision * recall / (precision + recall)
        if precision is not None and recall is not None and precision + recall > 0
        else (0.0 if precision is not None and recall is not None else None)
    )
    calls = {
        "extract": len(_sentences(prediction)) + len(_sentences(reference)),
        "verify": len(jobs),
        "classify": len(jobs),
    }
    return FactResult(precision, recall, f1, output, gold, failures, calls)


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
