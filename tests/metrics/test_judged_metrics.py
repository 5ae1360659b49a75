"""Judge-model metrics (QA round trip, NLI, PRISMA-style facts) against a real OpenAI-compatible server on
127.0.0.1 with scripted answers, so the values can be computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabula.llm import get_llm
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.metrics import fact_scores, nli_entailment, pooled_fact_scores, qa_scores
from tests.tiny_models import save_bert_word_tokenizer

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
        (REFERENCE, "Where does Emma live?"): "Hartfield",
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
    # the round trip is an exact match (SQuAD-normalised, Alberti et al.): "at Hartfield" would not keep it
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


PAPER = Path(__file__).resolve().parents[3] / "shared" / "papers" / "bookworm.txt"


def _prisma_judge(messages: list[dict[str, str]]) -> str:
    """Scripted PRISMA judge: facts per focused sentence, True only for one fact, a category per fact."""
    [message] = messages  # no system message: each table is one prompt
    text = message["content"]
    if text.startswith("You are trying to verify how factual"):
        sentence = text.rsplit("Sentence to be focused on: ", 1)[1].split("\nFacts:", 1)[0]
        return {
            "Emma lives at Randalls with her father.": "- Emma lives at Randalls.\n- Emma lives with her father.",
            "She marries Mr. Elton.": "1. Emma marries Mr. Elton.",
            "Emma Woodhouse lives at Hartfield.": "- Emma Woodhouse lives at Hartfield.",
            "She marries Mr. Knightley.": "I cannot tell.",  # unparseable: no facts, one failure
        }[sentence]
    if text.startswith("Classify the following fact as either true or false"):
        fact = text.rsplit("\nFact:", 1)[1].split(" True or False?", 1)[0]  # after the examples
        return "True" if fact == "Emma lives with her father." else "False."
    assert text.startswith("Can you classify the following fact")
    fact = text.split("\nFact: ", 1)[1].split("\nOutput:", 1)[0]
    return {"Emma lives with her father.": "Relationship", "Emma marries Mr. Elton.": "Events"}.get(
        fact, "Other Fact"
    )


def test_prisma_is_three_separate_prompts_computed_by_hand(tmp_path: Path) -> None:
    with ScriptedOpenAIServer(_prisma_judge) as server:
        llm = get_llm(f"openai:judge@{server.url}", cache=tmp_path)
        result = fact_scores(OUTPUT, REFERENCE, llm)
        bodies = server.bodies
    prompts = [b["messages"][0]["content"] for b in bodies]
    extract = [p for p in prompts if p.startswith("You are trying to verify")]
    verify = [p for p in prompts if p.startswith("Classify the following fact")]
    classify = [p for p in prompts if p.startswith("Can you classify")]
    # one extraction call per sentence (2 + 2), one verification and one classification per fact (3 + 1)
    assert (len(extract), len(verify), len(classify), len(prompts)) == (4, 4, 4, 12)
    assert result.calls == {"extract": 4, "verify": 4, "classify": 4}
    assert all(b["temperature"] == 0.0 and "response_format" not in b for b in bodies)
    # the focused sentence is marked in its whole text
    assert any(
        "Text: Emma lives at Randalls with her father. <SOS>She marries Mr. Elton.<EOS>" in p for p in extract
    )
    # an output fact is verified against the reference, a reference fact against the output
    assert any(f"Context: {REFERENCE}\nFact:Emma lives at Randalls." in p for p in verify)
    assert any(f"Context: {OUTPUT}\nFact:Emma Woodhouse lives at Hartfield." in p for p in verify)
    assert any(
        f"Character Description/Analysis: {OUTPUT}\nFact: Emma marries Mr. Elton." in p for p in classify
    )
    # by hand: output facts 3, one supported: P = 1/3; reference facts 1 (one sentence unparseable), none: R = 0
    assert result.precision == pytest.approx(1 / 3) and result.recall == 0.0 and result.f1 == 0.0
    assert result.failures == 1
    assert [f["category"] for f in result.output_facts] == ["Other", "Relationship", "Event"]
    counts = result.counts()
    assert counts["fact_p_relationship_supported"] == 1 and counts["fact_p_event_total"] == 1
    assert counts["fact_r_other_total"] == 1 and counts["fact_r_other_supported"] == 0
    pooled = pooled_fact_scores(counts)
    assert pooled["fact_precision_relationship"] == 1.0 and pooled["fact_precision_event"] == 0.0
    assert pooled["fact_recall_other"] == 0.0 and pooled["fact_precision_personality"] is None


def test_prisma_prompts_are_the_papers_tables_word_for_word() -> None:
    """Tables 11-13 of the paper (appendix B), as the extracted text has them (one line per table row)."""
    from fabula.prompts import load_prompt

    if not PAPER.is_file():
        pytest.skip(f"the BookWorm paper text is not beside the repository ({PAPER})")
    paper = PAPER.read_text(encoding="utf-8")
    for name in ("prisma_extract", "prisma_verify", "prisma_classify"):
        template = load_prompt(f"describe/{name}").text
        for line in template.splitlines():
            row = line.replace("$examples", "{examples}").replace("$snippet", "{snippet}")
            row = row.replace("$sentence", "{sentence}").replace("$context", "{context}")
            row = row.replace("$fact", "{fact}").replace("$description", "{description}")
            assert f"{row} |" in paper, (name, row)


def test_prisma_answer_parsers() -> None:
    from fabula.metrics import parse_category, parse_fact_lines, parse_true_false

    assert parse_fact_lines("- a b.\n* c d.\n3) e f.\nnoise") == ["a b.", "c d.", "e f."]
    assert parse_fact_lines("No verifiable claim.") == [] and parse_fact_lines("Sure! Here:") is None
    assert parse_true_false("True") is True and parse_true_false("Output: false.") is False
    assert parse_true_false("It is true") is None
    assert parse_category("Mental State") == "Mental state" and parse_category("Events") == "Event"
    assert (
        parse_category("Other Fact") == "Other" and parse_category("a long sentence about roles here") is None
    )


def _tiny_reader(folder: Path, *, zero_head: bool) -> Path:
    """A random one-layer BERT for extractive QA over a word vocabulary, saved as a local folder; with
    ``zero_head`` every span scores the same, so the reader answers the first word of the context."""
    for module in ("torch", "transformers", "tokenizers"):
        pytest.importorskip(module, reason=f"the extractive reader needs {module} (fabula[hf])")
    import torch
    import transformers

    words = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        *["where", "does", "mara", "live", "who", "marries", "gullrock", "tobin"],
    ]
    save_bert_word_tokenizer(folder, words)
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(words),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    model = transformers.BertForQuestionAnswering(config)
    if zero_head:
        with torch.no_grad():
            model.qa_outputs.weight.zero_()
            model.qa_outputs.bias.zero_()
    model.save_pretrained(folder)
    return folder


@pytest.mark.slow  # imports torch and transformers
def test_qa_with_an_extractive_reader_built_in_the_test(tmp_path: Path) -> None:
    from fabula.metrics import load_qa_reader

    reference = "Gullrock is where Mara lives. She marries Tobin Venn."
    output = "Gullrock again: Mara lives there and marries Ned Alder."

    def questions(messages: list[dict[str, str]]) -> str:
        assert "Write 5 questions" in messages[-1]["content"]
        return json.dumps(
            {
                "questions": [
                    {"question": "Where does Mara live?", "answer": "Gullrock"},
                    {"question": "Who marries Mara?", "answer": "Tobin Venn"},
                ]
            }
        )

    reader = load_qa_reader(str(_tiny_reader(tmp_path / "flat", zero_head=True)))
    # every span ties, the first one wins: the first word of the context
    assert reader("Where does Mara live?", reference) == "Gullrock"
    with ScriptedOpenAIServer(questions) as server:
        llm = get_llm(f"openai:judge@{server.url}", cache=tmp_path / "cache")
        result = qa_scores(output, reference, llm, reader=reader)
        assert server.requests == 1  # the judge only writes the questions; the reader answers
    # round trip: the first word equals the first answer (kept), not the second (dropped)
    assert (result.asked, result.kept) == (2, 1)
    assert result.em == 1.0 and result.f1 == 1.0  # the output's first word is the kept answer too
    # a random head, long context in small windows: the answer is a span of the context
    windows = load_qa_reader(str(_tiny_reader(tmp_path / "random", zero_head=False)), max_length=16, stride=4)
    context = " ".join([reference] * 6)
    answer = windows("Where does Mara live?", context)
    assert answer and answer in context and len(answer.split()) <= 30


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


def _tiny_nli(folder: Path, entail_bias: float) -> Path:
    """A random one-layer BERT sequence classifier (ENTAILMENT / NEUTRAL / CONTRADICTION) whose head is
    zeroed except the biases, so every pair gets the same, hand-computable probabilities."""
    for module in ("torch", "transformers", "tokenizers"):
        pytest.importorskip(module, reason=f"a local NLI model needs {module} (fabula[hf])")
    import torch
    import transformers

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "mara", "lives", "at", "gullrock"]
    save_bert_word_tokenizer(folder, words)
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(words),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        num_labels=3,
        id2label={0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"},
        label2id={"ENTAILMENT": 0, "NEUTRAL": 1, "CONTRADICTION": 2},
    )
    model = transformers.BertForSequenceClassification(config)
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor([entail_bias, 0.0, 0.0]))
    model.save_pretrained(folder)
    return folder


@pytest.mark.slow  # imports torch and transformers
def test_nli_with_a_local_classifier_built_in_the_test(tmp_path: Path) -> None:
    """BookWorm's NLI through `load_nli_scorer`: P(entailment) = e^b / (e^b + 2) for every pair here, so
    b = ln 3 gives 0.6 (entailed, >= 0.5) and b = ln 1.5 gives 0.43 (not)."""
    import math

    from fabula.metrics import load_nli_scorer, nli_max_entailment

    paragraphs = ["mara lives at gullrock", "gullrock"]
    sentences = ["mara lives at gullrock", "mara"]
    over = load_nli_scorer(str(_tiny_nli(tmp_path / "over", math.log(3))))
    assert over(paragraphs[0], sentences[0]) == pytest.approx(0.6, abs=1e-5)
    assert nli_max_entailment(sentences, paragraphs, over).score == 1.0
    under = load_nli_scorer(str(_tiny_nli(tmp_path / "under", math.log(1.5))))
    assert under(paragraphs[1], sentences[1]) == pytest.approx(1.5 / 3.5, abs=1e-5)
    assert nli_max_entailment(sentences, paragraphs, under).entailed == [False, False]
