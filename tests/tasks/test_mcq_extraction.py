"""LFED answer extraction: the answers models actually give, in Chinese and English, and what each chain reads.

Each row: the raw answer, the letter the ``fabula`` chain reads (None: no answer, the task re-runs), and the
rule that decides. The options are those of one four-way question (`OPTIONS`).
"""

from __future__ import annotations

import pytest

from fabula.prompts import read_choice

OPTIONS = ("Huang Rong", "Guo Jing", "The Little Dragon Girl", "无法回答")

TABLE: list[tuple[str, str | None, str]] = [
    # terse letters
    ("A", "A", "stated"),
    ("B", "B", "stated"),
    ("C.", "C", "stated"),
    ("D)", "D", "stated"),
    ("(B)", "B", "stated"),
    ("[C]", "C", "stated"),
    ("**A**", "A", "stated"),
    ("  c  ", None, "none"),  # a lower-case letter is not an indicator
    ("Ｂ", "B", "stated"),  # full-width
    ("（Ｃ）", "C", "stated"),
    ("E", None, "none"),  # not one of the four options
    # English statements
    ("The answer is A because the hero leaves home.", "A", "stated"),
    ("The answer is A.", "A", "stated"),
    ("Answer: D", "D", "stated"),
    ("The correct answer is: C", "C", "stated"),
    ("the correct answer is: B", "B", "stated"),
    ("My final answer would be (B).", "B", "stated"),
    ("I choose A since she is his teacher.", "A", "stated"),
    ("I would pick A as the answer.", "A", "stated"),
    ("I'd go with C here.", "C", "stated"),
    ("I'd say B.", "B", "stated"),
    ("I think it's D.", "D", "stated"),
    ("Option C is the right answer.", "C", "stated"),
    ("A is correct: she taught him.", "A", "stated"),
    ("B would be the best choice.", "B", "stated"),
    ("A because she was his first master.", "A", "stated"),
    ("A. Huang Rong", "A", "stated"),
    ("C) The Little Dragon Girl, who raised him in the tomb.", "C", "stated"),
    ("Answer: A man who taught him, so C.", "C", "single"),  # "A man" is an article
    ("A man with a wooden leg, so the answer is C", "C", "stated"),
    ("B is wrong and so is D; the answer is A.", "A", "stated"),
    ("A is not correct. The answer is B.", "B", "stated"),
    ("Not A. I choose C.", "C", "stated"),
    ("Let me think. A is plausible, but on reflection the answer is C.", "C", "stated"),
    (
        "Yang Guo's favourite master is the woman who raised him in the Ancient Tomb. She taught him the "
        "Jade Maiden Heart Sutra and he later married her, so the correct answer is C.",
        "C",
        "stated",
    ),
    ("Answer indicator: B", "B", "stated"),
    ("I select option D.", "D", "stated"),
    # Chinese statements
    ("答案：A", "A", "stated"),
    ("答案是B。", "B", "stated"),
    ("正确答案是：C", "C", "stated"),
    ("正确答案是（D）", "D", "stated"),
    ("答案应该是C，因为小龙女是他的师父。", "C", "stated"),
    ("答案为选项B", "B", "stated"),
    ("答案：A、B都不对，选C", "C", "stated"),
    ("选C", "C", "stated"),
    ("我选择B。", "B", "stated"),
    ("应选D", "D", "stated"),
    ("故选A。", "A", "stated"),
    ("C正确。", "C", "stated"),
    ("B是对的，A和C都不对。", "B", "stated"),
    ("D才是正确答案", "D", "stated"),
    ("A不对，B也不对，C正确。", "C", "stated"),
    ("所以是B", "B", "stated"),
    ("C。小龙女是杨过的师父，也是他最爱的人。", "C", "stated"),
    ("B 郭靖", "B", "single"),  # a letter then the option's text: one indicator
    ("根据小说内容，杨过最喜欢的师父是小龙女，所以正确答案是C。", "C", "stated"),
    ("最终答案：D", "D", "stated"),
    # the option's text instead of a letter
    ("The Little Dragon Girl", "C", "option text"),
    ("小龙女？不，The Little Dragon Girl.", "C", "option text"),
    ("Guo Jing.", "B", "option text"),
    ("无法回答", "D", "option text"),  # LFED's counterfactual option, answered in words
    ("It is Huang Rong, clearly.", "A", "option text"),
    # refusals and non-answers
    ("I cannot determine the answer from the information given.", None, "refusal"),
    ("I'm sorry, I don't know this novel.", None, "refusal"),
    ("I am not sure whether A or B is right.", None, "refusal"),
    ("抱歉，我无法回答这个问题。", None, "refusal"),
    ("我不知道。", None, "refusal"),
    ("这个问题我不确定，可能是A也可能是B。", None, "refusal"),
    ("", None, "none"),
    ("Hmm.", None, "none"),
    ("……", None, "none"),
    # SmolLM2's echo of the instruction and the options: no statement, four indicators once each
    (
        "根据给定的问题选择所需的答案：\n\nA. Huang Rong\nB. Guo Jing\nC. 小龙女\nD. 无法回答",
        "A",
        "most frequent",
    ),
    # several indicators, no statement: the most frequent (the paper's rule)
    ("B or C? C; C.", "C", "most frequent"),
    ("A, B", "A", "stated"),  # a leading letter
    ("(A) or (B)", "A", "stated"),
]


def test_the_table_holds_at_least_sixty_answer_styles() -> None:
    assert len(TABLE) >= 60 and len({raw for raw, _, _ in TABLE}) == len(TABLE)


@pytest.mark.parametrize(("raw", "letter", "rule"), TABLE)
def test_the_fabula_chain_reads_each_answer_style(raw: str, letter: str | None, rule: str) -> None:
    choice = read_choice(raw, OPTIONS)
    assert (choice.letter, choice.rule) == (letter, rule)


@pytest.mark.parametrize(
    ("raw", "letter"),
    [
        ("B", "B"),
        ("The answer is A because the hero leaves home.", "A"),  # one indicator
        ("答案：A、B都不对，选C", "A"),  # three indicators once each: the first (the paper names no tie rule)
        ("B or C? C; C.", "C"),
        ("The Little Dragon Girl", None),  # the paper reads letters only
        ("I cannot say: A or B.", "A"),
    ],
)
def test_the_paper_chain_counts_answer_indicators(raw: str, letter: str | None) -> None:
    assert read_choice(raw, OPTIONS, chain="paper").letter == letter
