"""RECIDENT's LLM methods against a real OpenAI-compatible HTTP server on 127.0.0.1 with scripted answers:
the prompts of the paper's Figures 6-8, the temperature and answer limits sent, and the number of calls."""

from __future__ import annotations

import pytest

from fabula.book import load_book
from fabula.llm import get_llm
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.recap import RecapContext, RecapSpec, SentenceIndex, build_target, create_ranker, sample_targets
from fabula.recap._llm import parse_listwise, parse_pairwise
from tests.conftest import pdnc_novel_dir
from tests.recap.conftest import SPEC, static_model

pytest.importorskip("openai")

FIGURE_6_END = (
    "You can pick up to 5 snippets from the previous snippets as recaps for the target snippet. For each picked "
    "recap snippet, per line, you should firstly guess the number mark of it and then provide your explanation of "
    "why you select it as a recap in the format of ({number}) - {explanation}. Please do not copy the whole "
    "original text of the picked snippet."
)
FIGURE_7_GOAL = "Your goal is to pick up all the snippets that can act as recaps for the target snippet."
FIGURE_8_END = (
    "Please analyze and explain your determination first, then answer Yes/No at the end. The response format "
    'should be in the format like: "Explanation Yes/No".'
)
BOOK_SYSTEM = (
    "You are an expert on reading and understanding book stories. You will be performing certain analysis on "
    "given story snippets."
)


def _candidate(messages):
    text = messages[-1]["content"]
    return text.split("[Candidate segment]", 1)[1].split("Please read the following target segment:", 1)[0]


def _strawberry_judge(messages):
    """Explains, then says Yes only when the earlier passage talks of strawberries."""
    return "The fruit links them.\nYes" if "strawberries" in _candidate(messages) else "Nothing shared. No."


@pytest.fixture()
def case(hand_book):
    return RecapContext(hand_book), build_target(SentenceIndex(hand_book), 11, SPEC)


def test_pairwise_sends_figure_8_once_per_candidate_and_ranks_yes_by_distance(case):
    context, target = case
    with ScriptedOpenAIServer(_strawberry_judge) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("llm-pairwise", llm=llm).rank(context, target)
        assert server.requests == 5
        bodies = server.bodies
    for body in bodies:
        system, user = body["messages"]
        assert system["content"].startswith(
            "Please assess whether the content of the candidate segment helps"
        )
        assert user["content"].endswith(FIGURE_8_END)
        assert "Please read the following candidate segment from the former context :" in user["content"]
        assert body["temperature"] == 0.0 and body["max_tokens"] == 512
    assert "Miss Bennet remembered the strawberries" in bodies[0]["messages"][-1]["content"]
    assert ranking.selected == [2]
    assert ranking.top(5) == [2]  # the paper ranks only the Yes ones (nearest first)


def test_listwise_sends_figure_6_with_every_candidate_in_full(case):
    context, target = case
    answer = "(3) - the strawberries\n(3) - again\n(99) - no such\nsome chatter\n(2) - x"
    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("llm-listwise", llm=llm).rank(context, target)
        assert server.requests == 1
        body = server.bodies[0]
    system, user = body["messages"]
    assert system["content"] == BOOK_SYSTEM
    prompt = user["content"]
    assert prompt.endswith(FIGURE_6_END)
    assert "[Previous snippets]\n(1) The mill stood by the river for a hundred years. Nobody" in prompt
    assert "(5) The weather turned cold towards evening. Fires were lit in every room of the house." in prompt
    assert "[Target snippet]\nMiss Bennet remembered" in prompt
    assert body["temperature"] == 0.0 and body["max_tokens"] == 1024
    assert ranking.selected == [2, 1]  # the repeat and the unknown number are dropped
    assert ranking.top(5) == [2, 1]  # nothing else is ranked
    assert not ranking.log["truncated"]


def test_listwise_free_sends_figure_7_and_keeps_every_pick(case):
    context, target = case
    answer = "\n".join(f"({i}) - reason" for i in (5, 4, 3, 2, 1))
    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        top5 = create_ranker("llm-listwise", llm=llm).rank(context, target)
        free = create_ranker("llm-listwise-free", llm=llm).rank(context, target)
        assert server.requests == 2
        prompt = server.bodies[1]["messages"][-1]["content"]
    assert FIGURE_7_GOAL in prompt and "pick up to 5" not in prompt
    assert free.selected == [4, 3, 2, 1, 0]
    assert top5.selected == [4, 3, 2, 1, 0]


