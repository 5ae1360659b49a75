"""Sentence splitting on hand-written tricky cases, English and Chinese.

Each case is the expected list of sentences; the paragraph is them joined by one space (or by
nothing for Chinese, which puts no space between sentences). Decisions the cases pin down:

* "?"/"!" (or ",") closing a quotation do not end the sentence when narration continues in lower
  case: ``"Are you coming?" she asked.`` is one sentence.
* A quotation that holds several sentences is split at its own sentence ends, like any other
  text: ``"I am here. Where are you?" he asked.`` is two sentences (quotes are a separate layer).
* An interrupted quotation followed by a capitalised new sentence ends there:
  ``"I wonder," said he, "whether Mrs. Weston--" She stopped.`` is two sentences.
* An ellipsis followed by a capital letter ends a sentence; followed by lower case it does not.
* Chinese sentences end at 。！？ (with closing quotes attached); "……" ends one only before a closing
  quote or at the end of the paragraph; ``“你来了吗？”她问。`` is one sentence, like the English.
"""

from __future__ import annotations

import pytest

from fabula.book._segment import split_sentences
from fabula.book._spans import SpanLayer

ENGLISH: list[list[str]] = [
    # honorifics and titles
    ["Mr. Knightley came in.", "He sat down."],
    ["Mrs. Weston smiled at Mr. Woodhouse.", "Nobody spoke."],
    ["Dr. Watson was there.", "So was Mrs. Hudson."],
    ["They walked down St. James's Street together."],
    ["Yes, Dr. Bauerstein, I see."],
    ["Ms. Lee and Messrs. Smith and Jones arrived late."],
    ["Capt. Wentworth bowed to Lady Russell."],
    ["Rev. Mr. Elton was married."],
    ["He lodged with Mme. Defarge and Mlle. Manette."],
    ["Prof. Moriarty is a genius.", "He is also a criminal."],
    ["Col. Brandon is forty-five.", "He is not old."],
    ["Gen. Tilney was fond of his walks."],
    ["I saw Mr. and Mrs. Bennet at the ball."],
    ["It was very dry.", "Mr. Smith came."],
    ['"Go away!"', "Mrs. Bennet screamed."],
    ["He looked at Mr. Darcy.", "Dr. Watson left.", "St. Paul's bells rang."],
    ["She sighed.", "Mr. and Mrs. Gardiner were kind."],
    # initials
    ["J. R. R. Tolkien wrote it."],
    ["He met J. Smith at the station."],
    ["The letter was signed E. M. Forster."],
    ["I gave it to W. H. Smith yesterday.", "He said thanks."],
    # numbers and abbreviations
    ["It was 3.5 miles away."],
    ["He lived at No. 10 Downing Street."],
    ["The train left at 5 p.m. and reached London late."],
    ["We had tea, cake, etc. and then we left."],
    ["He paid £3.10s. for it."],
    ["i.e. the whole thing was a mistake."],
    # answers that look like abbreviations
    ['"No.', 'I will not."'],
    ['"So.', 'You have come at last."'],
    # dialogue with ? ! , closing the quote
    ['"Are you coming?" she asked.'],
    ['"Stop!" cried Tom.'],
    ['"Go home," said Mrs. Bennet.', '"It is late."'],
    ['"What do you mean?" asked Elizabeth, colouring.'],
    ['"Oh!" said she, "how very odd!"'],
    ['"Is it?" he whispered.', '"I never knew."'],
    ['"I wonder," said he, "whether Mrs. Weston--"', "She stopped."],
    ['He said, "I am tired."', "Then he slept."],
    ['"I am here.', 'Where are you?" he asked.'],
    ["\"He said 'No!' and left,\" she told me."],
    ["'Tis true!", "'Tis pity."],
    ["\u201cAre you mad?\u201d she cried.", "\u201cI am not.\u201d"],
    ["\u201cI will go,\u201d said Jane; \u201cyou need not.\u201d"],
    ["\u2018Who are you?\u2019 said the Caterpillar."],
    ['"Well?" said Holmes.'],
    # ellipses
    ["I thought... maybe not."],
    ["I don't know...", "She turned away."],
    ["Wait\u2026 what was that?"],
    ['"Perhaps . . . perhaps not," he said.'],
    # dashes
    ["I was going to\u2014but no matter.", "We left."],
    ["He was\u2014how shall I put it?\u2014a trifle odd."],
    ["It was--I am sure of it--the same man."],
    # parentheses
    ["(He never came back.)", "She waited."],
    ["She left (quietly, as always) and shut the door."],
    ["The house (it was called Hartfield) stood on a hill.", "It was old."],
    # exclamations and questions in narration
    ["How strange!", "What could it mean?", "She did not know."],
    ["Was it possible?", "Yes!"],
    # hard-wrapped lines inside a paragraph
    [
        "Emma Woodhouse, handsome, clever, and rich, with a comfortable\nhome, seemed to unite some of the best blessings.",
        "She was happy.",
    ],
    ["It was Mr.\nKnightley who spoke first."],
    # chapter-like words and lists
    ["See Chap. 4 for the rest."],
    ["He lived in Vol. II of the story."],
    ["It was the 4th of July.", "Everyone cheered."],
    ["The U.S.S. Enterprise was launched."],
]

CHINESE: list[list[str]] = [
    ["他说：\u201c你好。\u201d", "然后走了。"],
    ["\u201c你来了吗？\u201d她问。"],
    ["\u201c快走！\u201d他喊道。"],
    ["\u201c我来了。", "你在哪？\u201d他问。"],
    ["天亮了。", "鸡叫了。", "人们起床了。"],
    ["真的吗？", "我不信！"],
    ["什么？！", "你再说一遍。"],
    ["他犹豫了……终于开口。"],
    ["她沉默了很久……"],
    ["价格是3.5元。", "太贵了。"],
    ["他说：「好。」", "然后就走了。"],
    ["宝玉笑道：\u201c好妹妹，你别生气。\u201d"],
    ["黛玉听了，冷笑道：\u201c我原是给你们取笑的。\u201d", "说着便哭了。"],
    ["第二天一早，他就出发了；路上很冷。"],
    ["\u201c谁？\u201d", "\u201c是我。\u201d"],
    ["他说OK！", "然后走了。"],
    ["她问道：\u201c你为什么不来？\u201d", "他没有回答。"],
    ["这是《红楼梦》中的一段。", "很有名。"],
    ["\u201c唉……\u201d", "他叹了口气。"],
    ["雨停了，风也小了，可是天还是阴的。"],
    ["\u201c你是谁？\u201d老人问道。", "\u201c我是过路的。\u201d"],
    ["他想：这件事怎么办呢？", "没有人知道。"],
]


def _split(sentences: list[str], language: str) -> list[str]:
    text = ("" if language == "zh" else " ").join(sentences)
    layer = split_sentences(text, SpanLayer([0], [len(text)]), language)
    return [text[s:e] for s, e in layer.pairs()]


def _id(case: list[str]) -> str:
    return " | ".join(case)[:60]


@pytest.mark.parametrize("sentences", ENGLISH, ids=[_id(c) for c in ENGLISH])
def test_english_sentences(sentences: list[str]) -> None:
    assert _split(sentences, "en") == sentences


@pytest.mark.parametrize("sentences", CHINESE, ids=[_id(c) for c in CHINESE])
def test_chinese_sentences(sentences: list[str]) -> None:
    assert _split(sentences, "zh") == sentences
