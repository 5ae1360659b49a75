"""LLM rankers against a real OpenAI-compatible HTTP server on 127.0.0.1 with scripted answers."""

from __future__ import annotations

import json

import pytest

from fabula.book import load_book
from fabula.llm import get_llm
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.recap import RecapContext, RecapSpec, SentenceIndex, build_target, create_ranker, sample_targets
from tests.conftest import pdnc_novel_dir
from tests.recap.conftest import SPEC

pytest.importorskip("openai")


def _passage_a(messages):
    text = messages[-1]["content"]
    return text.split("Passage A:", 1)[1].split("Passage B:", 1)[0]


def _strawberry_judge(messages):
    """Says yes only when the earlier passage talks of strawberries."""
    return json.dumps({"related": "strawberries" in _passage_a(messages)})


def test_pairwise_asks_once_per_candidate_and_puts_yes_first(hand_book):
    context = RecapContext(hand_book)
    target = build_target(SentenceIndex(hand_book), 11, SPEC)
    with ScriptedOpenAIServer(_strawberry_judge) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("llm-pairwise", llm=llm).rank(context, target)
        assert server.requests == 5
    assert ranking.selected == [2]
    assert ranking.top(5) == [2, 4, 3, 1, 0]  # the yes first, then by distance


def test_pipeline_sends_only_the_filtered_fifteen():
    book = load_book(pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt")
    target = sample_targets(book, 1, RecapSpec(seed=1))[0]
    assert len(target.candidates) == 60
    context = RecapContext(book)
    kept = create_ranker("character-filter").rank(context, target).top(15)
    kept_texts = {context.text(target.candidates[i]) for i in kept}
    with ScriptedOpenAIServer('{"related": false}') as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("pipeline", llm=llm).rank(context, target)
        assert server.requests == len(kept) == 15
        asked = {_passage_a(body["messages"]).strip().strip("<>").strip() for body in server.bodies}
    assert asked == kept_texts
    assert ranking.selected == []
    assert ranking.top(15) == kept  # no yes: the cheap ranker's order stands


def test_listwise_reads_picks_strictly(hand_book):
    context = RecapContext(hand_book)
    target = build_target(SentenceIndex(hand_book), 11, SPEC)
    answer = json.dumps(
        {
            "selected": [
                {"id": 3, "reason": "the strawberries"},
                {"id": 3},
                {"id": 99},
                {"id": 2, "reason": "x"},
            ]
        }
    )
    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("llm-listwise", llm=llm).rank(context, target)
        assert server.requests == 1
        prompt = server.bodies[0]["messages"][-1]["content"]
    assert "[1] The mill stood" in prompt and "[5] The weather" in prompt
    assert ranking.selected == [2, 1]  # the duplicate and the unknown number are dropped
    assert ranking.top(5) == [2, 1, 4, 3, 0]
    assert ranking.log["reasons"] == {"2": "the strawberries", "1": "x"}


def test_unreadable_answers_count_as_not_related(hand_book):
    context = RecapContext(hand_book)
    target = build_target(SentenceIndex(hand_book), 11, SPEC)
    with ScriptedOpenAIServer("maybe?") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("llm-pairwise", llm=llm).rank(context, target)
        assert server.requests == 10  # each asked once more with a reminder
    assert ranking.selected == []
    assert len(ranking.log["errors"]) == 5


def test_listwise_cuts_candidates_to_fit_the_window():
    book = load_book(pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt")
    target = sample_targets(book, 1, RecapSpec(seed=1))[0]
    with ScriptedOpenAIServer('{"selected": []}') as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranker = create_ranker("llm-listwise", llm=llm, window_tokens=2048)
        ranking = ranker.rank(RecapContext(book), target)
        prompt = server.bodies[0]["messages"][-1]["content"]
    assert llm.count_tokens(prompt) <= 2048 - 400
    assert "[60]" in prompt
    assert ranking.selected == []
