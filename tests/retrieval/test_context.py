"""Context builders: budgets, book order, reading position, and map-reduce through a real HTTP LLM."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fabula.book import Book
from fabula.errors import ConfigError
from fabula.llm import get_llm, heuristic_token_count
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.retrieval import (
    hierarchical_context,
    index_book,
    lead_context,
    mention_context,
    retrieval_context,
)


def test_lead_context_fills_the_budget_from_the_start(alice: Book) -> None:
    context = lead_context(alice, 300)
    assert context.strategy == "lead"
    assert 280 <= context.tokens <= 300 == context.budget
    assert context.text.startswith("ALICE'S ADVENTURES IN WONDERLAND\n\nby Lewis Carroll\n\nCHAPTER I.")
    assert heuristic_token_count(context.text) == context.tokens
    assert lead_context(alice, 300, counter=lambda text: len(text.split())).tokens <= 300
    short = lead_context(alice, 10**6, until=2000)
    assert short.units and all(u.end <= 2000 for u in short.units)
    with pytest.raises(ConfigError):
        lead_context(alice, 0)


def test_retrieval_context_is_top_units_in_book_order(alice: Book) -> None:
    retriever = index_book(alice, "bm25", cache=False)
    context = retrieval_context(retriever, "croquet flamingo hedgehog", 400)
    assert 0 < context.tokens <= 400
    starts = [u.start for u in context.units]
    assert starts == sorted(starts)
    best = retriever.search("croquet flamingo hedgehog", k=1)[0].unit
    assert best in context.units
    until = best.start
    early = retrieval_context(retriever, "croquet flamingo hedgehog", 400, until=until)
    assert all(u.end <= until for u in early.units)
    assert len(retrieval_context(retriever, "croquet", 10**6, k=3).units) == 3
    assert retrieval_context(retriever, "", 400).text == ""


def test_mention_context_takes_character_units_in_book_order(alice: Book) -> None:
    context = mention_context(alice, "Alice", 500)
    assert 0 < context.tokens <= 500
    assert all("Alice" in u.text or re.search(r"\b(she|her)\b", u.text, re.I) for u in context.units)
    starts = [u.start for u in context.units]
    assert starts == sorted(starts)
    assert mention_context(alice, "Nobody-at-all", 500).units == []


def _notes_answer(messages: list[dict[str, str]]) -> str:
    text = messages[-1]["content"]
    if match := re.search(r"part (\d+) of (\d+)", text):
        return f"notes on part {match.group(1)}"
    return "MERGED: " + ", ".join(re.findall(r"notes on part (\d+)", text))


def test_hierarchical_context_maps_chunks_then_merges(alice: Book, tmp_path: Path) -> None:
    until = alice.chapters[1].end  # the reader has read chapters I and II
    with ScriptedOpenAIServer(_notes_answer) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path)
        context = hierarchical_context(alice, llm, "Describe Alice.", chunk_tokens=1500, until=until)
        prompts = [body["messages"][-1]["content"] for body in server.bodies]
    parts = len(context.parts)
    assert parts >= 3 and context.parts == [f"notes on part {i}" for i in range(1, parts + 1)]
    assert context.text == "MERGED: " + ", ".join(str(i) for i in range(1, parts + 1))
    assert len(prompts) == parts + 1 and context.prompts == ["retrieval/map@1", "retrieval/reduce@1"]
    later = alice.text[until:]
    assert "Pool of Tears" in alice.span_text(alice.chapters[1].span) and "Caucus-Race" in later
    assert not any("Caucus-Race" in p for p in prompts)  # nothing after the reading position is sent
    assert all(llm.count_tokens(p) <= 1500 + 200 for p in prompts[:-1])


def test_hierarchical_context_merges_in_rounds_when_notes_do_not_fit(alice: Book, tmp_path: Path) -> None:
    def answer(messages: list[dict[str, str]]) -> str:
        return "note " * 60

    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=tmp_path)
        context = hierarchical_context(
            alice, llm, "Summarize.", chunk_tokens=2000, reduce_tokens=300, until=alice.chapters[3].end
        )
        requests = len(server.bodies)
    assert context.text.startswith("note") and requests > len(context.parts) + 1
