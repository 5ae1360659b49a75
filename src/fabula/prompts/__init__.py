"""Prompt templates shipped as package data: one TOML file per task and variant.

Each file holds ``version`` (recorded in every result that used it), an optional ``system`` message and
the user ``text``, with ``$name`` placeholders (`string.Template`: book text containing braces or dollar
signs is inserted verbatim, never re-interpreted). Names are paths without the suffix, e.g.
``load_prompt("quote_attribution/chunk")``.
"""

from fabula.prompts._mcq import (
    CHAINS,
    Choice,
    majority_letter,
    mcq_prompt,
    mcq_prompt_ids,
    option_letters,
    option_text,
    prompt_language,
    read_choice,
    stated_letter,
)
from fabula.prompts._templates import PromptTemplate, list_prompts, load_paper_prompt, load_prompt

__all__ = [
    "CHAINS",
    "Choice",
    "PromptTemplate",
    "list_prompts",
    "load_paper_prompt",
    "load_prompt",
    "majority_letter",
    "mcq_prompt",
    "mcq_prompt_ids",
    "option_letters",
    "option_text",
    "prompt_language",
    "read_choice",
    "stated_letter",
]
