"""Multiple-choice prompts and answer extraction (LFED: Yu, Liu and Xiong, LREC-COLING 2024), as
lm-evaluation-harness does it: a prompt format, then a chain of answer filters over the model's raw text.

* ``mcq`` prompt format: the paper's short or long instruction (``mcq/{short,long}_en`` word for word as its
  text prints them; ``_zh`` fabula's Chinese rendering, since the paper sends Chinese inputs), optional book
  passages (fabula's addition), n worked examples, then the title, the question, the lettered choices and the
  paper's suffix "the correct answer is:" (``mcq/suffix_*``), or on a re-run its other suffix "According to
  the above question, please output the answer directly and do not output any rationals." (``mcq/reask_*``).
* `read_choice` reads the answer with one of two chains:

  - ``paper``: the paper's script as its text describes it: exactly one answer indicator → it; several → the
    most frequent (ties: the first named; the paper does not say); none → no answer (the task re-runs);
  - ``fabula`` (default): what models actually write, in order: an answer *stated* ("The answer is A
    because…", "I would pick A", "答案是B", "选C", "D is correct"; a letter said to be wrong, "A、B都不对", is
    not a statement; the last statement wins, so a model that corrects itself is read at its conclusion) →
    the whole answer is one option's text → a refusal ("I cannot determine…", "无法确定") is no answer →
    the paper's indicator count → the text of exactly one option inside the answer.

  Each step is a plain function (``stated_letter``, ``option_letters``, ``majority_letter``,
  ``option_text``), and the rule that decided is recorded.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from fabula.llm import ParseError
from fabula.prompts._templates import load_prompt

STYLES = ("short", "long")
CHAINS = ("fabula", "paper")
CONTEXT_HEADING = {"zh": "小说原文片段：", "en": "Passages from the novel:"}
EXAMPLES_HEADING = {"zh": "例题：", "en": "Examples:"}

_FULL_WIDTH = str.maketrans("ＡＢＣＤＥＦＧＨ（）：", "ABCDEFGH():")
# An option letter standing alone (the paper's "answer indicator"); "A" before a lower-case word is the
# English article ("A man", "A wooden leg") unless that word is one that follows a chosen letter.
_FOLLOWS_LETTER = r"(?:or|and|is|was|because|since|as|seems|would|might|could|should|must|to|if|for)\b"
_LETTER = re.compile(rf"(?<![A-Za-z])(A(?![A-Za-z])(?!\s+(?!{_FOLLOWS_LETTER})[a-z])|[B-H](?![A-Za-z]))")

_OPEN = r"[\"'“‘(\[【《*]*[ \t]*"
_L = rf"(A(?![A-Za-z])(?!\s+(?!{_FOLLOWS_LETTER})[a-z])|[B-H](?![A-Za-z]))"
# Answers stated in words. Letters are upper-case only; the words around them are not case-sensitive.
_STATED = [
    # "The answer is A", "Correct answer: (B)", "my final answer would be C", "answer indicator: D"
    re.compile(
        r"(?i:\b(?:answer|choice)(?:\s+indicator)?\b(?:\s+(?:is|would\s+be|should\s+be|must\s+be|will\s+be|"
        r"seems\s+to\s+be|appears\s+to\s+be|here\s+is))?\s*[:=]?\s*(?:option\s+|letter\s+)?)" + _OPEN + _L
    ),
    # "I choose A", "I would pick A as the answer", "going with B", "I'd say C", "I think D"
    re.compile(
        r"(?i:\b(?:choose|chose|choosing|pick|picked|picking|select|selected|selecting|go\s+with|going\s+with|"
        r"opt\s+for|i'd\s+say|i\s+would\s+say|i\s+say|i\s+think|i\s+believe|i\s+guess|my\s+guess\s+is)\s+"
        r"(?:it'?s\s+|is\s+)?(?:option\s+|answer\s+|choice\s+|letter\s+)?)" + _OPEN + _L
    ),
    # "A is correct", "Option B is the right answer", "(C) would be the best choice"
    re.compile(
        r"(?<![A-Za-z])(?<!or )(?<!nor )(?<!whether )(?i:option\s+)?[(\[]?([A-H])[)\]]?\s+"
        r"(?i:is|would\s+be|seems|must\s+be|should\s+be)\s+"
        r"(?i:the\s+)?(?i:correct|right|best|answer|true)"
    ),
    # "答案：A", "正确答案是B", "答案应该是（C）", "最终答案为选项D" (on one line: an echoed "…答案：" followed
    # by the option list is no statement)
    re.compile(
        r"(?:正确答案|最终答案|最佳答案|正确选项|答案)[ \t]*(?:应该|应当|应|就)?[ \t]*(?:是|为|选)?[ \t]*[:：]?[ \t]*(?:选项)?[ \t]*"
        + _OPEN
        + _L
    ),
    # "选C", "我选择B", "应选D", "故选A"
    re.compile(r"(?:选择|选出|挑选|选)\s*[:：]?\s*(?:选项)?\s*" + _OPEN + _L),
    # "C正确", "B是对的", "D才是正确答案", "选项C最符合"
    re.compile(
        r"(?<![A-Za-z])([A-H])\s*[)）]?\s*(?:选项|项)?\s*(?:是|为|才是|最|应该是)?\s*(?:正确|对的|对|准确|最符合|符合题意|最佳|最合适|最恰当)"
    ),
    # "所以是B", "因此为C"
    re.compile(r"(?:因此|所以|故|综上所述|综上)\s*[,，]?\s*(?:是|为|应是)\s*" + _OPEN + _L),
]
# A leading letter: "A", "B.", "C) ...", "D because ...", "**A**"; not the article in "A man ...".
_LEADING = re.compile(
    r"^\s*"
    + _OPEN
    + r"([A-H])[)\]）*]*(?=\s*$|\s*[.。．:：,，、;；)\-–—]|\s+(?i:because|since|as|is|was)\b|\s*因为|\s*是)"
)
# What follows a letter that is said to be wrong ("A、B都不对", "A and B are wrong", "A is incorrect").
_NEGATED = re.compile(
    r"^[)\]）*\"'”’]*\s*(?:(?:[、,，/和与及]|(?i:and|or))\s*[(\[（]?[A-H][)\]）]?\s*)*(?:选项)?\s*(?:都|均|也|亦)?\s*"
    r"(?:不对|不正确|不是|不符|错|有误|排除|(?i:is|are|was|were|seems|would\s+be)\s+(?i:not|wrong|incorrect|false)"
    r"|(?i:isn't|aren't|can't\s+be|cannot\s+be|is\s+ruled\s+out))"
)
_REFUSAL = re.compile(
    r"(?i:\bcannot\b|\bcan't\b|\bcan\s+not\b|\bunable\b|\bnot\s+able\b|\bdon't\s+know\b|\bdo\s+not\s+know\b|"
    r"\bnot\s+sure\b|\bi'm\s+sorry\b|\bi\s+am\s+sorry\b|\bas\s+an\s+ai\b|\bnot\s+enough\s+information\b|"
    r"\binsufficient\b|\bnone\s+of\s+the\b|\bno\s+way\s+to\b)"
    r"|无法|不能确定|不确定|不知道|抱歉|对不起|没有足够|无从|不清楚|都不对|都不正确|没有正确"
)


@dataclass(frozen=True, slots=True)
class Choice:
    """The letter an answer gives (None: no answer) and the rule of the chain that decided."""

    letter: str | None
    rule: str


def format_options(options: Sequence[str]) -> str:
    """``A. first\nB. second ...``."""
    return "\n".join(f"{chr(65 + i)}. {option}" for i, option in enumerate(options))


def prompt_language(question_language: str, choice: str = "auto") -> str:
    """The language the prompt is written in: the question's own (``auto``; the paper sends Chinese inputs
    with its Chinese questions), or ``zh``/``en`` as asked."""
    if choice in ("zh", "en"):
        return choice
    return "zh" if question_language == "zh" else "en"


def mcq_prompt(
    *,
    novel: str,
    question: str,
    options: Sequence[str],
    language: str = "zh",
    style: str = "short",
    examples: Sequence[tuple[str, str, Sequence[str], str]] = (),
    context: str = "",
    reask: bool = False,
) -> str:
    """The prompt for one question in ``language`` (zh/en); ``examples`` are (novel, question, options,
    answer letter) shown first; ``reask`` ends it with the paper's "answer directly" suffix instead."""
    if style not in STYLES:
        raise ValueError(f"unknown prompt style {style!r} (short or long)")
    language = "zh" if language == "zh" else "en"
    answer_suffix = load_prompt(f"mcq/suffix_{language}").text
    shots = ""
    if examples:
        blocks = [
            f"{_title(n, language)}\n{q}\n{format_options(o)}\n{answer_suffix}{answer}"
            for n, q, o, answer in examples
        ]
        shots = f"\n{EXAMPLES_HEADING[language]}\n" + "\n\n".join(blocks) + "\n"
    passages = f"\n{CONTEXT_HEADING[language]}\n{context.strip()}\n" if context.strip() else ""
    suffix = load_prompt(f"mcq/reask_{language}").text if reask else answer_suffix
    text = load_prompt(f"mcq/{style}_{language}").render(
        novel=novel,
        question=question,
        options=format_options(options),
        examples=shots,
        context=passages,
        suffix=suffix,
    )
    return text


