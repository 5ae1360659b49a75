"""Chinese character discovery: person names from jieba's part-of-speech tags (``nr``).

jieba (already a dependency for Chinese tokens) tags person names ``nr``; names seen at least twice
become characters. A given name that ends a unique longer name (宝玉 in 贾宝玉) joins it.
Pronouns are not resolved for Chinese.
"""

from __future__ import annotations

import re
from collections import Counter

from fabula.book import Book, Character, Mention

MIN_COUNT = 2


def discover_chinese(book: Book) -> tuple[list[Character], list[Mention]]:
    """Characters and name mentions of a Chinese book."""
    import jieba.posseg as pseg

    counts: Counter[str] = Counter()
    text = book.text
    for start, end in book.paragraphs.pairs():
        for pair in pseg.cut(text[start:end]):
            if pair.flag == "nr" and 2 <= len(pair.word) <= 4:
                counts[pair.word] += 1
    names = [n for n, c in counts.items() if c >= MIN_COUNT]
    names.sort(key=lambda n: (-len(n), -counts[n]))
    owner: dict[str, str] = {}
    characters: list[Character] = []
    for name in names:
        longer = [o for o in owner if len(o) > len(name) and o.endswith(name) and owner[o] == o]
        if len(longer) == 1:
            owner[name] = longer[0]
        else:
            owner[name] = name
            characters.append(Character(id=f"D{len(characters) + 1}", name=name, source="predicted"))
    ids = {c.name: c.id for c in characters}
    mentions: list[Mention] = []
    if owner:
        pattern = re.compile("|".join(re.escape(n) for n in sorted(owner, key=len, reverse=True)))
        for m in pattern.finditer(text, book.body.start, book.body.end):
            mentions.append(Mention(m.start(), m.end(), ids[owner[m.group()]], "name", 0.8))
    return characters, mentions
