"""First-person narration: a tag with "I" ("said I", "I asked") goes to the narrator character, on
a passage written for this test, with discovered characters."""

from __future__ import annotations

from collections import Counter

from fabula.book import book_from_text
from fabula.characters import find_characters
from fabula.quotes import attribute_quotes, detect_quotes

NARRATION = (
    "I had not seen him for some weeks, and I found that I had missed him more than I knew. I sat and "
    "I waited, for I knew his moods, and I knew that I must not speak first. I lit my pipe; I watched "
    "the fire; I listened to the rain.\n\n"
)
PASSAGE = (
    "I called on Holmes at his rooms in Baker Street on a wet evening in March.\n\n"
    + NARRATION
    + '"You look tired, Watson," said Holmes.\n\n'
    + '"I have walked from Kensington," said I.\n\n'
    + '"And you walked fast," said Holmes.\n\n'
    + NARRATION
    + 'I laughed. "You see everything," I answered.\n\n'
    + NARRATION
    + NARRATION
    + '"Shall we walk out, Holmes?" I asked.\n'
)


def test_first_person_tags_go_to_the_narrator() -> None:
    book = book_from_text(PASSAGE)
    detect_quotes(book)
    find_characters(book)
    inside = [(s.start, s.end) for q in book.quotes for s in q.spans]
    narration_i = Counter(
        m.character_id
        for m in book.mentions
        if book.text[m.start : m.end] == "I" and not any(a <= m.start < b for a, b in inside)
    )
    narrator = narration_i.most_common(1)[0][0]  # the narrator the characters layer made a cast member
    holmes = next(c.id for c in book.characters if "Holmes" in c.name)
    assert narrator is not None and narrator != holmes
    speakers = [q.speaker_id for q in attribute_quotes(book).quotes]
    assert speakers == [holmes, narrator, holmes, narrator, narrator]
