"""Chapter detection: hand-counted chapters of real PDNC novels, and every heading form fabula claims to know."""

from __future__ import annotations

import pytest

from fabula.book import book_from_text, load_book
from tests.conftest import pdnc_novel_dir

# Counted by hand in each novel_text.txt (grep of the heading lines, then reading the numbering):
# Emma has three volumes (18 + 18 + 19 chapters, numbering restarts per volume); Pride and Prejudice
# numbers 1-23, 1-19, 1-19 under VOL. II./VOL. III.; The Sun Also Rises has BOOK I-III over chapters
# 1-19; Daisy Miller has only PART I and PART II; The Age of Innocence numbers I.-XXXIV. across Book I
# and Book II (and its "M. Riviere bowed ..." paragraph is not chapter M); A Room with a View has a
# four-line Chapter VI title and a sentence "Chapter two was found, ..." that is not a heading.
# All 21 novels are listed: every count was checked against the text.
EXPECTED_CHAPTERS = {
    "Emma": 55,
    "PrideAndPrejudice": 61,
    "TheSunAlsoRises": 19,
    "TheMysteriousAffairAtStyles": 13,
    "AlicesAdventuresInWonderland": 12,
    "DaisyMiller": 2,
    "TheAgeOfInnocence": 34,
    "ARoomWithAView": 20,
    "TheAwakening": 39,
    "TheGambler": 17,
    "TheSportOfTheGods": 18,
    "NorthangerAbbey": 31,
    "SenseAndSensibility": 50,
    # one "CHAPTER n" line per chapter, numbered 1..n without gaps (grep count = last number)
    "AnneOfGreenGables": 38,
    "HowardsEnd": 44,
    "NightAndDay": 34,
    "Persuasion": 24,
    "TheInvisibleMan": 28,
    "TheManWhoWasThursday": 15,
    "ThePictureOfDorianGray": 20,
    "TheSignOfTheFour": 12,
}


@pytest.mark.parametrize(("novel", "expected"), sorted(EXPECTED_CHAPTERS.items()))
def test_pdnc_chapter_counts(novel: str, expected: int) -> None:
    book = load_book(pdnc_novel_dir(novel) / "novel_text.txt")
    assert len(book.chapters) == expected
    assert not any(c.synthetic for c in book.chapters)
    assert [c.id for c in book.chapters] == list(range(expected))


def test_pdnc_chapter_titles_and_parts() -> None:
    room = load_book(pdnc_novel_dir("ARoomWithAView") / "novel_text.txt")
    assert room.chapters[5].title is not None
    assert room.chapters[5].title.startswith("Chapter VI: The Reverend Arthur Beebe")
    assert room.chapters[5].title.endswith("Italians Drive Them.")
    assert [c.part for c in room.chapters[6:8]] == ["PART ONE", "Part Two"]
    emma = load_book(pdnc_novel_dir("Emma") / "novel_text.txt")
    assert (emma.chapters[18].part, emma.chapters[18].title) == ("VOLUME II", "CHAPTER I")
    assert emma.text[emma.chapters[18].start :].startswith("VOLUME II")  # the part heading opens its chapter
    styles = load_book(pdnc_novel_dir("TheMysteriousAffairAtStyles") / "novel_text.txt")
    assert styles.chapters[5].title == "CHAPTER VI. THE INQUEST"
    innocence = load_book(pdnc_novel_dir("TheAgeOfInnocence") / "novel_text.txt")
    assert [c.title for c in innocence.chapters[24:27]] == ["XXV.", "XXVI.", "XXVII."]


FILLER = (
    "It was a fine morning, and the village lay quiet under the hill. Nobody stirred in the street,\n"
    "and the baker had not yet opened his shop. Somewhere a dog barked twice and then was still."
)


def _book(*headings: str, zh: bool = False) -> list[str | None]:
    filler = "天气很好，村子里静悄悄的。谁也没有出门，只有一只狗叫了两声。" if zh else FILLER
    text = "\n\n".join(f"{h}\n\n{filler}\n\n{filler}" for h in headings) + "\n"
    book = book_from_text(text)
    assert book.meta.language == ("zh" if zh else "en")
    return [c.title for c in book.chapters]


