"""The learned ranker (method "ranker"): its candidates and features on hand-written passages, the
shipped weights, and the attributions it makes."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import numpy as np
import pytest

from fabula.book import Book, Character, book_from_text
from fabula.characters import find_characters
from fabula.quotes import _ranker as ranker
from fabula.quotes import attribute_quotes, detect_quotes
from fabula.quotes._ranker import (
    _PROPOSING_PLAN,
    FEATURE_FAMILIES,
    FEATURES,
    MODEL_FEATURES,
    TurnCandidates,
    load_model,
    rank_speakers,
    sparse_gates,
    turn_candidates,
)
from fabula.quotes._rules import run_sieve

CAST = [
    Character("emma", "Emma Woodhouse", {"Emma": 0}, gender="female", source="gold"),
    Character("knightley", "Mr. Knightley", {"Knightley": 0}, gender="male", source="gold"),
    Character("harriet", "Harriet Smith", {"Harriet": 0}, gender="female", source="gold"),
]


def _book(text: str) -> Book:
    book = book_from_text(text)
    detect_quotes(book)
    find_characters(book, gold=CAST)
    return book


def _items(text: str) -> tuple[Book, list[TurnCandidates]]:
    book = _book(text)
    context, turns = run_sieve(book)
    return book, turn_candidates(context, turns)


def _feature(item: TurnCandidates, who: str, name: str) -> float:
    return float(item.features[item.candidates.index(who), FEATURES.index(name)])


def test_shipped_model_matches_feature_list() -> None:
    raw = json.loads(resources.files("fabula.quotes").joinpath("ranker.json").read_text("utf-8"))
    assert raw["features"] in (FEATURES, MODEL_FEATURES)  # plain weights only, or gated ones too
    weights, _ = load_model()
    assert weights.shape == (len(MODEL_FEATURES),) and np.all(np.isfinite(weights))
    assert MODEL_FEATURES[: len(FEATURES)] == FEATURES


def test_sparse_gates_read_how_few_turns_around_have_a_tag() -> None:
    tagged = '"A fine day," said Emma.\n\n"Very fine," said Mr. Knightley.\n\n'
    untagged = '"Shall we go on?"\n\n"If you like."\n\n'
    book = _book("Emma and Mr. Knightley walked on together.\n\n" + tagged * 3 + untagged * 4)
    _, turns = run_sieve(book)
    gates = sparse_gates(turns)
    assert len(gates) == len(turns) == 14
    assert all(0.0 <= gate <= 1.0 for gate in gates)
    assert all(abs(gate * 20 - round(gate * 20)) < 1e-9 for gate in gates)  # steps of 1/20
    # a turn with a tag of its own is scored with the plain weights alone, wherever it stands
    own_tag = [turn.sieve[1] == "tag" for turn in turns]
    assert own_tag == [True] * 6 + [False] * 8
    assert gates[:6] == [0.0] * 6
    # the untagged end: the sparser its neighbourhood (the further from the tagged start), the wider open
    assert 0.0 < gates[6] < gates[-1]
    assert gates[6:] == sorted(gates[6:])
    # a book with its tags dense throughout reads 0 everywhere
    _, dense = run_sieve(_book("Emma and Mr. Knightley walked on together.\n\n" + tagged * 7))
    assert set(sparse_gates(dense)) == {0.0}


def test_tag_and_sieve_features() -> None:
    _, items = _items('Emma and Harriet sat by the fire.\n\n"I shall walk," said Emma.\n')
    item = items[0]
    assert set(item.candidates) >= {"emma", "harriet"}
    assert _feature(item, "emma", "quote_tag_name") == 1.0
    assert _feature(item, "emma", "sieve_tag") == 1.0
    assert _feature(item, "harriet", "sieve_tag") == 0.0
    assert _feature(item, "harriet", "prev_paragraph_name") == 1.0


def test_vocative_and_parity_features() -> None:
    text = (
        'Emma met Mr. Knightley in the lane.\n\n"Good morning, Mr. Knightley," said Emma.\n\n'
        '"Good morning," said he.\n\n"Are you walking far?"\n'
    )
    _, items = _items(text)
    first, second, third = items
    assert _feature(first, "knightley", "addressed_in_turn") == 1.0  # the speaker does not name himself
    assert _feature(second, "knightley", "addressed_by_prev") == 1.0
    assert _feature(third, "emma", "parity") == 1.0  # A-B-A
    assert _feature(third, "knightley", "prev1_speaker") == 1.0


def test_pronoun_tag_gender_features() -> None:
    _, items = _items('Emma and Mr. Knightley stood up.\n\n"We must go," she said.\n')
    item = items[0]
    assert _feature(item, "emma", "pronoun_tag_gender_match") == 1.0
    assert _feature(item, "knightley", "pronoun_tag_gender_mismatch") == 1.0


def test_ranker_attributes_a_conversation() -> None:
    text = (
        'Emma met Mr. Knightley in the lane.\n\n"Good morning, Mr. Knightley," said Emma.\n\n'
        '"Good morning, Emma," he replied.\n\n"Are you walking far?"\n\n"Only to Hartfield."\n'
    )
    book = _book(text)
    attribute_quotes(book)
    assert [q.speaker_id for q in book.quotes] == ["emma", "knightley", "emma", "knightley"]
    assert book.quotes[0].type == "explicit" and book.quotes[2].type == "implicit"
    assert all(q.method is not None and q.method.startswith("ranker") for q in book.quotes)
    assert all(0.0 < q.confidence <= 1.0 for q in book.quotes)


def test_unresolved_gendered_tag_offers_the_main_cast_of_that_gender() -> None:
    # Harriet is named only in an earlier chapter-like passage far away; the tag "returned she" names no one
    filler = "The weather was fine. " * 80
    text = (
        f"Emma, Emma, Harriet and Mr. Knightley dined.\n\n{filler}\n\n"
        '"Have you heard the news?" said his lady to him one day.\n\n"I have not."\n\n'
        '"But it is so," returned she.\n'
    )
    _, items = _items(text)
    tagged = items[-1]
    assert _feature(tagged, "emma", "frequent_character") == 1.0
    assert _feature(tagged, "emma", "pronoun_tag_gender_match") == 1.0
    assert "knightley" not in tagged.candidates or _feature(tagged, "knightley", "frequent_character") == 0.0
    first = items[0]  # "said his lady": a gendered noun tag
    assert _feature(first, "harriet", "frequent_character") == 1.0


def test_recent_speakers_and_two_party_runs() -> None:
    text = (
        'Harriet came in.\n\n"I am here," said Harriet.\n\n'
        '"Good morning," said Emma.\n\n"Good morning," said Mr. Knightley.\n\n'
        '"A fine day," said Emma.\n\n"Very fine," said Mr. Knightley.\n\n"Shall we walk?"\n'
    )
    _, items = _items(text)
    last = items[-1]
    assert _feature(last, "emma", "two_party_run_before") == 1.0  # Emma, Knightley, Emma, Knightley, ?
    assert _feature(last, "knightley", "two_party_run_before") == 0.0
    assert _feature(last, "harriet", "recent_speaker") == 1.0  # spoke five turns back
    assert _feature(last, "knightley", "recent_speaker_rank") > _feature(
        last, "harriet", "recent_speaker_rank"
    )
    assert _feature(last, "emma", "conversation_turn_share") > _feature(
        last, "harriet", "conversation_turn_share"
    )


def test_narration_paragraph_before_an_untagged_turn() -> None:
    text = (
        '"Good morning," said Mr. Knightley.\n\n'
        "Harriet smiled at Emma and put down her work.\n\n"
        '"What a lovely day."\n'
    )
    _, items = _items(text)
    last = items[-1]
    assert _feature(last, "harriet", "prev_narration_first_name") == 1.0
    assert _feature(last, "emma", "prev_narration_first_name") == 0.0
    first = items[0]
    assert "prev_narration_first_name" not in [
        FEATURES[k] for k in range(len(FEATURES)) if first.features[:, k].any()
    ]


def test_pronoun_tag_antecedent_features() -> None:
    # the subject of the narration before "she said" is Harriet; Emma is named later in that sentence
    text = (
        '"Good morning," said Mr. Knightley.\n\n'
        "Harriet looked up from her work and smiled at Emma. She put the work aside.\n\n"
        '"Good morning," she said.\n'
    )
    _, items = _items(text)
    last = items[-1]
    assert _feature(last, "emma", "pronoun_recent_1") == 1.0  # the last woman named
    assert _feature(last, "harriet", "pronoun_recent_2") == 1.0
    assert _feature(last, "harriet", "pronoun_subject_1") == 1.0  # named where a sentence starts
    assert _feature(last, "emma", "pronoun_subject_1") == 0.0
    assert "knightley" not in last.candidates or _feature(last, "knightley", "pronoun_recent_1") == 0.0


def test_pronoun_tag_resolution_step_and_same_gender_speakers() -> None:
    text = (
        'Emma and Harriet sat by the fire.\n\n"I shall walk," said Emma.\n\n'
        '"And I shall stay," said Harriet.\n\n"Then I go alone," she said.\n'
    )
    book, items = _items(text)
    last = items[-1]
    assert _feature(last, "harriet", "pronoun_prev_speaker_1") == 1.0
    assert _feature(last, "emma", "pronoun_prev_speaker_2") == 1.0
    steps = [name for name in FEATURES if name.startswith("pronoun_step_")]
    picked = book.quotes[-1].speaker_id  # the sieve's resolution of "she"
    assert picked is not None
    assert sum(_feature(last, picked, name) for name in steps) == 1.0  # exactly one step decided


def test_continuation_and_reply_tags_point_at_the_previous_speaker() -> None:
    text = (
        'Emma met Mr. Knightley.\n\n"It is late," said Emma.\n\nShe looked at the clock.\n\n'
        '"Very late," she added.\n\n"Not at all," he replied.\n'
    )
    _, items = _items(text)
    added, replied = items[-2], items[-1]
    assert _feature(added, "emma", "continuation_tag_prev_speaker") == 1.0
    assert _feature(replied, "emma", "reply_tag_prev_speaker") == 1.0
    assert _feature(replied, "emma", "continuation_tag_prev_speaker") == 0.0


def test_where_the_tag_was_found() -> None:
    text = (
        'Emma met Mr. Knightley.\n\nMr. Knightley said, "Good morning."\n\n'
        '"Good," said Emma, "very good."\n\n"Yes." He turned away.\n'
    )
    _, items = _items(text)
    lead_in, interrupted, beat = items
    assert _feature(lead_in, "knightley", "tag_before_quote") == 1.0
    assert _feature(interrupted, "emma", "tag_inside_quote") == 1.0
    assert _feature(interrupted, "emma", "tag_before_quote") == 0.0
    assert _feature(beat, "knightley", "beat_pronoun") == 1.0


def test_feature_families_fill_every_feature_once() -> None:
    listed = [name for family in FEATURE_FAMILIES for name in family.features]
    assert sorted(listed) == sorted(FEATURES)
    assert len(listed) == len(set(listed))


def test_per_reading_families_sit_where_features_writes_them_out() -> None:
    # `_features` replays three runs of static proposing families and writes out the per-reading ones
    # between them, in table order: a family moved in the table must be moved there too
    plan = [(is_static, [f.name for f in group]) for is_static, group in _PROPOSING_PLAN]
    assert [is_static for is_static, _ in plan] == [True, False, True, False, True, False]
    assert plan[1][1] == ["same-gender speakers"]
    assert plan[3][1] == ["tag verb", "neighbour speakers", "recent speakers", "addressed by neighbours"]
    assert plan[5][1] == ["chain breaks"]  # after the third static run
    # only the static proposing families run as functions
    assert all((f.compute is not None) == (f.static and f.proposes) for f in FEATURE_FAMILIES)


def test_beam_decoding_keeps_a_scene_consistent_with_its_late_tag() -> None:
    # Hand-set weights: a name tag, alternation (the last speaker rarely speaks again, the one before
    # does) and a weak pull towards the first-named character of the narration before the scene.
    weights = np.zeros(len(FEATURES))
    for name, value in {
        "quote_tag_name": 4.0,
        "prev1_speaker": -3.0,
        "prev2_speaker": 1.0,
        "prev_narration_first_name": 0.5,
    }.items():
        weights[FEATURES.index(name)] = value
    text = (
        "Emma and Mr. Knightley walked on together.\n\n"
        '"A fine day."\n\n"Very fine."\n\n"Shall we go on?"\n\n"Yes," said Emma.\n'
    )
    # turn by turn, the weak first guess (Emma) fixes the alternation, and the tagged last turn breaks it
    greedy = [q.speaker_id for q in rank_speakers(_book(text), weights, beam=1)]
    assert greedy == ["emma", "knightley", "emma", "emma"]
    # the scene decided as a whole: only Knightley first makes Emma's tagged answer fit the alternation
    quotes = rank_speakers(_book(text), weights, beam=4)
    assert [q.speaker_id for q in quotes] == ["knightley", "emma", "knightley", "emma"]
    assert all(0.0 < q.confidence <= 1.0 for q in quotes)
    assert quotes[0].confidence < 0.5  # the doubtful first turn says so


def test_beam_decoding_expects_a_new_speaker_in_each_untagged_dialogue_paragraph(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Hand-set weights of a model that trusts the previous speaker to go on (a per-turn softmax learns
    # some of that from speeches that run over paragraphs and tags that repeat a speaker).
    weights = np.zeros(len(FEATURES))
    for name, value in {"quote_tag_name": 4.0, "prev1_speaker": 0.5}.items():
        weights[FEATURES.index(name)] = value
    text = (
        "Emma and Mr. Knightley walked on together.\n\n"
        '"A fine day," said Emma.\n\n"Very fine."\n\n"Shall we go on?"\n\n"If you like."\n'
    )
    monkeypatch.setattr(ranker, "REPEAT_PENALTY", 0.0)
    assert [q.speaker_id for q in rank_speakers(_book(text), weights)] == ["emma"] * 4
    monkeypatch.undo()
    # a reading pays for each untagged paragraph that repeats the one before it: the scene alternates
    alternating = ["emma", "knightley", "emma", "knightley"]
    assert [q.speaker_id for q in rank_speakers(_book(text), weights)] == alternating
    # narration between two paragraphs, or a tag, and the same speaker may go on
    broken = text.replace('"Shall we go on?"', 'She looked up.\n\n"Shall we go on?"')
    assert [q.speaker_id for q in rank_speakers(_book(broken), weights)] == [
        "emma",
        "knightley",
        "knightley",
        "emma",
    ]
    # a tag may repeat a speaker unpaid: a weak tag (its weight under the penalty) keeps Emma on
    weights[FEATURES.index("quote_tag_name")] = 0.3
    tagged = text.replace('"Very fine."', '"Very fine," said Emma.')
    assert [q.speaker_id for q in rank_speakers(_book(tagged), weights)][:2] == ["emma", "emma"]


def test_name_tags_anchor_the_alternation_from_both_sides() -> None:
    text = (
        "Emma and Mr. Knightley walked on together.\n\n"
        '"A fine day," said Emma.\n\n"Very fine."\n\n"Shall we go on?"\n\n'
        '"Then let us," said Mr. Knightley.\n\n"Gladly."\n'
    )
    _, items = _items(text)
    by_turn = {item.turn: item for item in items}
    # turn 2: two turns after Emma's tag, one before Knightley's: both say Emma, whoever turn 1 is
    third = by_turn[2]
    assert _feature(third, "emma", "anchor_before_even") == 1 / np.sqrt(2)
    assert _feature(third, "knightley", "anchor_after_odd") == 1.0
    assert _feature(third, "emma", "anchor_even_two_party") == 1 / np.sqrt(2)
    assert _feature(third, "knightley", "anchor_odd_two_party") == 1.0
    assert _feature(third, "emma", "anchor_after_odd") == 0.0
    second = by_turn[1]
    assert _feature(second, "emma", "anchor_before_odd") == 1.0
    assert _feature(second, "knightley", "anchor_after_even") == 1 / np.sqrt(2)
    # every speaker the scene tags by name is a candidate of every turn
    assert _feature(by_turn[4], "knightley", "tagged_in_conversation") == 1.0
    # a tagged turn's own tag is no anchor for itself: its anchors are the other tags
    tagged = by_turn[3]
    assert _feature(tagged, "emma", "anchor_before_odd") == 1 / np.sqrt(3)
    assert _feature(tagged, "knightley", "anchor_before_even") == 0.0
    assert _feature(tagged, "knightley", "anchor_after_odd") == 0.0
    # the shipped weights read the untagged turns as the alternation the tags fix
    quotes = rank_speakers(_book(text), load_model()[0])
    assert [q.speaker_id for q in quotes] == ["emma", "knightley", "emma", "knightley", "emma"]


def test_he_and_she_tags_anchor_the_alternation_by_gender() -> None:
    text = (
        "Emma and Mr. Knightley walked on together.\n\n"
        '"A fine day," she said.\n\n"Very fine."\n\n"Shall we go on?"\n\n"If you like," he said.\n\n"Gladly."\n'
    )
    _, items = _items(text)
    by_turn = {item.turn: item for item in items}
    # turn 1: one turn after "she said" (odd: not the woman), two before "he said" (even: the man)
    second = by_turn[1]
    assert _feature(second, "emma", "gender_anchor_odd_match") == 1.0
    assert _feature(second, "knightley", "gender_anchor_even_match") == 1 / np.sqrt(2)
    assert _feature(second, "knightley", "gender_anchor_odd_match") == 0.0
    # a tagged turn's own tag is not its anchor: turn 3's nearest tag is "she said", three turns back
    fourth = by_turn[3]
    assert _feature(fourth, "emma", "gender_anchor_odd_match") == 1 / np.sqrt(3)
    assert _feature(fourth, "knightley", "gender_anchor_even_match") == 0.0
    quotes = rank_speakers(_book(text), load_model()[0])
    assert [q.speaker_id for q in quotes] == ["emma", "knightley", "emma", "knightley", "emma"]


def test_chain_breaks_after_a_narration_paragraph() -> None:
    exchange = '"Good morning," said Emma.\n\n"Good morning," said Mr. Knightley.\n\n'
    _, items = _items(exchange + "Harriet came in and sat down by the window.\n\n" + '"Is it raining?"\n')
    last = items[-1]
    assert _feature(last, "knightley", "prev1_after_narration") == 1.0
    assert _feature(last, "emma", "parity_after_narration") == 1.0  # A-B-A read across the narration
    assert _feature(last, "knightley", "anchor_before_odd") == 1.0
    assert _feature(last, "knightley", "anchor_odd_unbroken") == 0.0  # the narration breaks the chain
    assert _feature(last, "harriet", "entering_after_narration") == 1.0  # named there, has not spoken
    _, items = _items(exchange + '"Is it raining?"\n')
    last = items[-1]
    assert _feature(last, "knightley", "prev1_after_narration") == 0.0
    assert _feature(last, "emma", "parity_after_narration") == 0.0
    assert _feature(last, "emma", "parity") == 1.0
    assert _feature(last, "knightley", "anchor_odd_unbroken") == 1.0


def _cell_sums(
    context: Any, turns: Any, index: int, stats: Any, back: Any
) -> tuple[list[str], list[float]] | None:
    """A turn's scores summed from the cells `_reading` lists: each candidate's static score (`_Ahead.score`),
    the multi-party column, the cells set to 1.0 in the order first set, then the other cells in order
    (the order `_scores` must keep, for the same floats)."""
    from fabula.quotes._ranker import _MULTI_PARTY, _WIDTH, _reading

    found = _reading(context, turns, index, stats, back)
    if found is None:
        return None
    candidates, ones, rank_cells, rank_values, multi_party, static, ahead = found
    weight = ahead.weight  # the turn's weights (plain, or plus its gate times the gated ones)
    scores = [ahead.score(who, static, context, stats) for who in candidates]
    if multi_party:
        scores = [score + weight[_MULTI_PARTY] for score in scores]
    for cell in dict.fromkeys(ones):
        row, column = divmod(cell, _WIDTH)
        scores[row] += weight[column]
    for cell, value in zip(rank_cells, rank_values, strict=True):
        row, column = divmod(cell, _WIDTH)
        scores[row] += weight[column] * value
    return candidates, scores


def test_scores_equal_the_feature_rows_times_the_weights() -> None:
    """`_scores` (per-candidate sums, what attribution uses) gives each candidate what its `_features` row
    times the weights gives, up to the rounding of the sum's order, and bit for bit what the sum over
    `_reading`'s cells gives (so the floats, and every decision, are those of the cell-by-cell sum), for
    the turns' own earlier speakers and for other readings of them (as the beam passes), on a real novel,
    in the first pass and in the beam's."""
    from fabula.datasets import load_pdnc_novel
    from fabula.quotes._ranker import _HISTORY, _BookStats, _features, _scores, _StaticBook, rerank
    from tests.conftest import pdnc_novel_dir

    novel = load_pdnc_novel(pdnc_novel_dir("DaisyMiller"))
    book = novel.book
    detect_quotes(book)
    find_characters(book)
    shipped, _ = load_model()
    width = len(FEATURES)
    # and with gated weights that are not 0 (each turn scored with plain + its gate times gated)
    gated = shipped.copy()
    gated[width:] = np.random.default_rng(3).normal(0.0, 0.5, width)
    context, turns = run_sieve(book)
    statics = _StaticBook.of(context, turns)
    compared = 0
    for weights in (shipped, gated):
        for passes in (0, 1):
            rerank(context, turns, weights, passes, statics)
            stats = _BookStats.of(context, turns, statics, weights)
            speakers = [turn.speaker for turn in turns]
            for index in range(len(turns)):
                own = tuple(speakers[k] for k in range(index - 1, max(-1, index - 1 - _HISTORY), -1))
                for back in (None, own[1:] + own[:1], tuple(reversed(own)), own[2:] + own[:2]):
                    item = _features(context, turns, index, stats, back)
                    scored = _scores(context, turns, index, stats, back)
                    if item is None:
                        assert scored is None
                        continue
                    assert scored is not None
                    candidates, scores = scored
                    assert candidates == item.candidates
                    mixed = weights[:width] + item.gate * weights[width:]
                    np.testing.assert_allclose(scores, item.features @ mixed, rtol=1e-12, atol=1e-12)
                    assert (candidates, scores) == _cell_sums(context, turns, index, stats, back)
                    compared += 1
    assert compared > 4000
    assert len({stats.book.gates[index] for index in range(len(turns))}) > 3  # the gates differ by turn