def _title(novel: str, language: str) -> str:
    return f"《{novel}》" if language == "zh" else f'"{novel}"'


def mcq_prompt_ids(style: str, language: str) -> list[str]:
    """``name@version`` of the templates `mcq_prompt` uses in ``language`` (recorded in reports)."""
    language = "zh" if language == "zh" else "en"
    return [load_prompt(f"mcq/{part}_{language}").id for part in (style, "suffix", "reask")]


def option_letters(raw: str, count: int = 4) -> list[str]:
    """Every option letter (of the first ``count``) the answer names, in order (the paper's "answer
    indicators")."""
    text = raw.translate(_FULL_WIDTH)
    allowed = {chr(65 + i) for i in range(count)}
    return [m.group(1) for m in _LETTER.finditer(text) if m.group(1) in allowed]


def majority_letter(raw: str, count: int = 4) -> str:
    """The one letter the answer gives, or the most frequent of several; `ParseError` when none."""
    letters = option_letters(raw, count)
    if not letters:
        raise ParseError("no option letter in the answer", raw)
    counts = Counter(letters)
    best = max(counts.values())
    return next(letter for letter in letters if counts[letter] == best)


def stated_letter(raw: str, count: int = 4) -> str:
    """The letter the answer states as its choice (the last such statement); `ParseError` when none."""
    text = raw.translate(_FULL_WIDTH)
    allowed = {chr(65 + i) for i in range(count)}
    found: list[tuple[int, str]] = []
    for pattern in (*_STATED, _LEADING):
        for match in pattern.finditer(text):
            letter = match.group(1)
            if letter in allowed and not _NEGATED.match(text, match.end(1)):
                found.append((match.start(1), letter))
    if not found:
        raise ParseError("no stated answer", raw)
    return max(found)[1]