@pytest.mark.parametrize(
    ("headings", "titles"),
    [
        (["CHAPTER I", "CHAPTER II", "CHAPTER III"], ["CHAPTER I", "CHAPTER II", "CHAPTER III"]),
        (["Chapter 1", "Chapter 2"], ["Chapter 1", "Chapter 2"]),
        (["Chapter 1.", "Chapter 2: The Storm"], ["Chapter 1.", "Chapter 2: The Storm"]),
        (["CHAPTER THE FIRST", "CHAPTER THE SECOND", "CHAPTER THE LAST"], None),
        (["Chapter One", "Chapter Two"], None),
        (["Chapter Twenty", "Chapter Twenty-One"], None),
        (["I.", "II.", "III.", "IV."], ["I.", "II.", "III.", "IV."]),
        (["I", "II", "III"], ["I", "II", "III"]),
        (["I: THE HAMILTONS", "II: A FAREWELL DINNER", "III: THE THEFT"], None),
        (["IV THE HUMAN CHESS BOARD", "V THE LION", "VI THE END"], None),
        (["1.", "2.", "3."], ["1.", "2.", "3."]),
        (["1", "2", "3", "4"], ["1", "2", "3", "4"]),
        (["STAVE I", "STAVE II"], ["STAVE I", "STAVE II"]),
        (["LETTER 1", "LETTER 2"], ["LETTER 1", "LETTER 2"]),
    ],
)
def test_heading_forms(headings: list[str], titles: list[str] | None) -> None:
    assert _book(*headings) == (titles or headings)


def test_heading_followed_by_title_line_takes_it() -> None:
    assert _book("CHAPTER I.\n\nThe Bertolini", "CHAPTER II.\n\nIn Santa Croce") == [
        "CHAPTER I. The Bertolini",
        "CHAPTER II. In Santa Croce",
    ]
    assert _book("CHAPTER I\n\nThe Bertolini", "CHAPTER II\n\nIn Santa Croce") == [
        "CHAPTER I: The Bertolini",
        "CHAPTER II: In Santa Croce",
    ]


def test_parts_with_chapters() -> None:
    text = "\n\n".join(
        ["BOOK I", "CHAPTER I", FILLER, "CHAPTER II", FILLER, "BOOK II", "CHAPTER III", FILLER, FILLER]
    )
    book = book_from_text(text)
    assert [(c.part, c.title) for c in book.chapters] == [
        ("BOOK I", "CHAPTER I"),
        ("BOOK I", "CHAPTER II"),
        ("BOOK II", "CHAPTER III"),
    ]
    assert book.text[book.chapters[0].start :].startswith("BOOK I")
    assert book.text[book.chapters[2].start :].startswith("BOOK II")
    assert book.text[: book.chapters[1].end].endswith(FILLER)  # BOOK II belongs to chapter III


@pytest.mark.parametrize("part_word", ["PART", "VOLUME", "Book"])
def test_parts_only_become_chapters(part_word: str) -> None:
    assert _book(f"{part_word} I", f"{part_word} II") == [f"{part_word} I", f"{part_word} II"]


def test_chinese_headings() -> None:
    assert _book("第一章", "第二章 风雪", "第三章", zh=True) == ["第一章", "第二章 风雪", "第三章"]
    assert _book("第1回", "第2回", zh=True) == ["第1回", "第2回"]
    assert _book("第十九回", "第二十回", "第二十一回", zh=True) == ["第十九回", "第二十回", "第二十一回"]


def test_sentences_that_look_like_headings_are_not() -> None:
    titles = _book(
        "Chapter I", "Chapter two was found, and she glanced at its opening sentences.", "Chapter II"
    )
    assert titles == ["Chapter I", "Chapter II"]
    assert _book("I.", "II.", "M. Riviere bowed and drew back a step.", "III.") == ["I.", "II.", "III."]
    # a part word starting a sentence is not a part
    assert _book("CHAPTER I", "Part of her meaning was to conceal it.", "CHAPTER II") == [
        "CHAPTER I",
        "CHAPTER II",
    ]


def test_no_headings_gives_synthetic_sections() -> None:
    text = "\n\n".join([FILLER] * 400)
    book = book_from_text(text)
    assert len(book.chapters) > 1
    assert all(c.synthetic for c in book.chapters)
    assert book.chapters[0].start == book.body.start and book.chapters[-1].end == book.body.end
    short = book_from_text(FILLER)
    assert [(c.title, c.synthetic) for c in short.chapters] == [("Whole text", True)]


def test_chapters_tile_the_body_from_the_first_heading() -> None:
    book = load_book(pdnc_novel_dir("Emma") / "novel_text.txt")
    for previous, chapter in zip(book.chapters, book.chapters[1:], strict=False):
        assert previous.end <= chapter.start
        assert not book.text[previous.end : chapter.start].strip()
        assert chapter.heading is not None and chapter.start <= chapter.heading.start
    assert book.chapters[-1].end == book.body.end


