"""LLM quotation attribution against a real scripted OpenAI server on 127.0.0.1.

The gold-answer test reads the real PDNC annotation of *Daisy Miller* (skipped without the shared data):
a server that answers every marked quote with its gold speaker must give 100 %, which checks the
plumbing, the windowing, the id marking and the alias mapping together.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from fabula.book import Book, Character, Quote, Span, book_from_text
from fabula.datasets import PdncNovel, load_pdnc_novel
from fabula.errors import BackendError, ConfigError
from fabula.llm import get_llm
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.quotes._llm_attribution import attribute_quotes_with_llm
from tests.conftest import pdnc_novel_dir

MARKER = re.compile(r"\[(\d+)\]")
OPENING = "\"“'‘"


def _passage(messages: list[dict[str, str]]) -> str:
    text = messages[-1]["content"]
    if "<<<\n" not in text:  # the reminder turn: the passage is in the first user turn
        text = next(m["content"] for m in messages if "<<<\n" in m["content"])
    return text.split("<<<\n", 1)[1].split(">>>", 1)[0]


def _marked(messages: list[dict[str, str]]) -> dict[str, str]:
    """Marker id -> the 40 characters of quote text after it (other markers removed)."""
    passage = _passage(messages)
    found = {}
    for match in MARKER.finditer(passage):
        after = MARKER.sub("", passage[match.end() : match.end() + 90])
        found[match.group(1)] = after[1:41] if after[:1] in OPENING else after[:40]
    return found


def _load_excerpt(quotes: int = 140) -> tuple[PdncNovel, Book, list[Quote]]:
    novel = load_pdnc_novel(pdnc_novel_dir("DaisyMiller"))
    gold = novel.quotes[:quotes]
    book = novel.book.truncated(gold[-1].end + 1)
    return novel, book, [Quote(id=q.id, spans=list(q.spans)) for q in gold]


def _gold_answerer(novel: PdncNovel) -> tuple[dict[str, str], object]:
    by_snippet = {novel.book.text[q.start : q.start + 40]: q.speaker for q in novel.quotes}

    def answer(messages: list[dict[str, str]]) -> str:
        return json.dumps({i: _speaker(by_snippet, s) for i, s in _marked(messages).items()})

    return by_snippet, answer


def _speaker(by_snippet: dict[str, str], snippet: str) -> str:
    """The gold speaker of the quote starting with ``snippet`` (shorter at the end of an excerpt)."""
    if snippet in by_snippet:
        return by_snippet[snippet]
    matches = [speaker for text, speaker in by_snippet.items() if text.startswith(snippet)]
    return matches[0] if len(matches) == 1 else "Nobody Known"


def _accuracy(novel: PdncNovel, quotes: list[Quote]) -> float:
    gold = {q.id: q.speaker_id for q in novel.quotes}
    return sum(q.speaker_id == gold[q.id] for q in quotes) / len(quotes)


@pytest.mark.parametrize("strategy", ["first", "incremental"])
def test_gold_answers_give_100_percent_on_a_pdnc_excerpt(tmp_path: Path, strategy: str) -> None:
    novel, book, quotes = _load_excerpt()
    _, answer = _gold_answerer(novel)
    with ScriptedOpenAIServer(answer) as server:  # type: ignore[arg-type]
        llm = get_llm(f"openai:gold@{server.url}", cache=tmp_path)
        report = attribute_quotes_with_llm(
            book,
            llm,
            quotes=quotes,
            characters=novel.characters,
            strategy=strategy,
            window_tokens=600,
            stride_tokens=150,
        )
        marked_per_window = [_marked(b["messages"]) for b in server.bodies]
        # each window's answer is constrained to exactly its marked ids, each a canonical cast name
        names = sorted({c.name for c in novel.characters})
        for body, marked in zip(server.bodies, marked_per_window, strict=True):
            assert body["response_format"]["type"] == "json_schema"
            schema = body["response_format"]["json_schema"]["schema"]
            assert schema["required"] == sorted(marked, key=int) and not schema["additionalProperties"]
            assert all(p == {"type": "string", "enum": names} for p in schema["properties"].values())
    assert report.chapters_split >= 1 and report.windows == len(marked_per_window) > 3
    assert all(q.speaker_id is not None for q in quotes), report.unmapped_names
    assert _accuracy(novel, quotes) == 1.0
    assert (report.answered, report.unmapped, report.missing, report.failed_windows) == (len(quotes), 0, 0, 0)
    # every quote was marked, windows overlap, and ids are stable across windows
    ids_seen = [set(m) for m in marked_per_window]
    assert any(a & b for a, b in itertools.pairwise(ids_seen))
    assert all(q.method == "llm-windows" and q.confidence == 1.0 for q in quotes)
    assert report.prompt.startswith("quote_attribution/")


def test_second_run_makes_zero_requests_and_gives_the_same_speakers(tmp_path: Path) -> None:
    novel, book, quotes = _load_excerpt(60)
    _, answer = _gold_answerer(novel)
    with ScriptedOpenAIServer(answer) as server:  # type: ignore[arg-type]
        spec = f"openai:gold@{server.url}"
        attribute_quotes_with_llm(
            book,
            get_llm(spec, cache=tmp_path),
            quotes=quotes,
            characters=novel.characters,
            window_tokens=400,
            stride_tokens=100,
        )
        first_requests = server.requests
        again = [Quote(id=q.id, spans=list(q.spans)) for q in quotes]
        report = attribute_quotes_with_llm(
            book,
            get_llm(spec, cache=tmp_path),
            quotes=again,
            characters=novel.characters,
            window_tokens=400,
            stride_tokens=100,
        )
        assert server.requests == first_requests > 1
    assert [q.speaker_id for q in again] == [q.speaker_id for q in quotes]
    assert report.usage is not None and report.usage.calls == 0 and report.usage.cache_hits == first_requests


def test_interrupted_run_resumes_without_repeating_calls(tmp_path: Path) -> None:
    novel, book, quotes = _load_excerpt(80)
    _, answer = _gold_answerer(novel)
    with ScriptedOpenAIServer(answer, fail_after=3) as server:  # type: ignore[arg-type]
        spec = f"openai:gold@{server.url}"
        options = {"characters": novel.characters, "window_tokens": 300, "stride_tokens": 50}
        broken = attribute_quotes_with_llm(
            book, get_llm(spec, cache=tmp_path, max_retries=0, concurrency=1), quotes=quotes, **options
        )  # type: ignore[arg-type]
        assert 0 < broken.answered < len(quotes)  # the run half failed, without crashing
        answered_bodies = [json.dumps(b, sort_keys=True) for b in server.bodies[:3]]
        server.fail_after = None
        before = len(server.bodies)
        fresh = [Quote(id=q.id, spans=list(q.spans)) for q in quotes]
        resumed = attribute_quotes_with_llm(book, get_llm(spec, cache=tmp_path), quotes=fresh, **options)  # type: ignore[arg-type]
        new_bodies = [json.dumps(b, sort_keys=True) for b in server.bodies[before:]]
    assert not set(answered_bodies) & set(new_bodies)
    assert len(new_bodies) == resumed.windows - 3
    assert _accuracy(novel, fresh) == 1.0


# --- messy answers on a small synthetic book ------------------------------------------------------

TEXT = """CHAPTER I

