"""LFED's eight question categories, for a data set that has no category column.

LFED (Yu et al. 2024) reports accuracy per category, but its released CSV carries none. `categorize` is a
keyword classifier written for fabula from the categories' definitions (checked against a hand-labelled
sample; see docs/mcq.md); `category_prompt`/`parse_category` let a model classify instead (cached like any
call). Categories are checked in a fixed order: the most specific cue wins (a counterfactual "如果…" is a
counterfactual whatever else it asks).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

CATEGORIES = (
    "counterfactual",
    "literary style",
    "character relationships",
    "characterization",
    "background and theme",
    "event relations",
    "role behaviour",
    "plot",
)

# (category, cue words in Chinese and English); the first category with a cue in the question wins.
_CUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("counterfactual", ("如果", "假如", "假设", "倘若", "要是", "若是", "what if", "if ", "would have")),
    (
        "literary style",
        (
            "写作",
            "手法",
            "风格",
            "叙述",
            "叙事",
            "视角",
            "人称",
            "修辞",
            "语言",
            "体裁",
            "结构",
            "笔法",
            "描写",
            "作者",
            "style",
            "narrat",
            "point of view",
            "genre",
            "metaphor",
            "symbolis",
        ),
    ),
    (
        "character relationships",
        (
            "关系",
            "是谁的",
            "的父亲",
            "的母亲",
            "的妻子",
            "的丈夫",
            "的儿子",
            "的女儿",
            "的哥哥",
            "的姐姐",
            "的弟弟",
            "的妹妹",
            "师父",
            "徒弟",
            "恋人",
            "爱人",
            "情人",
            "相识",
            "朋友",
            "仇人",
            "喜欢的人",
            "relationship",
            "related to",
            "married",
            "father",
            "mother",
            "brother",
            "sister",
            "friend",
        ),
    ),
    (
        "characterization",
        (
            "性格",
            "形象",
            "特点",
            "外貌",
            "怎样的人",
            "什么样的人",
            "品质",
            "为人",
            "个性",
            "特征",
            "personality",
            "character trait",
            "kind of person",
            "describe",
        ),
    ),
    (
        "background and theme",
        (
            "背景",
            "主题",
            "时代",
            "年代",
            "反映",
            "揭示",
            "表达",
            "象征",
            "意义",
            "思想",
            "主旨",
            "发生在",
            "地点",
            "哪里",
            "theme",
            "setting",
            "background",
            "era",
            "reflect",
        ),
    ),
    (
        "event relations",
        (
            "原因",
            "导致",
            "结果",
            "因为",
            "起因",
            "之后",
            "之前",
            "后来",
            "为什么",
            "why",
            "cause",
            "because",
            "result",
            "after",
            "before",
        ),
    ),
    (
        "role behaviour",
        (
            "做了",
            "做什么",
            "干什么",
            "行为",
            "职业",
            "工作",
            "为了",
            "如何",
            "怎么",
            "选择",
            "决定",
            "did",
            "does",
            "job",
            "decide",
        ),
    ),
)


def categorize(question: str, options: Sequence[str] = ()) -> str:
    """The category the question's wording points to (`CATEGORIES`); "plot" when no cue is found."""
    text = question.lower()
    # LFED questions start "关于《X》这本小说，": the novel's title says nothing about the category
    text = re.sub(r"^关于《[^》]*》(这本|这部)?(小说)?[，,]?", "", text)
    for category, cues in _CUES:
        if any(cue in text for cue in cues):
            return category
    return "plot"


def category_prompt(question: str, options: Sequence[str]) -> str:
    """Ask a model for the category of a question (answer: one category name)."""
    names = "\n".join(f"- {c}" for c in CATEGORIES)
    listed = "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(options))
    return (
        "Which kind of question about a novel is this? Categories:\n"
        f"{names}\n\nQuestion: {question}\n{listed}\n\nAnswer with the category name only."
    )


def parse_category(answer: str) -> str | None:
    """The one category an answer names, or None (none or several: the keyword rule is used)."""
    text = answer.lower()
    found = [c for c in CATEGORIES if c in text]
    return found[0] if len(found) == 1 else None
