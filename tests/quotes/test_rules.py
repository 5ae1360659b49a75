"""The rule sieve on hand-written passages, one test per sieve, with gold characters."""

from __future__ import annotations

import pytest

from fabula.book import Book, Character, book_from_text
from fabula.characters import find_characters
from fabula.errors import ConfigError
from fabula.quotes import (
    AttributionResult,
    attribute_quotes,
    attribution_method,
    available_methods,
    detect_quotes,
)

CAST = [
    Character("emma", "Emma Woodhouse", {"Emma": 0, "Miss Woodhouse": 0}, gender="female", source="gold"),
    Character("knightley", "Mr. Knightley", {"Knightley": 0}, gender="male", source="gold"),
    Character("harriet", "Harriet Smith", {"Harriet": 0}, gender="female", source="gold"),
]


def _run(text: str, cast: list[Character] = CAST) -> Book:
    """``text`` with its quotes detected, ``cast`` matched as the gold list and the rule sieve run."""
    book = book_from_text(text)
    detect_quotes(book)
    find_characters(book, gold=cast)
    attribute_quotes(book, method="rules")
    return book


def _speakers(book: Book) -> list[str | None]:
    return [q.speaker_id for q in book.quotes]


def test_explicit_tag_after_the_quote() -> None:
    book = _run('The morning was fine.\n\n"I shall walk," said Emma.\n\n"Do," said Mr. Knightley.\n')
    assert _speakers(book) == ["emma", "knightley"]
    assert [q.type for q in book.quotes] == ["explicit", "explicit"]
    assert book.quotes[0].method == "rules:tag" and book.quotes[0].confidence > 0.9
    assert book.text[book.quotes[0].mention.start : book.quotes[0].mention.end] == "Emma"  # type: ignore[union-attr]


def test_name_before_verb_and_tag_before_the_quote() -> None:
    book = _run('Harriet replied, "Oh, yes!"\n\nMr. Knightley said, "Then go."\n')
    assert _speakers(book) == ["harriet", "knightley"]


def test_lead_in_subject_is_the_name_that_starts_a_clause() -> None:
    book = _run(
        'Emma rose, half meaning to go, but Harriet rose at the same moment, and saying, "Stay!" '
        "led the way.\n\n"
        'Emma was sent away, and Harriet, embracing Mr. Knightley, thus began: "Yes, it is so."\n'
    )
    assert _speakers(book) == ["harriet", "harriet"]  # not the sentence's first name, not the object


def test_lead_in_paragraph_ending_in_a_speech_verb_without_punctuation() -> None:
    book = _run(
        "Emma sat down by the window.\n\nMr. Knightley looked at the fire a long while and replied thus\n\n"
        '"My dear Emma, I have the highest opinion of you."\n'
    )
    assert _speakers(book) == ["knightley"]
    assert book.quotes[0].method == "rules:tag"


def test_pronoun_tag_resolved_in_the_paragraph() -> None:
    book = _run('Mr. Knightley came in and sat down. "It is cold," he said.\n\nEmma smiled.\n')
    assert book.quotes[0].speaker_id == "knightley"
    assert book.quotes[0].type == "anaphoric"


def test_pronoun_tag_skips_the_person_addressed() -> None:
    text = 'Emma and Harriet sat together.\n\n"Harriet, you must listen," she said.\n'
    assert _run(text).quotes[0].speaker_id == "emma"


def test_pronoun_subject_before_the_verb_beats_the_name_after_it() -> None:
    # "she asked Harriet": the pronoun before the verb is the subject, the name after it the addressee
    book = _run('Emma came in.\n\n"Shall we walk?" she asked Harriet.\n')
    assert book.quotes[0].speaker_id == "emma"
    assert book.text[book.quotes[0].mention.start : book.quotes[0].mention.end] == "she"  # type: ignore[union-attr]


def test_beat_without_speech_verb() -> None:
    book = _run('Emma and Mr. Knightley waited.\n\n"Very well." Mr. Knightley turned away.\n')
    assert book.quotes[0].speaker_id == "knightley"
    assert book.quotes[0].method == "rules:beat"


