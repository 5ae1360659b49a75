"""Extractive sheets: which sentences each method picks, characteristic lines, and spoiler safety."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from fabula.book import Book
from fabula.characters import find_characters, resolve_name
from fabula.describe import (
    K_BY_KIND,
    candidate_sentences,
    characteristic_lines,
    extractive_methods,
    select_sentences,
)
from fabula.errors import ConfigError
from fabula.quotes import attribute_quotes


def _alice_id(book: Book) -> str:
    character = resolve_name(book.characters, "Alice")
    assert character is not None
    return character.id


def test_lead_is_the_first_k_sentences_naming_the_character(alice_book: Book) -> None:
    alice = _alice_id(alice_book)
    pool = candidate_sentences(alice_book, alice)
    assert len(pool) > 100 and all(a.end <= b.start for a, b in itertools.pairwise(pool))
    chosen = select_sentences(alice_book, alice, k=4, method="lead")
    assert chosen == pool[:4]
    assert "Alice" in chosen[0].text and "tired of sitting by her sister" in chosen[0].text
    assert K_BY_KIND == {"description": 4, "analysis": 25}
    assert len(select_sentences(alice_book, alice, k=K_BY_KIND["analysis"])) == 25


def test_random_is_seeded_and_every_method_gives_k_distinct_sentences_in_book_order(alice_book: Book) -> None:
    alice = _alice_id(alice_book)
    first = select_sentences(alice_book, alice, method="random", seed=1)
    assert first == select_sentences(alice_book, alice, method="random", seed=1)
    assert first != select_sentences(alice_book, alice, method="random", seed=2)
    assert set(extractive_methods()) == {"lead", "random", "centroid", "textrank"}
    for method in extractive_methods():
        chosen = select_sentences(alice_book, alice, k=4, method=method)
        assert len({c.index for c in chosen}) == 4, method
        assert [c.start for c in chosen] == sorted(c.start for c in chosen), method
    assert select_sentences(alice_book, alice, method="centroid") != select_sentences(alice_book, alice)


def test_bad_method_or_k_is_a_config_error(alice_book: Book) -> None:
    with pytest.raises(ConfigError, match="unknown extractive method"):
        select_sentences(alice_book, _alice_id(alice_book), method="best")
    with pytest.raises(ConfigError, match="k must be"):
        select_sentences(alice_book, _alice_id(alice_book), k=0)


def test_characteristic_lines_are_the_speakers_own(alice_book: Book) -> None:
    lines = characteristic_lines(alice_book, 3)
    alice = _alice_id(alice_book)
    assert 1 <= len(lines[alice]) <= 3
    said = {
        " … ".join(alice_book.span_text(s, normalize=True) for s in q.spans)
        for q in alice_book.quotes
        if q.speaker_id == alice
    }
    assert all(line in said for line in lines[alice])
    assert all(6 <= len(line.split()) <= 40 for line in lines[alice])


def test_a_truncated_book_gives_sentences_only_before_the_position(alice_book: Book) -> None:
    until = alice_book.chapters[2].end
    early = alice_book.truncated(until)
    find_characters(early)
    alice = _alice_id(early)
    for method in extractive_methods():
        chosen = select_sentences(early, alice, k=25, method=method)
        assert chosen and all(c.end <= until for c in chosen)


def test_sheet_sentences_are_about_the_character() -> None:
    """Headings, dialogue, bare dialogue tags and '<name>'s mother' sentences are not a sheet's lead."""
    from fabula.book import book_from_text
    from fabula.describe._sheet import sheet_candidates
    from fabula.quotes import detect_quotes

    text = (
        "CHAPTER I. Miss Harriet Vane\n\n"
        "Miss Harriet Vane's mother had died many years before the story begins.\n\n"
        '"Harriet is a dear girl," said her aunt.\n\n'
        '"I shall go," said Harriet.\n\n'
        "Harriet Vane walked to the village every morning and wrote her letters at the inn.\n\n"
        "Nobody in the village knew that Harriet wrote detective novels for a living.\n"
    )
    book = book_from_text(text)
    detect_quotes(book)
    find_characters(book)
    harriet = resolve_name(book.characters, "Harriet")
    assert harriet is not None
    every = [c.text for c in candidate_sentences(book, harriet.id)]
    chosen = [c.text for c in sheet_candidates(book, harriet.id, 2)]
    assert chosen == [
        "Harriet Vane walked to the village every morning and wrote her letters at the inn.",
        "Nobody in the village knew that Harriet wrote detective novels for a living.",
    ]
    assert len(every) > len(chosen)
    # fewer sentences about her than asked for: every sentence naming her, as before
    assert sheet_candidates(book, harriet.id, 3) == candidate_sentences(book, harriet.id)


def test_characteristic_lines_have_content_words(alice_book: Book) -> None:
    from fabula.describe._lines import MIN_CONTENT_WORDS, content_words

    assert content_words("Yes, I see it is, sir,") == set()
    assert content_words("My poor nerves are quite shattered by Lady Catherine") == {
        "poor", "nerves", "quite", "shattered", "lady", "catherine"
    }  # fmt: skip
    for lines in characteristic_lines(alice_book, 3).values():
        assert all(len(content_words(line)) >= MIN_CONTENT_WORDS for line in lines)


def test_characteristic_lines_are_distinct_and_names_count_for_nothing() -> None:
    """A speaker's most characteristic words were the names of whom they talk to: two lines that differ
    only in the name addressed ("Oh, <name>, whatever …") were both shown, a line said twice in one
    quotation was shown twice over, and a line full of a name ranked first."""
    from fabula.book import book_from_text
    from fabula.quotes import detect_quotes

    text = (
        "CHAPTER I.\n\n"
        "Anna Price and Bell Carter lived together in the old grey house beside the river.\n\n"
        '"Oh, Bell, whatever can you possibly mean?" said Anna.\n\n'
        '"Oh, Miss Carter, whatever can you possibly mean?" said Anna.\n\n'
        '"Bother the chimney sweeps and their ladders," said Anna, "bother the chimney sweeps and their '
        'ladders!"\n\n'
        '"I shall plant turnips and marrows in the orchard before the frost comes," said Anna.\n\n'
        '"The weather grows colder every single morning, my dear Anna," said Bell.\n\n'
        '"The post brings nothing but bills and sermons these days," said Bell.\n\n'
        '"Anna, Anna, dear Anna Price, where have you hidden the kettle?" said Bell.\n'
    )
    book = book_from_text(text)
    detect_quotes(book)
    find_characters(book)
    attribute_quotes(book)
    anna, bell = (resolve_name(book.characters, name) for name in ("Anna", "Bell"))
    assert anna is not None and bell is not None
    lines = characteristic_lines(book, 3)
    assert len([line for line in lines[anna.id] if "whatever can you possibly mean" in line]) == 1
    assert "Bother the chimney sweeps and their ladders," in lines[anna.id]  # once, not "… bother …"
    assert "I shall plant turnips and marrows in the orchard before the frost comes," in lines[anna.id]
    assert lines[bell.id][-1] == "Anna, Anna, dear Anna Price, where have you hidden the kettle?"


def test_a_line_that_names_its_own_speaker_is_not_shown() -> None:
    """People seldom name themselves: a line attributed to the person it names ("Good-by, my sweet
    <name>") is most often someone else's, and never stands for the voice of the one it names."""
    from fabula.book import book_from_text
    from fabula.quotes import detect_quotes

    text = (
        "CHAPTER I.\n\n"
        "Anna Price and Bell Carter lived together in the old grey house beside the river.\n\n"
        '"I shall plant turnips and marrows in the orchard before the frost comes," said Anna.\n\n'
        '"Good-by, my sweet Anna, tell me good-by before the coach leaves the square," said Anna.\n\n'
        '"The post brings nothing but bills and sermons these days," said Bell.\n'
    )
    book = book_from_text(text)
    detect_quotes(book)
    find_characters(book)
    attribute_quotes(book)
    anna = resolve_name(book.characters, "Anna")
    assert anna is not None
    assert [q.speaker_id for q in book.quotes][:2] == [anna.id, anna.id]
    assert characteristic_lines(book, 3)[anna.id] == [
        "I shall plant turnips and marrows in the orchard before the frost comes,"
    ]


def test_a_novels_characteristic_lines_are_distinct(pdnc_dir: Path) -> None:
    """On a real novel no speaker's sheet shows two lines that are the same once the capitalised words
    (the names addressed) are left out, nor a line that repeats one of its pieces."""
    import re

    from fabula.book import load_book
    from fabula.pipeline import analyze_book
    from tests.conftest import pdnc_novel_dir

    analysis = analyze_book(load_book(pdnc_novel_dir("ARoomWithAView") / "novel_text.txt"))

    def plain(text: str) -> str:
        return " ".join(w.lower() for w in re.findall(r"[\w']+", text) if not w[:1].isupper())

    speakers = [profile for profile in analysis.characters if len(profile.lines) > 1]
    assert len(speakers) >= 10
    for profile in speakers:
        assert len({plain(line) for line in profile.lines}) == len(profile.lines), profile.lines
        for line in profile.lines:
            pieces = [plain(piece) for piece in line.split(" … ")]
            assert len(set(pieces)) == len(pieces), line


def test_coreference_candidates_add_the_pronoun_sentences(alice_book: Book) -> None:
    """The paper's lead-k takes sentences where coreference finds the character: pronouns count."""
    alice = _alice_id(alice_book)
    named = candidate_sentences(alice_book, alice)
    every = candidate_sentences(alice_book, alice, coreference=True)
    assert len(every) > len(named)
    pronoun_only = [
        c
        for c in every
        if not any(
            m.character_id == alice and m.kind != "pronoun" and c.start <= m.start < c.end
            for m in alice_book.mentions
        )
    ]
    assert pronoun_only  # sentences where only her pronouns (resolved to her) appear


def test_sheet_candidates_match_a_plain_scan_on_a_novel() -> None:
    """The quotations and mentions around each sentence are found by bisection (a sheet of a main
    character read every later quotation and mention once per sentence: quadratic); the sentences kept
    must be exactly those of the plain scan, for every speaking character of a real novel."""
    import bisect

    from fabula.book import load_book
    from fabula.describe._sheet import _QUOTED, _WORD, NARRATION_WORDS, _inside, _possessive, sheet_candidates
    from fabula.pipeline import analyze_book
    from tests.conftest import pdnc_novel_dir

    def about(book: Book, candidate: object, mentions: list, quoted: list) -> bool:  # the code before
        start, end = candidate.start, candidate.end  # type: ignore[attr-defined]
        if any(
            c.heading is not None and c.heading.start < end and start < c.heading.end for c in book.chapters
        ):
            return False
        first = bisect.bisect_left(quoted, (start,)) - 1
        spans = [q for q in quoted[max(0, first) :] if q[0] < end and start < q[1]]
        spans = list(itertools.takewhile(lambda q: q[0] < end, spans))
        spans += [(m.start(), m.end()) for m in _QUOTED.finditer(book.text, start, end)]
        outside = [w for w in _WORD.finditer(book.text, start, end) if not _inside(spans, w.start())]
        if len(outside) < NARRATION_WORDS:
            return False
        first = bisect.bisect_left([m.start for m in mentions], start)
        inside = list(itertools.takewhile(lambda m: m.start < end, mentions[first:]))
        narrated = [m for m in inside if not _inside(spans, m.start)]
        if inside and not narrated:
            return False
        named = [m for m in narrated if m.kind != "pronoun"] or narrated
        return not named or not all(_possessive(book.text, m.end) for m in named)

    whole = load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt")
    book = analyze_book(whole.truncated(whole.body.start + (whole.body.end - whole.body.start) * 3 // 5)).book
    quoted = sorted((span.start, span.end) for q in book.quotes for span in q.spans)
    checked = 0
    for character in book.characters:
        mentions = sorted((m for m in book.mentions if m.character_id == character.id), key=lambda m: m.start)
        pool = candidate_sentences(book, character.id)
        expected = [c for c in pool if about(book, c, mentions, quoted)]
        for k in (1, 4):
            assert sheet_candidates(book, character.id, k) == (expected if len(expected) >= k else pool)
            lead = expected[:k] if len(expected) >= k else pool[:k]
            assert (
                select_sentences(
                    book, character.id, k=k, candidates=sheet_candidates(book, character.id, k, first=True)
                )
                == lead
            )
        checked += len(pool)
    assert checked > 200
