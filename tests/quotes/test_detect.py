"""Quote detection on hand-written passages: one test per convention the detector handles."""

from __future__ import annotations

from fabula.annotation import annotate
from fabula.book import book_from_text
from fabula.quotes import detect_quote_style, detect_quotes
from fabula.quotes._detect import _UNMARKED_SPAN


def _quotes(text: str, language: str | None = None) -> list[list[str]]:
    book = book_from_text(text, language=language)
    return [[book.text[s.start : s.end] for s in q.spans] for q in detect_quotes(book)]


def test_straight_double_quotes_exclude_the_marks() -> None:
    assert _quotes('He looked up.\n\n"Good morning," he said.\n') == [["Good morning,"]]


def test_curly_double_quotes() -> None:
    assert _quotes("“Come in,” said Anne.\n\n“Thank you.”\n") == [["Come in,"], ["Thank you."]]


def test_interrupted_quote_is_one_quote_with_two_spans() -> None:
    assert _quotes('"Yes," said he, "I will."\n') == [["Yes,", "I will."]]


def test_sentence_ending_sub_quote_then_narration_starts_a_new_quote() -> None:
    text = '"I will go." She turned to the window and waited a long time. "Now."\n'
    assert _quotes(text) == [["I will go."], ["Now."]]


def test_narration_ending_in_a_colon_introduces_a_new_quote() -> None:
    assert _quotes('"Well," he said, and she answered: "No."\n') == [["Well,"], ["No."]]


def test_british_single_quotes_ignore_apostrophes() -> None:
    text = (
        "'I don't know,' said Alice, 'but 'tis the boys' room, isn't it?'\n\n"
        "The Rabbit's ears twitched. 'Of course it is.'\n"
    )
    assert _quotes(text) == [["I don't know,", "but 'tis the boys' room, isn't it?"], ["Of course it is."]]


def test_single_quotes_before_words_that_could_be_elisions() -> None:
    # a capitalised word after the mark opens a speech ("'Is", "'Round"); only 'Tis and kin are elided
    text = "'What is his name?'\n\n'Bingley.'\n\n'Is he married or single?'\n\n'Round the corner,' said he.\n"
    assert _quotes(text) == [
        ["What is his name?"],
        ["Bingley."],
        ["Is he married or single?"],
        ["Round the corner,"],
    ]
    # after a speech tag's comma, the mark resumes the speech, even before "is" ('is = his in dialect)
    text = "'Pride,' observed Mary, who read a great deal, 'is a very common failing.'\n"
    assert _quotes(text) == [["Pride,", "is a very common failing."]]
    # inside a speech and in plain narration the elisions stay elisions
    assert _quotes("'I saw 'im,' said he, 'on 'is horse.'\n") == [["I saw 'im,", "on 'is horse."]]
    assert _quotes("He knocked 'im down, and 'is hat fell off.\n") == []


def test_a_dropped_letter_at_a_word_end_does_not_close_a_single_quoted_speech() -> None:
    # goin', an', o': the speech closes at the punctuated mark later in its paragraph; a lowercase word
    # after a mark inside the speech is elided ('fore, 'long), and so is an old "'T ain't"
    text = (
        "'I'm goin' down to the village,' said Tom. 'Ye'll be wantin' summat?'\n\n"
        "'Nothin' but a bit o' bacon,' said his mother. 'An' mind you come home 'fore dark.'\n\n"
        "''T ain't far,' said he. 'I'll be back 'long before supper. 'T is no matter.'\n"
    )
    assert _quotes(text) == [
        ["I'm goin' down to the village,", "Ye'll be wantin' summat?"],
        ["Nothin' but a bit o' bacon,", "An' mind you come home 'fore dark."],
        ["'T ain't far,", "I'll be back 'long before supper. 'T is no matter."],
    ]
    # a close after a letter still closes: before a speech that opens, and at the paragraph's end
    assert _quotes("'Hush' said Mary, 'the baby is asleep.'\n\n'T. Smith,' he read.\n") == [
        ["Hush", "the baby is asleep."],
        ["T. Smith,"],
    ]
    # a speech interrupted by narration between dashes, or the spaces left where a text dropped them:
    # the same spans as with double marks
    for gap in ("\u2014the doctor went on\u2014", "   the doctor went on   ", " the doctor went on "):
        double = _quotes(f'"I should say"{gap}"that it is poison."\n')
        assert [span for quote in double for span in quote] == ["I should say", "that it is poison."]
        assert _quotes(f"'I should say'{gap}'that it is poison.'\n") == double