def test_alternation_fills_untagged_turns() -> None:
    text = (
        'Emma met Mr. Knightley in the lane.\n\n"Good morning," said Emma.\n\n'
        '"Good morning," said Mr. Knightley.\n\n"Are you going to Hartfield?"\n\n"I am."\n'
    )
    book = _run(text)
    assert _speakers(book) == ["emma", "knightley", "emma", "knightley"]
    assert book.quotes[2].method == "rules:alternation" and book.quotes[2].type == "implicit"


def test_vocative_names_the_next_speaker_and_the_addressee() -> None:
    text = (
        'Emma, Harriet and Mr. Knightley sat in the parlour.\n\n"Harriet, what do you think?" said Emma.\n\n'
        '"I hardly know."\n'
    )
    book = _run(text)
    assert book.quotes[0].addressee_ids == ["harriet"]
    assert book.quotes[1].speaker_id == "harriet"
    assert book.quotes[1].method == "rules:vocative"


def test_paragraph_mention_when_nothing_else_applies() -> None:
    book = _run('Mr. Knightley looked grave; he had thought about it all night. "No."\n')
    assert book.quotes[0].speaker_id == "knightley"


def test_multi_paragraph_speech_keeps_its_speaker() -> None:
    text = (
        '"I will tell you everything," said Mr. Knightley. "It began long ago.\n\n'
        '"And it has not ended."\n\n"Go on," said Emma.\n'
    )
    book = _run(text)
    assert _speakers(book) == ["knightley", "knightley", "emma"]


def test_unknown_method_is_a_config_error() -> None:
    book = book_from_text('"Hi," said Emma.\n')
    detect_quotes(book)
    with pytest.raises(ConfigError, match="unknown attribution method"):
        attribute_quotes(book, method="no-such-method")


def test_registered_method_is_used_with_its_options() -> None:
    @attribution_method("test-constant")
    def constant(book: Book, *, who: str = "x") -> AttributionResult:
        for quote in book.quotes:
            quote.speaker_id, quote.method = who, "test-constant"
        return AttributionResult(book.quotes, {"who": who})

    assert "test-constant" in available_methods() and "rules" in available_methods()
    book = book_from_text('"Hi," said Emma.\n')
    detect_quotes(book)
    result = attribute_quotes(book, method="test-constant", who="emma")
    assert [q.speaker_id for q in result.quotes] == ["emma"]
    assert result.report == {"who": "emma"}  # the method's account comes back as a value


def _run_with(text: str, cast: list[Character]) -> Book:
    book = book_from_text(text)
    detect_quotes(book)
    find_characters(book, gold=cast)
    attribute_quotes(book, method="rules")
    return book


def test_tags_that_name_a_gold_role_in_lowercase_or_a_bare_address() -> None:
    cast = [
        Character("mariner", "The Mariner", {"The Mariner": 0}, gender="male", source="gold"),
        Character("marvel", "Mr. Marvel", {"Marvel": 0}, gender="male", source="gold"),
        Character("reisz", "Mademoiselle Reisz", {}, gender="female", source="gold"),
    ]
    book = _run_with(
        'Mr. Marvel sat on the bench.\n\n"Fine day," said the mariner.\n\n"Very," said Mr. Marvel.\n\n'
        '"Play it again," said Mademoiselle.\n\n"Ask Monsieur Ratignolle," said Mr. Marvel.\n',
        cast,
    )
    assert _speakers(book) == ["mariner", "marvel", "reisz", "marvel"]


def test_a_shared_first_name_goes_to_the_one_whose_family_is_in_the_cast() -> None:
    cast = [
        Character("charles_m", "Charles Musgrove", {"Charles Musgrove": 0}, gender="male", source="gold"),
        Character("mary", "Mary Musgrove", {"Mary": 0}, gender="female", source="gold"),
        Character("charles_h", "Charles Hayter", {"Hayter": 0}, gender="male", source="gold"),
        Character("sir_john", "John Middleton", {"Sir John": 0}, gender="male", source="gold"),
        Character("john_d", "John Dashwood", {"Mr. Dashwood": 0}, gender="male", source="gold"),
    ]
    book = _run_with(
        "Charles Hayter came in. Charles Musgrove did not. Sir John Middleton and John Dashwood sat.\n\n"
        '"Well," said Charles.\n\n'
        '"Indeed," said John.\n',
        cast,
    )
    assert _speakers(book) == ["charles_m", "john_d"]
