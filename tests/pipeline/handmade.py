"""A small hand-annotated book (characters, mentions, quotes set by hand) for testing the pipeline's
per-character statistics and the report without depending on the discovery/attribution components."""

from __future__ import annotations

import re

from fabula.book import Book, Character, Mention, Quote, Span, book_from_text

HOSTILE = "<script>alert(1)</script> and <img src=x onerror=alert(2)> and </script><!-- end"

STORY = f"""CHAPTER I. The Garden

Alice sat by the river with her sister Mabel. The day was warm.

"What a dull book," said Alice. "It has no pictures."

"Read it anyway," said Mabel.

"I won't," Alice answered.

A White Rabbit ran past. The Rabbit muttered to itself.

"Oh dear! Oh dear! I shall be late!" said the Rabbit.

CHAPTER II. The Hall

Alice followed the Rabbit down the hole. She wrote {HOSTILE} on the wall for Mabel.

"Who are you?" asked the Rabbit.

"{HOSTILE}," said Alice.

"How odd," said the Rabbit.

CHAPTER III. The Queen

The Queen of Hearts arrived. Alice bowed to the Queen.

"Off with her head!" shouted the Queen.

"Nonsense," said Alice.

The Duchess, who had come in late, laughed at the Queen.

"Quite right," the Duchess said.
"""

CAST = {
    "alice": ("Alice", "female", ["Alice"]),
    "mabel": ("Mabel", "female", ["Mabel"]),
    "rabbit": ("White Rabbit", "male", ["White Rabbit", "Rabbit"]),
    "queen": ("Queen of Hearts", "female", ["Queen of Hearts", "Queen"]),
    "duchess": ("Duchess", "female", ["Duchess"]),
}

SPEAKER_NEAR = {"said Alice": "alice", "Alice answered": "alice", "said Mabel": "mabel",
                "said the Rabbit": "rabbit", "asked the Rabbit": "rabbit", "shouted the Queen": "queen",
                "the Duchess said": "duchess"}  # fmt: skip


def handmade_book() -> Book:
    """The story with hand-set characters, name mentions and attributed quotes."""
    book = book_from_text(STORY, source="handmade.txt")
    text = book.text
    quote_spans = [Span(m.start() + 1, m.end() - 1) for m in re.finditer(r'"[^"]*"', text)]
    inside = [(s.start, s.end) for s in quote_spans]
    mentions: list[Mention] = []
    for cid, (_, _, aliases) in CAST.items():
        for alias in sorted(aliases, key=len, reverse=True):
            for m in re.finditer(r"\b" + re.escape(alias) + r"\b", text):
                if any(s <= m.start() < e for s, e in inside):
                    continue
                if any(x.start <= m.start() < x.end for x in mentions):
                    continue
                mentions.append(Mention(m.start(), m.end(), cid, "name"))
    mentions.sort(key=lambda m: m.start)
    book.mentions = mentions
    characters = []
    for rank, (cid, (name, gender, _)) in enumerate(CAST.items(), start=1):
        own = [m for m in mentions if m.character_id == cid]
        aliases: dict[str, int] = {}
        for m in own:
            aliases[text[m.start : m.end]] = aliases.get(text[m.start : m.end], 0) + 1
        characters.append(
            Character(cid, name, aliases, gender, 0.9, len(own), own[0].start, own[-1].end, rank)
        )
    book.characters = characters
    # group sub-quotes of one utterance: "What a dull book," said Alice. "It has no pictures."
    quotes: list[Quote] = []
    for span in quote_spans:
        line_start = text.rfind("\n", 0, span.start) + 1
        line_end = text.find("\n", span.end)
        line = text[line_start:line_end]
        speaker = next((cid for cue, cid in SPEAKER_NEAR.items() if cue in line), None)
        if quotes and text.rfind("\n", 0, quotes[-1].start) + 1 == line_start:
            quotes[-1].spans.append(span)
            continue
        quotes.append(Quote(f"q{len(quotes)}", [span], speaker, [], "explicit", 1.0, "hand"))
    book.quotes = quotes
    return book