def option_text(raw: str, options: Sequence[str] = ()) -> str:
    """The letter of the one option whose text the answer contains (an option inside another's text does
    not count); `ParseError` when none or several."""
    text = _plain(raw)
    inside = [i for i, option in enumerate(options) if _plain(option) and _plain(option) in text]
    inside = [
        i for i in inside if not any(j != i and _plain(options[i]) in _plain(options[j]) for j in inside)
    ]
    if len(inside) != 1:
        raise ParseError("no single option's text in the answer", raw)
    return chr(65 + inside[0])


def _plain(text: str) -> str:
    return re.sub(r"[\s\"'“”‘’.。,，!！?？:：;；()（）《》]+", " ", text).strip().lower()


def read_choice(raw: str, options: Sequence[str], chain: str = "fabula") -> Choice:
    """The choice an answer makes, by the ``fabula`` chain or the ``paper``'s indicator count (module doc)."""
    count = len(options)
    if chain not in CHAINS:
        raise ValueError(f"unknown extraction chain {chain!r} (fabula or paper)")
    if chain == "fabula":
        try:
            return Choice(stated_letter(raw, count), "stated")
        except ParseError:
            pass
        whole = _plain(raw)
        exact = [i for i, option in enumerate(options) if whole and _plain(option) == whole]
        if len(exact) == 1:
            return Choice(chr(65 + exact[0]), "option text")
        unquoted = raw  # an option's own words ("无法回答", LFED's counterfactual option) are no refusal
        for option in options:
            unquoted = unquoted.replace(option, " ")
        if _REFUSAL.search(unquoted.translate(_FULL_WIDTH)):
            return Choice(None, "refusal")
    letters = option_letters(raw, count)
    if letters:
        return Choice(majority_letter(raw, count), "single" if len(set(letters)) == 1 else "most frequent")
    if chain == "fabula":
        try:
            return Choice(option_text(raw, options), "option text")
        except ParseError:
            pass
    return Choice(None, "none")
