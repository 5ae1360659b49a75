"""Judge-model metrics (QA round trip, NLI, PRISMA-style facts) against a real OpenAI-compatible server on
127.0.0.1 with scripted answers, so the values can be computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabula.llm import get_llm
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.metrics import fact_scores, nli_entailment, pooled_fact_scores, qa_scores

REFERENCE = "Emma Woodhouse lives at Hartfield. She marries Mr. Knightley."
OUTPUT = "Emma lives at Randalls with her father. She marries Mr. Elton."


def _qa_judge(messages: list[dict[str, str]]) -> str:
    text = messages[-1]["content"]
    if "Write 5 questions" in text:
        return json.dumps(
            {
                "questions": [
                    {"question": "Where does Emma live?", "answer": "Hartfield"},
                    {"question": "Whom does Emma marry?", "answer": "Mr. Knightley"},
                    {"question": "What is Emma's dog called?", "answer": "Rex"},
                ]
            }
        )
    source = text.split("<<<\n", 1)[1].split("\n>>>", 1)[0]
    question = text.split("Question: ", 1)[1].split("\n", 1)[0]
    answers = {
        (REFERENCE, "Where does Emma live?"): "at Hartfield",
        (REFERENCE, "Whom does Emma marry?"): "Mr. Knightley",
        (REFERENCE, "What is Emma's dog called?"): "unanswerable",  # fails the round trip: dropped
        (OUTPUT, "Where does Emma live?"): "Randalls",
        (OUTPUT, "Whom does Emma marry?"): "Mr. Elton",
    }
    return json.dumps({"answer": answers[(source, question)]})


def test_qa_round_trip_then_squad_scores(tmp_path: Path) -> None:
    with ScriptedOpenAIServer(_qa_judge) as server:
        llm = get_llm(f"openai:judge@{server.url}", cache=tmp_path)
        result = qa_scores(OUTPUT, REFERENCE, llm)
    assert (result.asked, result.kept, result.failures) == (3, 2, 0)
    # "Randalls" vs "Hartfield": EM 0, F1 0; "Mr. Elton" vs "Mr. Knightley": EM 0, F1 = 2*(1/2*1/2)/(1) = 0.5
    assert result.em == 0.0
    assert result.f1 == pytest.approx((0.0 + 0.5) / 2)
    assert [r["answer"] for r in result.questions] == ["Randalls", "Mr. Elton"]


def test_qa_with_no_surviving_question_is_none(tmp_path: Path) -> None:
    with ScriptedOpenAIServer("not json at all") as server:
        llm = get_llm(f"openai:judge@{server.url}", cache=tmp_path)
        result = qa_scores(OUTPUT, REFERENCE, llm)
    assert result.f1 is None and result.em is None and result.failures == 1


def test_nli_by_llm_judge_and_by_classifier(tmp_path: Path) -> None:
    def judge(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        return (
            '{"entailed": true}' if "Statement: Emma lives at Hartfield." in text else '{"entailed": false}'
        )

    sentences = ["Emma lives at Hartfield.", "Emma hates music."]
    premises = ["Emma Woodhouse, of Hartfield, ...", "Emma played the piano."]
    with ScriptedOpenAIServer(judge) as server:
        llm = get_llm(f"openai:judge@{server.url}", cache=tmp_path)
        result = nli_entailment(sentences, premises, llm=llm)
        sent = [body["messages"][-1]["content"] for body in server.bodies]
    assert result.entailed == [True, False] and result.score == 0.5
    # each sentence is judged against its own premise (requests may arrive in any order)
    assert any("Emma played the piano." in p and "Statement: Emma hates music." in p for p in sent)
    by_words = nli_entailment(
        sentences, premises, classifier=lambda p, h: "Hartfield" in p and "Hartfield" in h
    )
    assert by_words.score == 0.5 and nli_entailment([], [], classifier=lambda p, h: True).score is None


def test_facts_precision_recall_and_categories(tmp_path: Path) -> None:
    def judge(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        if "List every atomic fact" in text:
            if OUTPUT in text:
                return json.dumps(
                    {
                        "facts": [
                            {"fact": "Emma lives with her father.", "category": "Relationship"},
                            {"fact": "Emma lives at Randalls.", "category": "Other"},
                            {"fact": "Emma marries Mr. Elton.", "category": "event"},
                        ]
                    }
                )
            return json.dumps(
                {
                    "facts": [
                        {"fact": "Emma lives at Hartfield.", "category": "Other"},
                        {"fact": "Emma marries Mr. Knightley.", "category": "Event"},
                    ]
                }
            )
        supported = {"Fact: Emma lives with her father.": True}
        fact_line = next(line for line in text.splitlines() if line.startswith("Fact: "))
        return json.dumps({"entailed": supported.get(fact_line, False)})

    with ScriptedOpenAIServer(judge) as server:
        llm = get_llm(f"openai:judge@{server.url}", cache=tmp_path)
        result = fact_scores(OUTPUT, REFERENCE, llm)
    assert result.precision == pytest.approx(1 / 3) and result.recall == 0.0 and result.f1 == 0.0
    assert [f["category"] for f in result.output_facts] == ["Relationship", "Other", "Event"]
    counts = result.counts()
    assert counts["fact_p_relationship_supported"] == 1 and counts["fact_p_event_total"] == 1
    assert counts["fact_r_event_total"] == 1 and counts["fact_r_event_supported"] == 0
    pooled = pooled_fact_scores(counts)
    assert pooled["fact_precision_relationship"] == 1.0 and pooled["fact_precision_event"] == 0.0
    assert pooled["fact_recall_event"] == 0.0 and pooled["fact_precision_personality"] is None


def test_nli_max_entailment_over_all_paragraphs_by_hand() -> None:
    """BookWorm's NLI: a sentence counts when its best paragraph's entailment probability is >= 0.5."""
    from fabula.metrics import nli_max_entailment

    table = {
        ("P1", "s1"): 0.2, ("P2", "s1"): 0.7, ("P3", "s1"): 0.1,  # max 0.7: entailed
        ("P1", "s2"): 0.3, ("P2", "s2"): 0.49, ("P3", "s2"): 0.1,  # max 0.49: not
        ("P1", "s3"): 0.5, ("P2", "s3"): 0.0, ("P3", "s3"): 0.0,  # max 0.5: entailed (threshold inclusive)
    }  # fmt: skip
    asked: list[tuple[str, str]] = []

    def scorer(premise: str, hypothesis: str) -> float:
        asked.append((premise, hypothesis))
        return table[(premise, hypothesis)]

    result = nli_max_entailment(["s1", "s2", "s3"], ["P1", "P2", "P3"], scorer)
    assert result.entailed == [True, False, True]
    assert result.score == pytest.approx(2 / 3)
    # s2 was checked against every paragraph; s1 and s3 stop at the first paragraph over the threshold
    assert [p for p, h in asked if h == "s2"] == ["P1", "P2", "P3"]
    assert [p for p, h in asked if h == "s1"] == ["P1", "P2"] and [p for p, h in asked if h == "s3"] == ["P1"]
    assert nli_max_entailment([], ["P1"], scorer).score is None
