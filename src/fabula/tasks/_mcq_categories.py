"""LFED's eight question categories, for a data set that has no category column.

LFED (Yu et al. 2024) reports accuracy per category, but its released CSV carries none. So any per-category
number fabula gives for LFED is over *approximate* categories: `categorize` is a keyword classifier written for fabula from the categories' definitions (checked against a hand-labelled
sample; see docs/mcq.md); `category_prompt`/`parse_category` let a model classify instead (cached like any
call). Categories are checked in a fixed order: the most specific cue wins (a counterfactual "如果…" is a
counterfactual whatever else it asks).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Measured on data/lfed/category_check.tsv (40 questions labelled by hand before the classifier ran on them;
# tests/tasks/test_mcq.py recomputes it), and the paper's own counts for comparison.
HELD_OUT_AGREEMENT = (19, 40)
CATEGORY_AGREEMENT = (
    f"a keyword classifier agreeing with hand labels on {HELD_OUT_AGREEMENT[0]}/{HELD_OUT_AGREEMENT[1]} "
    "held-out LFED questions (data/lfed/category_check.tsv); on all 1,304 it finds 396 plot questions where "
    "the paper counts 140"
)

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

# (category, cue words in Chinese and English); the first category with a cue in the question wins, so
# the more specific cues come first ("反映了他的什么特质" is about character, "叙事背景" about background).
_CUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("counterfactual", ("如果", "假如", "假设", "倘若", "what if", "would have", "had not")),
    (
        "characterization",
        (
            "性格",
            "形象",
            "特点",
            "特质",
            "品质",
            "为人",
            "个性",
            "态度",
            "化身",
            "怎样的人",
            "什么样的人",
            "personality",
            "trait",
            "kind of person",
        ),
    ),
    (
        "event relations",
        ("事件", "导致", "影响", "原因", "起因", "结果", "cause", "led to", "result", "effect"),
    ),
    (
        "background and theme",
        (
            "背景",
            "主题",
            "主旨",
            "时代",
            "年代",
            "社会",
            "历史",
            "启发",
            "揭示",
            "思想",
            "意义",
            "theme",
            "setting",
            "background",
            "era",
            "historical",
        ),
    ),
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
            "题材",
            "结构",
            "创作方法",
            "隐喻",
            "象征",
            "比喻",
            "style",
            "narrat",
            "point of view",
            "genre",
            "metaphor",
            "symbol",
        ),
    ),
    (
        "character relationships",
        (
            "关系",
            "是谁的",
            "父亲",
            "母亲",
            "妻子",
            "丈夫",
            "儿子",
            "女儿",
            "哥哥",
            "姐姐",
            "弟弟",
            "妹妹",
            "师父",
            "徒弟",
            "恋人",
            "爱人",
            "情人",
            "相识",
            "朋友",
            "仇人",
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
        "role behaviour",
        (
            "目的",
            "为何",
            "为什么",
            "为了",
            "选择",
            "决定",
            "做了",
            "做什么",
            "行为",
            "why",
            "decide",
            "choose",
        ),
    ),
)


def categorize(question: str, options: Sequence[str] = ()) -> str:
    """The category the question's wording points to (`CATEGORIES`); "plot" when no cue is found."""
    # LFED's counterfactual questions ask about what the book never says and offer "cannot be answered"
    if any(o.strip() in ("无法回答", "不能回答", "无法确定", "cannot be answered") for o in options):
        return "counterfactual"
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