def test_listwise_filter_lists_only_candidates_naming_the_targets_characters(case):
    context, target = case
    with ScriptedOpenAIServer("(1) - she walks") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("llm-listwise-filter", llm=llm).rank(context, target)
        assert server.requests == 1
        prompt = server.bodies[0]["messages"][-1]["content"]
    kept = [i for i, k in enumerate(create_ranker("character-filter").kept(context, target)) if k]
    assert 1 in kept and 0 not in kept
    assert prompt.count("\n(") == len(kept)  # renumbered from 1 over the kept ones
    assert ranking.selected == [kept[0]]  # "(1)" maps back to the first kept candidate


def test_listwise_truncates_each_candidate_to_220_tokens_only_beyond_15k():
    book = load_book(pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt")
    spec = RecapSpec(candidate_w=40)  # 60 long candidates: the prompt exceeds 15k tokens
    target = sample_targets(book, 1, spec)[0]
    context = RecapContext(book)
    with ScriptedOpenAIServer("(60) - nearest") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        full = sum(llm.count_tokens(context.text(c)) for c in target.candidates)
        assert full > 15_000
        ranking = create_ranker("llm-listwise", llm=llm).rank(context, target)
        prompt = server.bodies[0]["messages"][-1]["content"]
        listed = prompt.split("[Previous snippets]\n", 1)[1].split("\n\nYou can pick", 1)[0].split("\n(")
        assert len(listed) == 60
        assert all(llm.count_tokens(part.split(") ", 1)[1]) <= 220 for part in listed)
        assert llm.count_tokens(prompt) < 16_384 - 1024
    assert ranking.log["truncated"] and ranking.selected == [59]
    # the standard construction (6-sentence candidates) fits: nothing is cut
    short = sample_targets(book, 1, RecapSpec())[0]
    with ScriptedOpenAIServer("(60) - nearest") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("llm-listwise", llm=llm).rank(context, short)
        prompt = server.bodies[0]["messages"][-1]["content"]
    assert not ranking.log["truncated"]
    assert all(context.text(c) in prompt for c in short.candidates)


def test_pipeline_asks_the_sbert_filtered_fifteen(tmp_path):
    book = load_book(pdnc_novel_dir("TheSignOfTheFour") / "novel_text.txt")
    target = sample_targets(book, 1, RecapSpec(seed=1))[0]
    assert len(target.candidates) == 60
    context = RecapContext(book)
    model = static_model(
        tmp_path / "static", " ".join(context.text(c) for c in [*target.candidates, target.target])
    )
    first = create_ranker("character-filter", inner="dense", model=model).rank(context, target)
    kept = first.top(15)
    kept_texts = {context.text(target.candidates[i]) for i in kept}
    with ScriptedOpenAIServer("Unrelated. No") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("pipeline", llm=llm, dense_model=model).rank(context, target)
        assert server.requests == len(kept) and 0 < len(kept) <= 15
        asked = {_candidate(body["messages"]).strip() for body in server.bodies}
    assert asked == kept_texts
    assert ranking.selected == [] and ranking.top(5) == []
    assert ranking.log["fallback"] is False


def test_pipeline_never_asks_zero_questions(hand_book, tmp_path):
    """A target naming someone no candidate names: the filter empties stage one, which then falls back to
    the unfiltered cosine order."""
    model = static_model(tmp_path / "static", hand_book.text)
    context = RecapContext(hand_book)
    target = build_target(SentenceIndex(hand_book), 11, SPEC)
    context._characters  # noqa: B018  (find characters first)
    # drop the candidates' mentions of the target's characters: nobody shared
    shared = context.characters(target.target)
    cumulative, columns = context._characters
    for cid in shared:
        cumulative[: target.target.first + 1, columns[cid]] = 0
    assert not any(create_ranker("character-filter").kept(context, target))
    with ScriptedOpenAIServer(_strawberry_judge) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("pipeline", llm=llm, dense_model=model).rank(context, target)
        assert server.requests == 5
    assert ranking.log["fallback"] is True
    assert ranking.selected == [2]


def test_unreadable_answers_count_as_no_and_are_logged(case):
    context, target = case
    with ScriptedOpenAIServer("maybe?") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        pairwise = create_ranker("llm-pairwise", llm=llm).rank(context, target)
        listwise = create_ranker("llm-listwise", llm=llm).rank(context, target)
        assert server.requests == 6  # no re-asking: one call per question
    assert pairwise.selected == [] and len(pairwise.log["errors"]) == 5
    assert pairwise.log["unreadable"] == 5
    assert listwise.selected == [] and 'no line "(number) - explanation"' in listwise.log["error"]
    assert listwise.log["unreadable"] == 1


def test_parsers_are_strict():
    assert parse_pairwise("It explains the arrest.\nYes") is True
    assert parse_pairwise("Explanation: unrelated. No.") is False
    assert parse_pairwise("Both speak of the will. **Yes**") is True
    assert parse_pairwise("Yes, it helps, but I am unsure") is None
    assert parse_pairwise("Yes") is None  # no explanation before the verdict (Figure 8's format)
    assert parse_pairwise("The answer is Yes/No.") is None  # the prompt's format, repeated
    assert parse_pairwise("I cannot tell: Yes or No") is None
    assert parse_pairwise("The answer is Yes/No. The answer is Yes", cut=True) is None  # the limit cut it
    assert parse_listwise("(2) - a\n**(4)** - b\n(2) - again\n(0) - zero\n(7) - out", 6, None) == ([1, 3], 3)
    assert parse_listwise("\n".join(f"({i}) - r" for i in range(1, 9)), 10, 5) == ([0, 1, 2, 3, 4], 3)
    assert parse_listwise("I pick 3 and 4", 10, 5) == ([], 0)
    # a bare enumeration (a copied snippet, a list) is no pick; the format's dash and explanation are
    assert parse_listwise("(1) The mill stood by the river.\n(2) Nobody remembered.", 5, 5) == ([], 2)
    assert parse_listwise("(3) \u2013 the strawberries", 5, 5) == ([2], 0)
    # an answer cut at the token limit: its last line is incomplete
    assert parse_listwise("(3) - the strawberries\n(4) - the", 5, 5, cut=True) == ([2], 0)


def test_pairwise_answer_cut_at_the_token_limit_is_no_verdict(case):
    """A model that loops on the prompt's "Yes/No" until the token limit cuts it right after a "Yes"
    (as SmolLM2-135M did): no verdict, counted as unreadable; an answer the model ended is read."""
    context, target = case
    looping = [*("The answer is Yes/No. " * 127).split(), "The", "answer", "is", "Yes", "/No.", "The"]

    def judge(messages):
        if "strawberries" in _candidate(messages):
            return "Both speak of the strawberries at Donwell. Yes"
        return " ".join(looping)

    with ScriptedOpenAIServer(judge, token_limit=True) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("llm-pairwise", llm=llm).rank(context, target)
        assert server.requests == 5
        assert all(body["max_tokens"] == 512 for body in server.bodies)
    cut = [
        answer
        for answer in ranking.log["answers"]
        if answer != "Both speak of the strawberries at Donwell. Yes"
    ]
    assert len(cut) == 4 and all(answer.endswith("The answer is Yes") for answer in cut)  # cut at 512 words
    assert ranking.selected == [2]  # only the answer the model ended itself
    assert ranking.log["unreadable"] == 4
    assert all("cut at the token limit" in error for error in ranking.log["errors"])


def test_listwise_reads_only_lines_in_the_figure_6_format(case):
    context, target = case
    answer = (
        "(5) Fires were lit in every room of the house.\n"  # a copied snippet, not "(n) - why"
        "(1) The mill stood by the river for a hundred years.\n"
        "(3) - the strawberries at Donwell return in the target"
    )
    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        ranking = create_ranker("llm-listwise", llm=llm).rank(context, target)
        assert server.requests == 1 and server.bodies[0]["max_tokens"] == 1024
    assert ranking.selected == [2] and ranking.top(5) == [2]
    assert ranking.log["ignored_lines"] == 2 and ranking.log["unreadable"] == 0