def test_zero_gated_weights_attribute_as_the_plain_ones() -> None:
    """A model whose gated weights are all 0 (`load_model` of a plain ``ranker.json``) attributes exactly as
    its plain weights alone."""
    from fabula.datasets import load_pdnc_novel
    from tests.conftest import pdnc_novel_dir

    weights, _ = load_model()
    plain = weights[: len(FEATURES)]
    padded = np.concatenate([plain, np.zeros(len(FEATURES))])
    runs = []
    for model in (plain, padded):
        book = load_pdnc_novel(pdnc_novel_dir("DaisyMiller")).book
        detect_quotes(book)
        find_characters(book)
        runs.append([(q.speaker_id, q.confidence) for q in rank_speakers(book, model)])
    assert runs[0] == runs[1] and len(runs[0]) > 500


def test_words_before_stops_are_what_the_forward_pattern_finds() -> None:
    """`_words_before_stops` (a search from the stops backwards) finds the words the forward pattern
    finds, on a novel's quotes (each a range of the whole text, so the lookbehind sees the character
    before it) and on random strings of letters, apostrophes, spaces, digits, stops and letters that
    lowercase or classify oddly, whole and in ranges."""
    import random
    import re

    from fabula.quotes._ranker import _words_before_stops
    from tests.conftest import pdnc_novel_dir

    forward = re.compile(r"(?<![^\W\d_'])'*([^\W\d_](?:[^\W\d_]|'(?=[^\W\d_]))*)\s*(?:[,!?.;—-]|$)")
    book = _book((pdnc_novel_dir("DaisyMiller") / "novel_text.txt").read_text(encoding="utf-8"))
    spans = [(span.start, span.end) for quote in book.quotes for span in quote.spans]
    assert len(spans) > 500
    cases = [(book.text, start, end) for start, end in spans]
    rng = random.Random(7)
    pieces = [
        "a",
        "B",
        "é",
        "'",
        "''",
        " ",
        "\n",
        ",",
        ".",
        "—",
        "-",
        "1",
        "_",
        "sir",
        "Ma'am",
        "ſ",
        "K",
        "Ⅻ",
        "İ",
    ]
    for _ in range(20000):
        sample = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        cases += [(sample, 0, len(sample)), (sample, len(sample) // 3, 2 * len(sample) // 3)]
    for text, start, end in cases:
        found = [m.span(1) for m in forward.finditer(text, start, end)]
        assert _words_before_stops(text, start, end) == found, (text, start, end)
    # the gender a turn addresses (which skips the spans of most speeches by their words alone)
    from fabula.characters import is_vocative
    from fabula.quotes._ranker import _ADDRESS_WORDS, _address_gender

    _, turns = run_sieve(book)
    addressed = 0
    for turn in turns:
        genders = {
            _ADDRESS_WORDS[m.group(1).lower()]
            for quote in turn.quotes
            for span in quote.spans
            for m in forward.finditer(book.text, span.start, span.end)
            if m.group(1).lower() in _ADDRESS_WORDS
            and is_vocative(book.text, m.start(1), m.end(1), (span.start, span.end))
        }
        expected = genders.pop() if len(genders) == 1 else None
        assert _address_gender(book.text, turn) == expected
        addressed += expected is not None
    assert addressed > 20


def test_scene_presence_from_narration_and_vocatives() -> None:
    text = (
        "Emma, Harriet and Mr. Knightley sat in the parlour.\n\n"
        '"Good morning," said Emma.\n\n"Good morning," said Mr. Knightley.\n\n'
        '"Is it raining?"\n\n"Not yet, Harriet."\n'
    )
    _, items = _items(text)
    third = {item.turn: item for item in items}[2]
    # named in the narration before the scene's first turn, three turns back; addressed in the next turn
    assert _feature(third, "harriet", "present_named_before") == 1 / np.sqrt(3)
    assert _feature(third, "harriet", "addressed_after") == 1.0
    assert _feature(third, "emma", "present_named_before") == 1 / np.sqrt(2)  # her tag, two turns back
    # the A-B-A candidate, with a third person shown present in the scene
    assert _feature(third, "emma", "parity") == 1.0
    assert _feature(third, "emma", "parity_crowded") == 1.0
    assert _feature(third, "knightley", "parity_crowded") == 0.0
    # no one else named or addressed: the alternation has no third person to doubt it
    _, items = _items(
        '"Good morning," said Emma.\n\n"Good morning," said Mr. Knightley.\n\n"Is it raining?"\n'
    )
    assert _feature(items[-1], "emma", "parity") == 1.0
    assert _feature(items[-1], "emma", "parity_crowded") == 0.0


def test_gendered_words_of_address() -> None:
    text = (
        'Emma and Mr. Knightley walked on together.\n\n"A fine day, sir."\n\n"Very fine."\n\n'
        '"Oh, Sir Thomas is coming."\n'
    )
    _, items = _items(text)
    first, second, third = items
    # "sir" addresses a man: the speaker of the turn is rarely he, the next one often is
    assert _feature(first, "knightley", "addressed_gender_own") == 1.0
    assert _feature(first, "emma", "addressed_gender_own") == 0.0
    assert _feature(second, "knightley", "addressed_gender_prev") == 1.0
    assert _feature(second, "emma", "addressed_gender_prev") == 0.0
    # a title before a name addresses no one
    assert _feature(third, "knightley", "addressed_gender_own") == 0.0
    assert _feature(second, "knightley", "addressed_gender_next") == 0.0


KIN_CAST = [
    Character("mother", "Mrs. Ashdown", {"Mrs. Ashdown": 0}, gender="female", source="gold"),
    Character("clara", "Clara Ashdown", {"Clara": 0, "Miss Ashdown": 0}, gender="female", source="gold"),
    Character("nell", "Nell Penrose", {"Nell": 0}, gender="female", source="gold"),
    Character("walter", "Walter Penrose", {"Walter": 0}, gender="male", source="gold"),
]


def test_a_kinship_tag_points_at_the_relative_not_at_the_one_it_is_about() -> None:
    # "said her mother": a female tag, but the daughter it is about is not its speaker
    text = (
        "Clara and Nell sat in the parlour with Mrs. Ashdown, and Walter came in.\n\n"
        '"Shall we walk?" said Clara.\n\n"It will rain," said her mother.\n\n'
        '"Then we stay," her brother went on.\n'
    )
    book = book_from_text(text)
    detect_quotes(book)
    find_characters(book, gold=KIN_CAST)
    context, turns = run_sieve(book)
    _, mother_turn, brother_turn = turn_candidates(context, turns)
    assert _feature(mother_turn, "mother", "kin_tag_family") == 1.0  # Clara Ashdown's family
    assert _feature(mother_turn, "mother", "kin_tag_styled") == 1.0  # a married woman
    assert _feature(mother_turn, "clara", "kin_tag_family") == 1.0  # her mother's family, too
    assert _feature(mother_turn, "clara", "kin_tag_styled") == 0.0  # but one of its young
    assert _feature(mother_turn, "nell", "kin_tag_family") == 0.0  # the one Penrose woman
    assert _feature(mother_turn, "walter", "kin_tag_styled") == 0.0  # a man
    # "her brother went on": Nell Penrose's brother is the Penrose man; no styling for a sibling
    assert _feature(brother_turn, "walter", "kin_tag_family") == 1.0
    assert "kin_tag_styled" not in [FEATURES[i] for i in np.flatnonzero(brother_turn.features.any(axis=0))]


def test_kinship_tags_are_read_in_both_orders() -> None:
    from fabula.quotes._ranker import _kin_tag

    def read(after: str) -> str | None:
        book = book_from_text(f'"Yes{after}.\n')
        detect_quotes(book)
        _, turns = run_sieve(book)
        return _kin_tag(book.text, turns[0])

    assert read('," said her mother resentfully') == "her mother"
    assert read('!" cried his elder sister') == "his sister"
    assert read('," her mother went on') == "her mother"
    assert read('," his wife called') == "his wife"
    assert read('," said my father') == "my father"
    assert read('," said her companion') is None  # not kin: no family to read
    assert read('," said Mrs. Ashdown') is None
    assert read('," her mother') is None  # no speech verb


def test_a_gold_entry_of_neutral_gender_is_marked() -> None:
    # PDNC's lists give gender "X" to entries nobody quotes ("the coroner" beside the named man)
    cast = [
        *CAST,
        Character("coroner", "The Coroner", gender="neutral", source="gold", category="minor"),
    ]
    book = book_from_text(
        'Emma watched the Coroner and Mr. Knightley.\n\n"Call the next witness," said the Coroner.\n\n"Yes."\n'
    )
    detect_quotes(book)
    find_characters(book, gold=cast)
    context, turns = run_sieve(book)
    first = turn_candidates(context, turns)[0]
    assert _feature(first, "coroner", "listed_neutral") == 1.0
    assert _feature(first, "knightley", "listed_neutral") == 0.0
    # a discovered character without a known gender is no listed entry
    context.characters["coroner"].source = "predicted"
    context, turns = run_sieve(book)
    assert _feature(turn_candidates(context, turns)[0], "coroner", "listed_neutral") == 0.0
