"""Multiple-choice prompts and answer extraction, as lm-evaluation-harness does it: a prompt format, then a
chain of answer filters over the model's raw text.

* ``mcq`` prompt format: instruction (``short``/``long``; Chinese for Chinese questions), optional book
  passages, n worked examples, the question with lettered options, and the answer cue (``答案：`` /
  ``Answer:``), from the versioned templates ``mcq/{short,long}_{zh,en}``.
* ``option_letters`` filter: every option letter the answer names, in order (``"答案是B"``, ``"(C)"``,
  ``"Answer: D."``, full-width ``Ｂ``); an English article ("A man ...") is not a letter.
* ``majority_letter`` filter: one letter → it; several → the most frequent (ties: the first named);
  none → `ParseError` (the task then re-asks with `ANSWER_DIRECTLY`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from fabula.llm import ParseError
from fabula.prompts._formats import answer_filter, prompt_format

STYLES = ("short", "long")
ANSWER_DIRECTLY = {"zh": "请直接回答选项字母。", "en": "Answer directly with the option letter only."}
EXAMPLE_CUE = {"zh": "答案：", "en": "Answer:"}
CONTEXT_HEADING = {"zh": "小说原文片段：", "en": "Passages from the novel:"}
EXAMPLES_HEADING = {"zh": "例题：", "en": "Examples:"}

_FULL_WIDTH = str.maketrans("ＡＢＣＤＥＦＧＨ", "ABCDEFGH")
# A letter standing alone, not inside a word; "A" before a lower-case word is the English article ("A man",
# "A wooden leg"), unless that word joins options ("A or B", "A and C", "A is right").
_LETTER = re.compile(r"(?<![A-Za-z])(A(?![A-Za-z])(?!\s+(?!(?:or|and|is)\b)[a-z])|[B-H](?![A-Za-z]))")


def format_options(options: Sequence[str]) -> str:
    """``A. first\nB. second ...``."""
    return "\n".join(f"{chr(65 + i)}. {option}" for i, option in enumerate(options))


@prompt_format("mcq")
def mcq_prompt(
    *,
    novel: str,
    question: str,
    options: Sequence[str],
    language: str = "zh",
    style: str = "short",
    examples: Sequence[tuple[str, Sequence[str], str]] = (),
    context: str = "",
) -> str:
    """The prompt for one question; ``examples`` are (question, options, answer letter) shown first."""
    from fabula.prompts import load_prompt

    if style not in STYLES:
        raise ValueError(f"unknown prompt style {style!r} (short or long)")
    language = "zh" if language == "zh" else "en"
    shots = ""
    if examples:
        blocks = [f"{q}\n{format_options(o)}\n{EXAMPLE_CUE[language]}{answer}" for q, o, answer in examples]
        shots = f"\n{EXAMPLES_HEADING[language]}\n" + "\n\n".join(blocks) + "\n"
    passages = f"\n{CONTEXT_HEADING[language]}\n{context.strip()}\n" if context.strip() else ""
    return load_prompt(f"mcq/{style}_{language}").render(
        novel=novel, question=question, options=format_options(options), examples=shots, context=passages
    )


def mcq_prompt_id(style: str, language: str) -> str:
    """``name@version`` of the template `mcq_prompt` uses (recorded in reports)."""
    from fabula.prompts import load_prompt

    return load_prompt(f"mcq/{style}_{'zh' if language == 'zh' else 'en'}").id


@answer_filter("option_letters")
def option_letters(raw: str, count: int = 4) -> list[str]:
    """Every option letter (of the first ``count``) the answer names, in order."""
    text = raw.translate(_FULL_WIDTH)
    allowed = {chr(65 + i) for i in range(count)}
    return [m.group(1) for m in _LETTER.finditer(text) if m.group(1) in allowed]


@answer_filter("majority_letter")
def majority_letter(raw: str, count: int = 4) -> str:
    """The one letter the answer gives, or the most frequent of several; `ParseError` when none."""
    letters = option_letters(raw, count)
    if not letters:
        raise ParseError("no option letter in the answer", raw)
    counts = Counter(letters)
    best = max(counts.values())
    return next(letter for letter in letters if counts[letter] == best)
