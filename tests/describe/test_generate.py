"""LLM descriptions against a real OpenAI-compatible server on 127.0.0.1 with scripted answers: what each
context strategy sends, joint batching and its fallback, citations, and that --until never leaks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fabula.book import Book, Character
from fabula.characters import find_characters, resolve_name
from fabula.describe import JOINT_BATCH, describe_characters
from fabula.llm import get_llm
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.retrieval import MentionRetriever, index_book, make_units, retrieval_context


def _character(book: Book, name: str) -> Character:
    character = resolve_name(book.characters, name)
    assert character is not None, name
    return character


def _passages(prompt: str) -> list[str]:
    body = prompt.split("<<<\n", 1)[1].split("\n>>>", 1)[0]
    return body.split("\n\n")


def _user_prompts(server: ScriptedOpenAIServer) -> list[str]:
    return [body["messages"][-1]["content"] for body in server.bodies]


def test_lead_context_sends_the_first_tokens_of_the_book(alice_book: Book, tmp_path: Path) -> None:
    with ScriptedOpenAIServer("Alice is a curious girl.") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path)
        [result] = describe_characters(
            alice_book, [_character(alice_book, "Alice")], llm, context="lead", budget=300
        )
        [prompt] = _user_prompts(server)
    passages = _passages(prompt)
    assert "Alice was beginning to get very tired" in "".join(passages[:6])  # after the title lines
    assert passages == [p.text for p in result.passages]
    assert [p.start for p in result.passages] == sorted(p.start for p in result.passages)
    assert "Mock Turtle" not in prompt  # far beyond 300 tokens
    assert result.text == "Alice is a curious girl." and result.context == "lead" and result.error is None
    assert "The character is Alice" in prompt and result.prompts == ["describe/character@1"]


def test_bm25_context_sends_the_top_passages_for_the_names(alice_book: Book, tmp_path: Path) -> None:
    hatter = _character(alice_book, "Hatter")
    with ScriptedOpenAIServer("He keeps a tea party.") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path)
        [result] = describe_characters(alice_book, [hatter], llm, context="bm25", budget=600)
        [prompt] = _user_prompts(server)
        retriever = index_book(alice_book, "bm25", cache=False)
        query = " ".join(sorted(hatter.all_names(), key=lambda n: (-hatter.aliases.get(n, 0), n)))
        expected = retrieval_context(retriever, query, 600, counter=llm)
    assert [p.text for p in result.passages] == [u.text for u in expected.units]
    assert _passages(prompt) == [u.text for u in expected.units]
    assert all("Hatter" in text for text in _passages(prompt))
    assert [p.start for p in result.passages] == sorted(p.start for p in result.passages)


def test_mentions_context_sends_passages_that_mention_the_character(alice_book: Book, tmp_path: Path) -> None:
    duchess = _character(alice_book, "Duchess")
    with ScriptedOpenAIServer("She has a baby.") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path)
        [result] = describe_characters(alice_book, [duchess], llm, context="mentions", budget=800)
        [prompt] = _user_prompts(server)
    retriever = MentionRetriever(alice_book)
    units = make_units(alice_book, "paragraph")
    retriever.index(units)
    scores = retriever.scores(duchess.id)
    mentioning = {(u.start, u.end) for u, s in zip(units, scores, strict=True) if s > float("-inf")}
    assert result.passages and all((p.start, p.end) in mentioning for p in result.passages)
    named = [p for p in result.passages if any(n in p.text for n in duchess.all_names())]
    assert len(named) >= len(result.passages) // 2  # passages naming her rank before pronoun-only ones
    assert _passages(prompt) == [p.text for p in result.passages]


def test_hierarchical_context_maps_reduces_then_describes_from_the_notes(
    alice_book: Book, tmp_path: Path
) -> None:
    def answer(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        if "Here is part" in text:
            return "NOTE " + re.search(r"part (\d+) of", text).group(1)  # type: ignore[union-attr]
        if "Merge these notes" in text:
            return "MERGED NOTES"
        return "Final description."

    early = alice_book.truncated(alice_book.chapters[2].end)
    find_characters(early)
    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path)
        [result] = describe_characters(
            early, [_character(early, "Alice")], llm, context="hierarchical", budget=1500
        )
        prompts = _user_prompts(server)
    assert sum("Here is part" in p for p in prompts) >= 2 and "Merge these notes" in prompts[-2]
    assert _passages(prompts[-1]) == ["MERGED NOTES"] and result.text == "Final description."
    assert result.prompts == ["retrieval/map@1", "retrieval/reduce@1", "describe/character@1"]


def test_no_context_sends_only_title_author_and_name(alice_book: Book, tmp_path: Path) -> None:
    with ScriptedOpenAIServer("A girl.") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path)
        [result] = describe_characters(alice_book, [_character(alice_book, "Alice")], llm, context="none")
        [body] = server.bodies
    prompt = "\n".join(m["content"] for m in body["messages"])
    assert "<<<" not in prompt and "Alice" in prompt and "rabbit-hole" not in prompt
    assert result.passages == [] and result.prompts == ["describe/no_context@1"]


@pytest.mark.parametrize("context", ["lead", "bm25", "mentions", "hierarchical", "none"])
def test_until_never_leaks_later_text(alice_book: Book, tmp_path: Path, context: str) -> None:
    until = alice_book.chapters[3].end
    early = alice_book.truncated(until)
    find_characters(early)
    later_lines = [alice_book.span_text(p, normalize=True) for p in alice_book.paragraphs if p.start >= until]
    later = [line for line in later_lines if len(line) > 60]
    with ScriptedOpenAIServer("Fine.") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path)
        describe_characters(early, [_character(early, "Alice")], llm, context=context, budget=1500, cite=True)
        sent = "\n".join(m["content"] for body in server.bodies for m in body["messages"])
    assert later and not any(line in sent for line in later)
    assert "Mock Turtle" not in sent and "Queen of Hearts" not in sent.replace(
        "Queen of Hearts, she made", ""
    )


def test_joint_batches_of_five_and_falls_back_when_the_format_breaks(
    alice_book: Book, tmp_path: Path
) -> None:
    cast = [c for c in sorted(alice_book.characters, key=lambda c: c.rank)][:7]
    assert len(cast) == 7

    def good(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        names = re.search(r"each of these characters: (.*)\.", text).group(1).split(", ")  # type: ignore[union-attr]
        return json.dumps({name: f"About {name}." for name in names})

    with ScriptedOpenAIServer(good) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path / "good")
        results = describe_characters(alice_book, cast, llm, joint=True, budget=1000)
        calls = len(server.bodies)
    assert calls == 2 and JOINT_BATCH == 5  # 5 + 2
    assert [r.text for r in results] == [f"About {c.name}." for c in cast] and all(r.joint for r in results)

    def broken(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        if "JSON object" in text:
            return '{"only one": "text"}'  # misses every name: the batch is redone one at a time
        return "Single description."

    with ScriptedOpenAIServer(broken) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path / "broken")
        results = describe_characters(alice_book, cast, llm, joint=True, budget=1000)
        prompts = _user_prompts(server)
    assert len(prompts) == 2 + 7 and sum("JSON object" in p for p in prompts) == 2
    assert [r.text for r in results] == ["Single description."] * 7 and not any(r.joint for r in results)


def test_cite_numbers_passages_and_parses_strictly(alice_book: Book, tmp_path: Path) -> None:
    answer = "Alice falls down a rabbit-hole. [P1] She grows and shrinks [P2][P99]. She meets Mr. Rabbit."
    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path)
        [result] = describe_characters(
            alice_book, [_character(alice_book, "Alice")], llm, context="mentions", budget=500, cite=True
        )
        [prompt] = _user_prompts(server)
    assert "[P1] " in prompt and "ids of the passages" in prompt
    assert [(s.text, s.passages) for s in result.sentences] == [
        ("Alice falls down a rabbit-hole.", [1]),
        ("She grows and shrinks.", [2]),
        ("She meets Mr. Rabbit.", []),
    ]


def test_with_cast_names_the_other_main_characters(alice_book: Book, tmp_path: Path) -> None:
    cast = [c for c in sorted(alice_book.characters, key=lambda c: c.rank)][:3]
    with ScriptedOpenAIServer("Text.") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path)
        describe_characters(alice_book, cast[:1], llm, context="lead", budget=200, cast=cast)
        [prompt] = _user_prompts(server)
    assert f"The main characters of the novel are: {cast[1].name}, {cast[2].name}." in prompt


def test_a_failed_call_is_an_error_on_the_item_not_an_exception(alice_book: Book, tmp_path: Path) -> None:
    with ScriptedOpenAIServer("x", fail_with=[400]) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path)
        [result] = describe_characters(
            alice_book, [_character(alice_book, "Alice")], llm, context="lead", budget=100
        )
    assert result.error and result.text == ""
