"""BookWorm's zero-shot protocol against a loopback OpenAI-compatible server: the released prompts word for
word, temperature 0.4, 110 new tokens, contexts cut at 7,600 tokens, and the number of calls per context."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula.book import Book
from fabula.describe._bookworm import (
    BM25_PARAGRAPHS,
    bookworm_describe,
    context_paragraphs,
    segment_paragraphs,
    truncate_paragraphs,
)
from fabula.errors import ConfigError

pytest.importorskip("openai")

RELEASED = Path(__file__).resolve().parents[3] / "shared" / "papers" / "released" / "bookworm" / "prompts"


def _released(name: str) -> str:
    if not (RELEASED / name).is_file():
        pytest.skip(f"the BookWorm release is not beside the repository ({RELEASED})")
    return (RELEASED / name).read_text(encoding="utf-8")


def _words(text: str) -> int:
    return len(text.split())


def test_truncation_and_segments_follow_the_released_functions():
    paragraphs = ["a b c", "d e", "f g h i", "j"]
    assert truncate_paragraphs(paragraphs, _words, 5) == "a b c\n\nd e"  # stops at the first that passes
    assert truncate_paragraphs(paragraphs, _words, 2) == ""
    assert segment_paragraphs(paragraphs, _words, 5) == ["a b c\n\nd e", "f g h i\n\nj"]
    assert segment_paragraphs(["a b c d e f g"], _words, 5) == ["a b c d e f g"]


@pytest.mark.parametrize("context", ["lead", "bm25", "coref"])
def test_one_call_with_the_released_prompt_and_settings(alice_book: Book, context: str) -> None:
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    template = _released("description_prompt.txt")
    with ScriptedOpenAIServer("Alice is a curious girl.") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        [out] = bookworm_describe(alice_book, ["Alice"], llm, kind="description", context=context)
        assert server.requests == 1
        body = server.bodies[0]
        count = llm.count_tokens
    assert out.text == "Alice is a curious girl." and out.calls == 1
    [message] = body["messages"]  # no system message, as released
    head = template.split("{context}")[0].format(character="Alice")
    assert message["content"].startswith(head)
    given = message["content"][len(head) :]
    assert body["temperature"] == 0.4 and body["max_tokens"] == 110
    assert 0 < count(given) <= 7600
    paragraphs = context_paragraphs(alice_book, "Alice", context)
    assert given == truncate_paragraphs(paragraphs, count)
    if context == "lead":
        assert given.startswith(paragraphs[0]) and paragraphs[0] in alice_book.text[:5000]
    if context == "bm25":
        assert len(paragraphs) == BM25_PARAGRAPHS
        assert all("alice" in p.lower() for p in paragraphs)
    if context == "coref":
        assert len(paragraphs) > BM25_PARAGRAPHS  # every paragraph the mention layer finds her in


def test_hierarchical_is_one_description_per_segment_and_one_merge(alice_book: Book) -> None:
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    merge_template = _released("description_merge_prompt.txt")

    def answer(messages: list[dict[str, str]]) -> str:
        return "MERGED" if "by merging" in messages[-1]["content"] else "A segment note."

    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        [out] = bookworm_describe(alice_book, ["Alice"], llm, context="hierarchical")
        segments = segment_paragraphs(
            context_paragraphs(alice_book, "Alice", "hierarchical"), llm.count_tokens
        )
        bodies = server.bodies
        assert server.requests == len(segments) + 1
        assert all(llm.count_tokens(s) <= 7600 for s in segments)
    assert len(segments) >= 3  # Alice (~27K words) takes several 7,600-token segments
    assert out.text == "MERGED" and out.calls == len(segments) + 1
    merge = bodies[-1]["messages"][-1]["content"]
    expected = merge_template.format(
        character="Alice", descriptions="\n\n".join(["A segment note."] * len(segments))
    )
    assert merge == expected
    assert all(b["temperature"] == 0.4 and b["max_tokens"] == 110 for b in bodies)


def test_analysis_uses_the_released_analysis_prompts(alice_book: Book) -> None:
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    template = _released("analysis_prompt.txt")
    with ScriptedOpenAIServer("An analysis.") as server:
        llm = get_llm(f"openai:test@{server.url}", cache=False)
        bookworm_describe(alice_book, ["Alice"], llm, kind="analysis", context="lead")
        prompt = server.bodies[0]["messages"][0]["content"]
        assert server.bodies[0]["max_tokens"] == 800
    assert prompt.startswith(template.split("{context}")[0].format(character="Alice"))


def test_unknown_character_and_context_are_clear_errors(alice_book: Book) -> None:
    with pytest.raises(ConfigError, match="no character called"):
        context_paragraphs(alice_book, "Zanzibarwick", "coref")
    with pytest.raises(ConfigError, match="unknown BookWorm context"):
        context_paragraphs(alice_book, "Alice", "summary")


@pytest.mark.slow  # analyses the example novel through the CLI
def test_cli_describe_protocol_bookworm(capsys: pytest.CaptureFixture[str]) -> None:
    from fabula.llm.testing import ScriptedOpenAIServer
    from tests.conftest import EXAMPLE_NOVEL, run_cli

    with ScriptedOpenAIServer("Alice is a curious girl.") as server:
        spec = f"openai:test@{server.url}"
        code = run_cli(
            "describe",
            EXAMPLE_NOVEL,
            "Alice",
            "--llm",
            spec,
            "--protocol",
            "bookworm",
            "--context",
            "bm25",
            "--no-cache",
        )
        assert code == 0 and server.requests == 1
        assert server.bodies[0]["temperature"] == 0.4
    out = capsys.readouterr().out
    assert "BookWorm protocol" in out and "Alice is a curious girl." in out
    assert (
        run_cli("describe", EXAMPLE_NOVEL, "Alice", "--llm", spec, "--protocol", "bookworm", "--context", "x")
        != 0
    )


def test_bookworm_split_lists_from_a_fixture(tmp_path: Path) -> None:
    from fabula.datasets import bookworm_split, read_bookworm_list
    from fabula.errors import InputError

    root = Path(__file__).parent / "data" / "bookworm"
    [book] = bookworm_split(root, "description", "test")
    assert (book.gutenberg_id, book.title, book.author) == (2891, "Howard's End", "E. M. Forster")
    assert len(read_bookworm_list(root / "books.tsv")) == 2
    with pytest.raises(InputError, match="unknown BookWorm split"):
        bookworm_split(root, "description", "dev")
    with pytest.raises(InputError, match="cannot read"):
        bookworm_split(root, "analysis", "test")
    bad = tmp_path / "bad.tsv"
    bad.write_text("BookId\tTitle\tAuthor\nx\tA\tB\n")
    with pytest.raises(InputError, match="line 2: expected a numeric id"):
        read_bookworm_list(bad)
    stray = tmp_path / "data"
    (stray / "splits" / "description").mkdir(parents=True)
    (stray / "books.tsv").write_text("Id\tTitle\tAuthor\n1\tA\tB\n")
    (stray / "splits" / "description" / "val.tsv").write_text("BookId\tTitle\tAuthor\n2\tC\tD\n")
    with pytest.raises(InputError, match=r"ids not in books\.tsv"):
        bookworm_split(stray, "description", "val")
    released = RELEASED.parent / "data"
    if released.is_dir():  # the authors' own files read cleanly: 32 description and 14 analysis test books
        assert len(bookworm_split(released, "description", "test")) == 32
        assert len(bookworm_split(released, "analysis", "test")) == 14