"Good morning," said Anna.

"Good morning to you," replied Mr. Bell.

"Is it going to rain?" asked Anna.

"I hope not," said the stranger.

CHAPTER II

"Shall we walk?" said Mr. Bell.

"Yes," said Anna.

"Wait for me," cried Tom.
"""

CAST = [
    Character(id="anna", name="Anna Grey", aliases={"Anna": 3, "Miss Grey": 1}),
    Character(id="bell", name="Robert Bell", aliases={"Mr. Bell": 2, "Bell": 1}),
    Character(id="tom", name="Tom", aliases={"Tom": 1}),
]


def _synthetic() -> tuple[Book, list[Quote]]:
    book = book_from_text(TEXT)
    quotes = [
        Quote(id=f"q{i}", spans=[Span(m.start() + 1, m.end() - 1)])
        for i, m in enumerate(re.finditer(r'"[^"]+"', TEXT))
    ]
    return book, quotes


def _chapter_of(messages: list[dict[str, str]]) -> int:
    return 1 if "Good morning" in _passage(messages) else 2


def test_messy_answers_never_crash_and_are_counted_as_the_rules_say(tmp_path: Path) -> None:
    book, quotes = _synthetic()
    assert len(book.chapters) == 2 and len(quotes) == 7

    def answer(messages: list[dict[str, str]]) -> str:
        if _chapter_of(messages) == 1:
            # fenced JSON with prose around, an alias, an honorific variant, an unknown name, a missing id
            return 'Sure!\n```json\n{"1": "Anna", "2": "Mr. Robert Bell", "3": "The Postman",}\n```\nDone.'
        if len(messages) > 2:  # chapter 2, after the reminder: still invalid
            return ""
        return "{1: 'Bell', 2: 'Anna' 3: 'Tom'}"  # invalid JSON (missing comma)

    with ScriptedOpenAIServer(answer) as server:
        report = attribute_quotes_with_llm(
            book, get_llm(f"openai:m@{server.url}", cache=tmp_path), quotes=quotes, characters=CAST
        )
        assert server.requests == 3  # two chapters, one reminder retry
    speakers = [q.speaker_id for q in quotes]
    assert speakers == ["anna", "bell", None, None, None, None, None]
    assert quotes[2].flags == ["llm-unmapped"] and quotes[3].flags == ["llm-missing"]
    assert all(q.flags == ["llm-missing"] for q in quotes[4:])
    assert (report.answered, report.unmapped, report.missing) == (2, 1, 4)
    assert (report.failed_windows, report.retried_windows) == (1, 1)
    assert report.unmapped_names == {"The Postman": 1}


@pytest.mark.parametrize("reply", ['{"speakers": ["Anna"]}', "{}"])
def test_answers_naming_no_quote_in_any_window_fail_and_change_no_quote(tmp_path: Path, reply: str) -> None:
    """Every window answers with a valid object that names no quotation: no attribution at all, so the run
    fails (it exited 0 with every speaker null), no quote changes, and none of those answers is cached (a
    re-run asks the model again instead of failing from the cache)."""
    book, quotes = _synthetic()
    before = [(q.speaker_id, q.method, list(q.flags)) for q in quotes]
    llm = None
    with ScriptedOpenAIServer(reply) as server, pytest.raises(BackendError, match="named no speaker"):
        llm = get_llm(f"openai:m@{server.url}", cache=tmp_path)
        attribute_quotes_with_llm(book, llm, quotes=quotes, characters=CAST)
    assert [(q.speaker_id, q.method, list(q.flags)) for q in quotes] == before
    assert llm is not None and llm.cache is not None and len(llm.cache) == 0


def test_a_window_answer_naming_no_quote_is_not_cached_but_the_others_are(tmp_path: Path) -> None:
    book, quotes = _synthetic()

    def answer(messages: list[dict[str, str]]) -> str:
        return "{}" if _chapter_of(messages) == 2 else json.dumps({i: "Anna" for i in _marked(messages)})

    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=tmp_path)
        attribute_quotes_with_llm(book, llm, quotes=quotes, characters=CAST)
        assert llm.cache is not None and len(llm.cache) == 1  # chapter 1's answer only
        asked = server.requests
        again = get_llm(f"openai:m@{server.url}", cache=tmp_path)
        attribute_quotes_with_llm(
            book, again, quotes=[Quote(id=q.id, spans=list(q.spans)) for q in quotes], characters=CAST
        )
        assert server.requests == asked + 1  # chapter 2 asked again, chapter 1 from the cache


@pytest.mark.parametrize("reply", ["", "null", "[]", '"Anna"'])
def test_a_run_with_no_readable_answer_fails_and_changes_no_quote(tmp_path: Path, reply: str) -> None:
    book, quotes = _synthetic()
    before = [(q.speaker_id, q.method, list(q.flags)) for q in quotes]
    with ScriptedOpenAIServer(reply) as server, pytest.raises(BackendError, match="could be used"):
        attribute_quotes_with_llm(
            book, get_llm(f"openai:m@{server.url}", cache=False), quotes=quotes, characters=CAST
        )
    assert [(q.speaker_id, q.method, list(q.flags)) for q in quotes] == before


def test_incremental_prompting_shows_and_revises_overlap_answers(tmp_path: Path) -> None:
    novel, book, quotes = _load_excerpt(40)
    by_snippet, _ = _gold_answerer(novel)
    prompts: list[str] = []

    def answer(messages: list[dict[str, str]]) -> str:
        prompts.append(messages[-1]["content"])
        marked = _marked(messages)
        first_window = len(prompts) == 1
        # the first window answers everything "Randolph"; later windows answer the gold speaker
        return json.dumps(
            {i: "Randolph" if first_window else _speaker(by_snippet, s) for i, s in marked.items()}
        )

    options = {"characters": novel.characters, "window_tokens": 350, "stride_tokens": 120}
    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False, concurrency=1)
        incremental = attribute_quotes_with_llm(book, llm, quotes=quotes, strategy="incremental", **options)  # type: ignore[arg-type]
    assert incremental.revised > 0
    assert '": "Randolph"' in prompts[1]  # the second window sees the first one's answers
    assert "(none)" not in prompts[1]
    first_window_ids = set(_marked([{"role": "user", "content": prompts[0]}]))
    second_window_ids = set(_marked([{"role": "user", "content": prompts[1]}]))
    only_first = first_window_ids - second_window_ids
    gold = {q.id: q.speaker_id for q in novel.quotes}
    # quotes seen again were revised to the gold speaker; those only in window 1 keep "Randolph"
    revised = [q for i, q in enumerate(quotes, start=1) if str(i) in first_window_ids & second_window_ids]
    assert revised and all(q.speaker_id == gold[q.id] for q in revised)
    assert only_first

    prompts.clear()
    fresh = [Quote(id=q.id, spans=list(q.spans)) for q in quotes]
    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False, concurrency=1)
        first_wins = attribute_quotes_with_llm(book, llm, quotes=fresh, strategy="first", **options)  # type: ignore[arg-type]
    assert first_wins.revised == 0
    # with "first", the first window's (wrong but valid) answer stands for the shared quotes
    shared = [q for i, q in enumerate(fresh, start=1) if str(i) in first_window_ids & second_window_ids]
    randolph = next(c.id for c in novel.characters if c.name.startswith("Randolph"))
    assert all(q.speaker_id == randolph for q in shared)


def test_registered_as_the_llm_method_of_attribute_quotes() -> None:
    registry = pytest.importorskip("fabula.quotes._registry")
    book, quotes = _synthetic()
    book.quotes, book.characters = quotes, CAST
    with ScriptedOpenAIServer('{"1": "Anna", "2": "Bell", "3": "Miss Grey", "4": "Tom"}') as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        result = registry.attribute_quotes(book, method="llm-windows", llm=llm)
    assert "llm-windows" in registry.available_methods() and "hybrid" in registry.available_methods()
    assert [q.speaker_id for q in result.quotes[:4]] == ["anna", "bell", "anna", "tom"]
    assert result.report["prompt"].startswith("quote_attribution/chunk@")  # the run's account, as a value
    assert result.report["quotes"] == len(book.quotes) and result.report["usage"]["calls"] >= 1
    for method in ("llm-windows", "hybrid"):
        with pytest.raises(ConfigError, match=f"the {method} attribution method needs a model: give --llm"):
            registry.attribute_quotes(book, method=method)
    with pytest.raises(ConfigError, match="takes an LLM object, not str"):  # only the CLI parses specs
        registry.attribute_quotes(book, method="llm-windows", llm=f"openai:m@{server.url}")


def test_without_json_schema_only_json_mode_is_asked(tmp_path: Path) -> None:
    novel, book, quotes = _load_excerpt()
    _, answer = _gold_answerer(novel)
    with ScriptedOpenAIServer(answer) as server:  # type: ignore[arg-type]
        llm = get_llm(f"openai:gold@{server.url}", cache=tmp_path)
        attribute_quotes_with_llm(
            book,
            llm,
            quotes=quotes,
            characters=novel.characters,
            json_schema=False,
            window_tokens=600,
            stride_tokens=150,
        )
        assert server.bodies and all(b["response_format"] == {"type": "json_object"} for b in server.bodies)
    assert _accuracy(novel, quotes) == 1.0