def test_british_punctuation_after_the_closing_mark() -> None:
    # logical punctuation: the mark closes before a comma or a full stop
    text = "'I don't know', said Tom. 'Perhaps tomorrow'.\n\n'It was the boys', not mine.'\n"
    assert _quotes(text) == [["I don't know", "Perhaps tomorrow"], ["It was the boys', not mine."]]


def test_nested_quote_stays_inside_the_outer_one() -> None:
    text = "\"He told me 'never again,' and left,\" said Jane.\n"
    assert _quotes(text) == [["He told me 'never again,' and left,"]]


def test_multi_paragraph_speech_is_one_quote_per_paragraph_linked_by_flags() -> None:
    text = '"The first part of my story is long.\n\n"And the second part ends here."\n\nShe stopped.\n'
    book = book_from_text(text)
    quotes = detect_quotes(book)
    assert [book.text[q.start : q.end] for q in quotes] == [
        "The first part of my story is long.",
        "And the second part ends here.",
    ]
    assert "continues" in quotes[0].flags and "continuation" in quotes[1].flags
    assert "unclosed" not in quotes[0].flags


def test_unbalanced_mark_is_closed_at_the_paragraph_end_and_flagged() -> None:
    text = 'He said "stop and went home.\n\nIt rained all night.\n\n"Good," said Mary.\n'
    book = book_from_text(text)
    quotes = detect_quotes(book)
    texts = [book.text[q.start : q.end] for q in quotes]
    assert texts == ["stop and went home.", "Good,"]
    assert quotes[0].flags == ["unclosed"]


def test_scare_quotes_inside_a_sentence_are_not_dialogue() -> None:
    assert _quotes('She disliked the word "clever" and left.\n\n"Why?" asked Tom.\n') == [["Why?"]]


def test_em_dash_dialogue() -> None:
    text = "—Where are you going? —asked the old man—. It is late.\n\n—Home.\n\nThey walked on.\n"
    assert _quotes(text) == [["Where are you going?", "It is late."], ["Home."]]


DASH_SCENE = (
    "Nora Holloway came down to the quay at dawn. Kit Ashdown was already there.\n\n"
    "— You are late, said Kit.\n\n"
    "— The tide is late, Nora answered. She threw her bag into the boat.\n\n"
    "— Will you take the oars?\n\n"
    "— If I must.\n\n"
    "— Where is Tom? asked Nora after a while.\n\n"
    "— Asleep, said Kit. — He always does.\n\n"
    "— Late, said Nora, but not too late.\n\n"
    "— Well, Nora.\n\n"
    "Kit shipped the oars. — Ashore! proclaimed Kit.\n\n"
    "Nora shook her head and replied, — Not now.\n"
)


def test_a_speech_tag_set_off_by_a_comma_ends_a_dash_speech() -> None:
    # "— Late, said Kit.": translations and Irish novels set the tag off with a comma and no dash; after a
    # tag ending in a comma the speech goes on, after one ending the sentence the narration does, until a
    # dash opens speech again; a name spoken to is no tag ("— Well, Nora."); a paragraph of narration
    # opens a speech with a dash after a sentence's end, a colon or a speech verb and its comma; after
    # "!" or "?" a lowercase word begins a tag whatever the verb
    assert _quotes(DASH_SCENE) == [
        ["You are late,"],
        ["The tide is late,"],
        ["Will you take the oars?"],
        ["If I must."],
        ["Where is Tom?"],
        ["Asleep,", "He always does."],
        ["Late,", "but not too late."],
        ["Well, Nora."],
        ["Ashore!"],
        ["Not now."],
    ]


def test_dash_speeches_go_to_the_speakers_their_tags_name() -> None:
    book = book_from_text(DASH_SCENE)
    annotate(book, {"speakers"})
    kit, nora = (next(c.id for c in book.characters if name in c.all_names()) for name in ("Kit", "Nora"))
    speakers = [q.speaker_id for q in book.quotes]
    assert speakers[:2] == [kit, nora]
    assert speakers[4:7] == [nora, kit, nora]


UNMARKED_SCENE = (
    "Nora Holloway came home late. Kit Ashdown was in the kitchen, reading.\n\n"
    "You're back early, he said.\n\n"
    "Am I? Nora said. I thought I was late.\n\n"
    "Kit put the paper down. Where were you?\n\n"
    "Out, said Nora. With Tom, if you must know.\n\n"
    "I'm not starting anything, said Kit, not tonight.\n\n"
    "He went out. She sat at the table for a long time.\n\n"
) + "".join(f"Goodnight, {a} said.\n\nGoodnight, said {b}.\n\n" for a, b in [("Kit", "Nora")] * 4)