def test_table_of_contents_is_not_chapters() -> None:
    entries = [
        "CHAPTER I. Down the Rabbit-Hole",
        "CHAPTER II. The Pool of Tears",
        "CHAPTER III. A Caucus-Race",
    ]
    chapters = "\n\n".join(f"{e}\n\n{FILLER}\n\n{FILLER}" for e in entries)
    one_per_paragraph = "CONTENTS\n\n" + "\n\n".join(entries) + "\n\n\n\n" + chapters
    one_block = "CONTENTS\n\n" + "\n".join(entries) + "\n\n\n\n" + chapters
    for text in (one_per_paragraph, one_block):
        book = book_from_text(text)
        assert [c.title for c in book.chapters] == entries
        assert book.text[book.chapters[0].start :].startswith(f"{entries[0]}\n\n{FILLER}")


def test_chinese_layout_one_paragraph_per_indented_line() -> None:
    text = (
        "第一回 甄士隐梦幻识通灵\n"
        "\u3000\u3000此开卷第一回也。作者自云：曾历过一番梦幻之后。\n"
        "\u3000\u3000\u201c你好。\u201d他说。\n"
        "第二回 贾夫人仙逝扬州城\n"
        "\u3000\u3000诗云：一局输赢料不真。\n"
    )
    book = book_from_text(text)
    assert [book.span_text(p) for p in book.paragraphs] == [
        "第一回 甄士隐梦幻识通灵",
        "此开卷第一回也。作者自云：曾历过一番梦幻之后。",
        "\u201c你好。\u201d他说。",
        "第二回 贾夫人仙逝扬州城",
        "诗云：一局输赢料不真。",
    ]
    assert [c.title for c in book.chapters] == ["第一回 甄士隐梦幻识通灵", "第二回 贾夫人仙逝扬州城"]


def test_long_unwrapped_lines_are_paragraphs() -> None:
    line = "She walked to the window and looked out at the garden, where the rain fell on the roses. " * 2
    book = book_from_text("\n".join([line.strip()] * 3))
    assert len(book.paragraphs) == 3


_PROSE = "\n\n".join(["The rain kept on all afternoon, and nobody came up the road to the farm. " * 4] * 3)


def _chapters_of(text: str) -> list[tuple[str | None, str | None]]:
    return [(c.title, c.part) for c in book_from_text(text).chapters]


def test_prologue_and_epilogue_are_chapters_outside_the_parts() -> None:
    text = "\n\n".join(
        [
            "THE LONG ROAD",
            "PROLOGUE",
            _PROSE,
            "BOOK THE FIRST",
            "CHAPTER I",
            _PROSE,
            "CHAPTER II",
            _PROSE,
            "BOOK THE SECOND",
            "CHAPTER III",
            _PROSE,
            "EPILOGUE",
            _PROSE,
        ]
    )
    assert _chapters_of(text) == [
        ("PROLOGUE", None),
        ("CHAPTER I", "BOOK THE FIRST"),
        ("CHAPTER II", "BOOK THE FIRST"),
        ("CHAPTER III", "BOOK THE SECOND"),
        ("EPILOGUE", None),
    ]
    assert book_from_text(text).meta.title == "THE LONG ROAD"


def test_a_part_heading_in_the_chapter_heading_paragraph_is_the_part() -> None:
    # "BOOK THE FIRST" and "CHAPTER I" on consecutive lines: one heading, not a table of contents
    text = "\n\n".join(
        ["BOOK THE FIRST\nCHAPTER I", _PROSE, "CHAPTER II", _PROSE, "BOOK THE SECOND\nCHAPTER III", _PROSE]
    )
    assert _chapters_of(text) == [
        ("CHAPTER I", "BOOK THE FIRST"),
        ("CHAPTER II", "BOOK THE FIRST"),
        ("CHAPTER III", "BOOK THE SECOND"),
    ]


def test_a_prologue_heading_is_never_the_title_and_a_file_name_gives_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = "\n\n".join(["PROLOGUE", _PROSE, "CHAPTER I", _PROSE, "CHAPTER II", _PROSE])
    assert book_from_text(text).meta.title is None
    path = tmp_path / "the_long_road.txt"
    path.write_text(text, encoding="utf-8")
    assert load_book(path).meta.title == "The Long Road"
    folder = tmp_path / "AManOfAThousandFaces"
    folder.mkdir()
    (folder / "novel_text.txt").write_text(text, encoding="utf-8")
    assert load_book(folder / "novel_text.txt").meta.title == "A Man of a Thousand Faces"
    numbered = tmp_path / "pg1342.txt"
    numbered.write_text(text, encoding="utf-8")
    assert load_book(numbered).meta.title is None
