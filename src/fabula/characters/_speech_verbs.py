"""The speech verbs of one book: the lexicon's, and those the book's own speech tags use.

The lexicon (`fabula.characters.SPEECH_VERBS`, about 200 forms) cannot hold every novel's verbs: one
author's characters "quaver", "proclaim" or "entreat", another's "snarl" or "drawl". A tag whose verb
is missing is read as a beat or not at all. A book shows its own verbs in the slots only a speech tag
fills, so a word the book puts there `MIN_TAG_USES` times is taken as one of its speech verbs:

- right after a quotation that ends with a comma, and its speaker: ``"…," Nora quavered`` /
  ``"…," the keeper quavered``;
- right after a question or exclamation, and a lowercase pronoun (the sentence goes on, so it is a
  tag): ``"…?" she quavered``;
- inverted, before the speaker: ``"…," quavered Nora`` / ``"…?" quavered he``.

A word must also look like a verb of speech: a regular past ("-ed"), or a word the book uses both ways,
before and after the speaker (``"…," began Nora`` and ``"…," Nora began``), which a conjunction or an
adverb is not. Closed-class words and "-ly" adverbs never count. A slot never runs past its paragraph,
and a capitalised pronoun or article is no speaker's name: a quotation closed by a comma with no tag
(``"Happiness,"`` and then ``She paused.``, as in a sparse-tag or damaged text) teaches nothing. The
verbs are learned from the text a component is given, so a book cut at a reading position learns only
from what was read. Quote attribution reads them (`fabula.quotes._rules`, `fabula.quotes._ranker`), and
so does discovery's pass that finds lowercase roles by their tags ("said the keeper"); the rest of
discovery keeps the lexicon, since its prefix-stable layers are computed once for a whole book.

No library does this offline: a dependency parser (spaCy's small pipeline) would find the same verbs
from each tag's structure, but costs many times fabula's whole analysis, and its model is an optional
download. The regular expressions below take about 8 ms on a 160K-word novel. What it gains is in
docs/benchmarks.md ("verbs the lexicon lacks").
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from fabula.characters._lexicon import SPEECH_VERBS
from fabula.characters._text import CLOSE_QUOTES

#: uses of a word in the speech-tag slots that make it one of the book's speech verbs
MIN_TAG_USES = 3

_CLOSE = f"[{re.escape(CLOSE_QUOTES)}]"  # a closing quotation mark
_GAP = r"[ \t]*(?:\n[ \t]*)?"  # spaces, at most one line break: a tag never runs past its paragraph
_SPACE = r"[ \t]+(?:\n[ \t]*)?|[ \t]*\n[ \t]*"  # the same, at least one space or break
#: a capitalised name, not a capitalised pronoun or article that opens the next sentence
_NAME = (
    r"(?!(?:He|She|It|They|We|You|The|This|That|There|Then|But|And|As|When|What|How)\b)"
    r"(?:(?:Mrs?|Miss|Dr|Ms)\.?\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?"
)
_SPEAKER = r"(?:he|she|I|they|we|" + _NAME + r"|the\s+[a-z]+)"
_AFTER_COMMA = re.compile(r"," + _GAP + _CLOSE + f"(?:{_SPACE})" + _SPEAKER + r"\s+([a-z]+)\b")
_AFTER_MARK = re.compile(
    r"[!?\u2014-]" + _GAP + _CLOSE + f"(?:{_SPACE})" + r"(?:he|she|they|we)\s+([a-z]+)\b"
)
_BEFORE = re.compile(r"[,!?\u2014-]" + _GAP + _CLOSE + f"(?:{_SPACE})" + r"([a-z]+)\s+" + _SPEAKER + r"\b")
#: words of the slots that are never verbs of speech: conjunctions, auxiliaries, adverbs of time
_NOT_VERBS = frozenset({
    "and", "but", "then", "as", "so", "when", "while", "for", "or", "nor", "yet", "still", "now", "again",
    "was", "were", "had", "has", "have", "would", "could", "did", "does", "do", "should", "must", "might",
    "may", "will", "shall", "can", "is", "are", "am", "not", "never", "also", "only", "just", "too", "here",
    "there", "what", "who", "which", "that", "this", "all", "indeed", "need",
})  # fmt: skip


@lru_cache(maxsize=4)
def learned_speech_verbs(text: str) -> tuple[str, ...]:
    """The words ``text`` uses as speech verbs that the lexicon lacks, sorted (see the module docstring).
    Kept for the last few texts: discovery's role pass and attribution read one book's verbs in turn."""
    after = Counter(m.group(1) for m in _AFTER_COMMA.finditer(text))
    after.update(m.group(1) for m in _AFTER_MARK.finditer(text))
    before = Counter(m.group(1) for m in _BEFORE.finditer(text))
    return tuple(
        sorted(
            word
            for word in after.keys() | before.keys()
            if word not in SPEECH_VERBS
            and after[word] + before[word] >= MIN_TAG_USES
            and word not in _NOT_VERBS
            and len(word) >= 4
            and not word.endswith("ly")
            and (word.endswith("ed") or (after[word] and before[word]))
        )
    )