def test_dialogue_without_marks_is_read_from_its_tags() -> None:
    # no quotation marks at all, as some novels of today write dialogue: a tagged paragraph is speech up
    # to its tag (and on after a tag's comma), an untagged one when it speaks to someone or asks; the
    # rest is narration
    book = book_from_text(UNMARKED_SCENE)
    assert detect_quote_style(book).kind == "unmarked"
    assert _quotes(UNMARKED_SCENE)[:5] == [
        ["You're back early,"],
        ["Am I?"],
        ["Kit put the paper down. Where were you?"],
        ["Out,"],
        ["I'm not starting anything,", "not tonight."],
    ]
    annotate(book, {"speakers"})
    kit, nora = (next(c.id for c in book.characters if name in c.all_names()) for name in ("Kit", "Nora"))
    assert [q.speaker_id for q in book.quotes][3:7] == [nora, kit, kit, nora]


def test_a_book_with_quotation_marks_is_not_read_as_unmarked() -> None:
    # a title in quotation marks does not make a book without marks for its dialogue a marked one ...
    text = UNMARKED_SCENE.replace("reading.", 'reading "The Times".', 1) + UNMARKED_SCENE * 4
    assert len(text) > _UNMARKED_SPAN and detect_quote_style(book_from_text(text)).kind == "unmarked"
    # ... but a dozen marked speeches do
    marked = "".join(f'"Line {i}," said Kit.\n\n' for i in range(12)) + UNMARKED_SCENE
    assert detect_quote_style(book_from_text(marked)).kind == "double"


def test_chinese_corner_and_curly_quotes() -> None:
    corner = "他说：「你好。」\n\n她答道：「我很好，『谢谢』。」\n"
    assert _quotes(corner, language="zh") == [["你好。"], ["我很好，『谢谢』。"]]
    curly = "他说：“你好。”\n\n她笑了。\n"
    assert _quotes(curly, language="zh") == [["你好。"]]


def test_ids_are_in_text_order_and_set_on_the_book() -> None:
    book = book_from_text('"One," said A.\n\n"Two," said B.\n')
    quotes = detect_quotes(book)
    assert [q.id for q in quotes] == ["Q0", "Q1"]
    assert book.quotes is quotes


def test_a_single_quoted_speech_may_open_with_any_latin_capital() -> None:
    # the style is read from the opening marks before a capital, which any Latin capital may be
    text = "‘Łukasz, come here,’ said his mother.\n\n‘Élise is late,’ he said.\n"
    assert _quotes(text) == [["Łukasz, come here,"], ["Élise is late,"]]


def test_single_open_counts_what_the_plain_pattern_counted() -> None:
    """`_SINGLE_OPEN` opens with the mark (so `re` skips to marks) and checks the character before it
    afterwards: as many matches as the plain pattern it replaced, on random texts of marks, spaces and
    letters (from any position, as a scan resumed after a match reads) and on the shared novels."""
    import random
    import re

    from fabula._letters import LATIN_UPPER
    from fabula.quotes._detect import _SINGLE_OPEN
    from tests.conftest import PDNC_DIR, pdnc_novel_dir

    plain = re.compile(rf"(?:^|[\s(\[—])[‘'](?=[{LATIN_UPPER}])")
    rng = random.Random(29)
    pieces = ["‘", "'", "’", " ", "\n", "(", "[", "—", "A", "a", "Z", "Ł", "ł", ".", "-", "\t"]
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
        assert len(_SINGLE_OPEN.findall(text)) == len(plain.findall(text)), text
        resume = [m.end() for m in _SINGLE_OPEN.finditer(text)]  # where `_prefix_segments` resumes
        for at in resume:
            assert len(_SINGLE_OPEN.findall(text, at)) == len(plain.findall(text, at)), (text, at)
    pdnc_novel_dir("Emma")  # skips when the shared data is absent
    found = 0
    for path in sorted(PDNC_DIR.glob("*/novel_text.txt")):
        text = path.read_text(encoding="utf-8")
        found += len(_SINGLE_OPEN.findall(text))
        assert len(_SINGLE_OPEN.findall(text)) == len(plain.findall(text)), path.parent.name
    assert found > 100
