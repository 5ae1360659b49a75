"""The LLM layer against a real OpenAI-compatible HTTP server on 127.0.0.1 with scripted answers."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from fabula.errors import BackendError, ConfigError
from fabula.llm import (
    GenerateOptions,
    ScriptedLLM,
    ScriptExhaustedError,
    ask_json_many,
    get_llm,
    heuristic_token_count,
    parse_llm_spec,
    redact_credentials,
    require_usable_answers,
)
from fabula.llm.testing import ScriptedOpenAIServer

SECRET = "sk-test-SECRET-0123456789"


def _last_user(messages: list[dict[str, str]]) -> str:
    return messages[-1]["content"]


def test_generate_returns_text_tokens_and_finish_reason(tmp_path: Path) -> None:
    with ScriptedOpenAIServer(lambda m: "echo: " + _last_user(m)) as server:
        llm = get_llm(f"openai:test-model@{server.url}", cache=tmp_path / "c.sqlite")
        generation = llm.generate("hello there", GenerateOptions(max_tokens=7, temperature=0.0, seed=3))
        body = server.bodies[0]
    assert generation.text == "echo: hello there"
    assert generation.ok and not generation.cached
    assert generation.finish_reason == "stop"
    assert (generation.prompt_tokens, generation.completion_tokens) == (2, 3)
    assert body["model"] == "test-model"
    assert body["max_tokens"] == 7 and body["seed"] == 3
    assert body["messages"] == [{"role": "user", "content": "hello there"}]


def test_second_run_is_served_from_cache_with_zero_requests(tmp_path: Path) -> None:
    prompts = [f"question {i}" for i in range(12)]
    with ScriptedOpenAIServer(lambda m: _last_user(m).upper()) as server:
        first = get_llm(f"openai:m@{server.url}", cache=tmp_path, concurrency=8)
        answers = first.generate_many(prompts)
        assert server.requests == 12
        again = get_llm(f"openai:m@{server.url}", cache=tmp_path, concurrency=8)
        cached = again.generate_many(prompts)
        assert server.requests == 12  # nothing new reached the server
    assert [g.text for g in answers] == [p.upper() for p in prompts]  # ordered like the prompts
    assert [g.text for g in cached] == [g.text for g in answers]
    assert all(g.cached for g in cached)
    assert again.usage.calls == 0 and again.usage.cache_hits == 12


def test_cache_key_covers_options_and_messages(tmp_path: Path) -> None:
    with ScriptedOpenAIServer("ok") as server:
        llm = get_llm(f"openai:m@{server.url}", cache=tmp_path)
        llm.generate("a")
        llm.generate("a", GenerateOptions(max_tokens=9))
        llm.generate([{"role": "system", "content": "s"}, {"role": "user", "content": "a"}])
        llm.generate("a")
        assert server.requests == 3


def test_json_schema_option_reaches_the_server_and_is_part_of_the_cache_key(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"1": {"type": "string", "enum": ["Alice", "Bob"]}},
        "required": ["1"],
        "additionalProperties": False,
    }
    with ScriptedOpenAIServer('{"1": "Alice"}') as server:
        llm = get_llm(f"openai:m@{server.url}", cache=tmp_path)
        answers = ask_json_many(
            llm,
            ["who?", "who?"],
            options=[GenerateOptions(json_schema=schema), GenerateOptions(json_mode=True)],
        )
        llm.generate("who?", GenerateOptions(json_schema=schema))  # cached
        bodies = server.bodies
    assert [a.value for a in answers] == [{"1": "Alice"}, {"1": "Alice"}]
    assert len(bodies) == 2  # the third call was a cache hit
    # the two requests run concurrently, so they may arrive in either order
    formats = sorted((b["response_format"] for b in bodies), key=lambda f: f["type"])
    assert formats == [
        {"type": "json_object"},
        {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}},
    ]


def test_no_cache_always_calls_the_server(tmp_path: Path) -> None:
    with ScriptedOpenAIServer("ok") as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        llm.generate("a")
        llm.generate("a")
        assert server.requests == 2


def test_429_and_500_are_retried_honouring_retry_after(tmp_path: Path) -> None:
    with ScriptedOpenAIServer("fine", fail_with=[429, 500, 503], retry_after=0.3) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False, retry_base_delay=0.01)
        import time

        started = time.perf_counter()
        generation = llm.generate("x")
        elapsed = time.perf_counter() - started
        assert server.requests == 4
    assert generation.text == "fine"
    assert llm.usage.retries == 3
    assert elapsed >= 0.3  # the Retry-After of the 429 was waited for


def test_exhausted_retries_become_a_recorded_failure_not_a_crash(tmp_path: Path) -> None:
    with ScriptedOpenAIServer("fine", fail_after=1) as server:  # one answer, then HTTP 500 for ever
        llm = get_llm(f"openai:m@{server.url}", cache=tmp_path, max_retries=2, retry_base_delay=0.01)
        assert llm.generate("first").text == "fine"
        generation = llm.generate("x")
        assert server.requests == 1 + 3
    assert generation.error is not None and "3 attempts" in generation.error
    assert generation.text == ""
    assert llm.usage.failures == 1
    assert len(llm.cache or []) == 1  # only the answer is cached, not the failure


def test_a_server_that_never_answers_stops_the_run_at_the_first_request_out_of_retries(
    tmp_path: Path,
) -> None:
    with ScriptedOpenAIServer("never", fail_with=[500] * 1000) as server:
        llm = get_llm(
            f"openai:m@{server.url}", cache=tmp_path, max_retries=2, retry_base_delay=0.01, concurrency=2
        )
        with pytest.raises(BackendError, match=r"not answering .*HTTP 500"):
            llm.generate_many([f"prompt {i}" for i in range(40)])
        # the requests in flight finish their retries; the other 38 prompts are never sent, however
        # late the caller's thread wakes up to cancel them (the worker that failed stops the others)
        llm.close()  # the request still in flight is not retried further, so it logs nothing later
        assert server.requests <= 2 * 3


def test_connection_refused_is_a_backend_error_at_once_without_retries(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with ScriptedOpenAIServer("x") as server:
        url = server.url
    llm = get_llm(f"openai:m@{url}", cache=tmp_path, retry_base_delay=0.5)
    started = time.monotonic()
    with (
        caplog.at_level("WARNING", logger="fabula.llm"),
        pytest.raises(BackendError, match=r"cannot reach the server .*refused"),
    ):
        llm.generate_many(["a", "b", "c", "d"])
    assert time.monotonic() - started < 5  # was 21-28 s: 5 retries with backoff for each request
    assert llm.usage.retries == 0
    assert not [r for r in caplog.records if "retrying" in r.getMessage() and url in r.getMessage()]


def test_a_timeout_is_retried_once_with_a_message_then_given_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # the server answers only when the test ends, so the 0.2 s timeout fires however slow the machine is
    with ScriptedOpenAIServer("slow", delay=120.0) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=tmp_path, timeout=0.2, retry_base_delay=0.01)
        with caplog.at_level("WARNING", logger="fabula.llm"), pytest.raises(BackendError, match=r"0\.2 s"):
            llm.generate("x")
        # a starved server thread may read the second request after the client gave up on it
        _wait_for(lambda: server.requests >= 2)
        assert server.requests == 2  # not max_retries + 1 = 6: a server that timed out twice is not answering
    # only this test's records: a thread left by another test may log to the same logger meanwhile
    own = [
        r.getMessage()
        for r in caplog.records
        if r.thread == threading.get_ident() and r.getMessage().startswith(f"openai:m@{server.url}:")
    ]
    assert own == [
        f"openai:m@{server.url}: no answer within 0.2 s (--timeout) (attempt 1 of 6); retrying in "
        + own[0].rsplit("retrying in ", 1)[1]
    ]


def _wait_for(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    """Poll until ``condition`` holds (a bound for a starved machine, not a timing being tested)."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_credentials_in_the_endpoint_never_reach_cache_usage_or_errors(tmp_path: Path) -> None:
    with ScriptedOpenAIServer("ok") as server:
        secret_url = server.url.replace("http://", "http://alice:S3CRET@")
        llm = get_llm(f"openai:m@{secret_url}", cache=tmp_path / "c.sqlite")
        assert llm.generate("x").text == "ok"
        assert "S3CRET" not in llm.spec and llm.spec == f"openai:m@{server.url}"
        assert "S3CRET" not in llm.usage.line()
        assert "S3CRET" not in repr(llm) and "S3CRET" not in str(llm.endpoint)
        llm.close()
    stored = (tmp_path / "c.sqlite").read_bytes()
    assert b"S3CRET" not in stored and b"alice" not in stored


@pytest.mark.parametrize(
    ("text", "safe"),
    [
        ("openai:m@http://u:pw@host:8/v1", "openai:m@http://host:8/v1"),
        ("openai:m@https://tok@host/v1", "openai:m@https://host/v1"),
        ("http://host/v1?api_key=K3Y&x=1", "http://host/v1?api_key=***&x=1"),
        ("http://host/v1?x=1&token=abc", "http://host/v1?x=1&token=***"),
        ("openai:gpt-4o-mini", "openai:gpt-4o-mini"),
    ],
)
def test_redact_credentials(text: str, safe: str) -> None:
    assert redact_credentials(text) == safe


def test_unparseable_answers_are_counted_and_never_cached(tmp_path: Path) -> None:
    with ScriptedOpenAIServer("not json at all") as server:
        llm = get_llm(f"openai:m@{server.url}", cache=tmp_path)
        answers = ask_json_many(llm, ["a", "b"])
        assert [a.ok for a in answers] == [False, False]
        assert llm.usage.invalid == 4  # two answers and their two reminders
        assert len(llm.cache or []) == 0
        with pytest.raises(BackendError, match="none of the 2 answers could be used"):
            require_usable_answers(llm, answers)
        again = get_llm(f"openai:m@{server.url}", cache=tmp_path)
        ask_json_many(again, ["a", "b"])
        assert server.requests == 8  # the re-run asked again instead of replaying garbage


def test_a_scripted_model_asked_more_than_its_script_raises() -> None:
    llm = ScriptedLLM(["one"], cache=None)
    assert llm.generate("a").text == "one"
    with pytest.raises(ScriptExhaustedError, match="asked 2 times but holds 1"):
        llm.generate("b")


def test_auth_error_stops_with_a_clear_backend_error_and_no_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABULA_API_KEY", "wrong-key")
    with ScriptedOpenAIServer("x", required_key="right-key") as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False, retry_base_delay=0.01)
        with pytest.raises(BackendError, match="authentication failed"):
            llm.generate_many(["a", "b", "c"])
        # the other prompts may still wait in the server's queue: stopping the server reset them, and their
        # threads logged a retry warning after this test, into the next one's stderr (13 of 30 runs)
        llm.close()
        assert server.requests <= 3  # each at most once: no retries
        assert llm.usage.retries == 0


def test_missing_model_is_a_backend_error(tmp_path: Path) -> None:
    with ScriptedOpenAIServer("x", fail_with=[404]) as server:
        llm = get_llm(f"openai:nope@{server.url}", cache=False)
        with pytest.raises(BackendError, match="not found"):
            llm.generate("a")


def test_api_key_is_sent_but_never_stored_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    cache_file = tmp_path / "llm.sqlite"
    with ScriptedOpenAIServer("stored answer", required_key=SECRET) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=cache_file)
        assert llm.generate("a").text == "stored answer"
        assert server.authorizations == [f"Bearer {SECRET}"]
    llm.cache.close()  # type: ignore[union-attr]
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert b"stored answer" in raw
    assert SECRET.encode() not in raw


def test_openai_without_url_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("FABULA_API_KEY", raising=False)
    with pytest.raises(BackendError, match="no API key"):
        get_llm("openai:gpt-4o-mini", cache=False)


@pytest.mark.parametrize("spec", ["", "openai", "openai:", "nosuch:model", "llamacpp"])
def test_malformed_specs_are_config_errors(spec: str) -> None:
    with pytest.raises(ConfigError):
        get_llm(spec, cache=False)


def test_missing_gguf_file_is_a_backend_error(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="not found"):
        get_llm(f"llamacpp:{tmp_path / 'missing.gguf'}", cache=False)


def test_concurrency_is_limited_and_results_keep_their_order() -> None:
    active = 0
    peak = 0
    lock = threading.Lock()

    def answer(messages: list[dict[str, str]]) -> str:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        import time

        time.sleep(0.02)
        with lock:
            active -= 1
        return _last_user(messages)

    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False, concurrency=3)
        results = llm.generate_many([str(i) for i in range(15)])
    assert [g.text for g in results] == [str(i) for i in range(15)]
    assert 2 <= peak <= 3


def test_interrupted_run_resumes_without_repeating_calls(tmp_path: Path) -> None:
    prompts = [f"item {i}" for i in range(10)]
    with ScriptedOpenAIServer("done", fail_after=4) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=tmp_path, concurrency=1, max_retries=0)
        first = llm.generate_many(prompts)
        assert sum(g.ok for g in first) == 4
        seen = [b["messages"][0]["content"] for b in server.bodies]
        server.fail_after = None  # the server is back
        resumed = get_llm(f"openai:m@{server.url}", cache=tmp_path, concurrency=1).generate_many(prompts)
        second = [b["messages"][0]["content"] for b in server.bodies[len(seen) :]]
    assert all(g.ok for g in resumed)
    succeeded_before = {p for p, g in zip(prompts, first, strict=True) if g.ok}
    assert not succeeded_before & set(second)  # nothing answered before was asked again
    assert sorted(second) == sorted(set(prompts) - succeeded_before)


def test_cache_is_safe_with_concurrent_writer_threads(tmp_path: Path) -> None:
    llm = ScriptedLLM(lambda m: m[-1].content[::-1], cache=None)
    from fabula.llm import ResponseCache

    llm.cache = ResponseCache(tmp_path)
    llm.concurrency = 8
    results = llm.generate_many([f"p{i}" for i in range(200)])
    assert [g.text for g in results] == [f"p{i}"[::-1] for i in range(200)]
    with sqlite3.connect(tmp_path / "llm.sqlite") as connection:
        assert connection.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 200
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_unparseable_answers_are_retried_once_with_a_reminder_then_failed() -> None:
    script = {
        "good": '{"1": "Alice"}',
        "fixable": "Sure! Here it is",
        "hopeless": "I cannot answer that.",
    }

    def answer(messages: list[dict[str, str]]) -> str:
        first = messages[0]["content"]
        if len(messages) > 1:  # the reminder turn
            return '```json\n{"1": "Bob"}\n```' if first == "fixable" else "still no json"
        return script[first]

    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        results = ask_json_many(llm, ["good", "fixable", "hopeless"])
        assert server.requests == 5
        reminder = server.bodies[-1]["messages"][-1]["content"]
    assert [r.value for r in results] == [{"1": "Alice"}, {"1": "Bob"}, None]
    assert [r.attempts for r in results] == [1, 2, 2]
    assert results[2].error is not None and "unparseable" in results[2].error
    assert "JSON" in reminder


def test_prompt_logprobs_through_the_completions_endpoint(tmp_path: Path) -> None:
    with ScriptedOpenAIServer("x") as server:
        llm = get_llm(f"openai:m@{server.url}", cache=tmp_path)
        values = llm.prompt_logprobs("one two three four")
        again = llm.prompt_logprobs("one two three four")
        assert server.requests == 2  # fabula's check of the values (once per run), then the text
    assert values == again == [-2.0, -3.0, -1.0]


def test_token_counter_is_reported() -> None:
    llm = get_llm("mock", cache=False)
    assert llm.count_tokens("Hello, world!") == heuristic_token_count("Hello, world!") > 0
    assert llm.token_counter_name.startswith("heuristic")
    assert "tokens counted by heuristic" in llm.usage.line()


def test_heuristic_counts_cjk_characters_one_each() -> None:
    assert heuristic_token_count("你好世界") == 4
    assert heuristic_token_count("") == 0
    assert heuristic_token_count("a b c d e") == 6  # 5 words x 1.2


def test_llamacpp_threads_come_from_the_spec() -> None:
    config = parse_llm_spec("llamacpp:/models/m.gguf?threads=1", cache=False)
    assert config.model == "/models/m.gguf"
    assert dict(config.options) == {"n_threads": 1}
    assert dict(parse_llm_spec("llamacpp:/models/m.gguf", cache=False).options) == {}
    assert parse_llm_spec("llamacpp:/m.gguf?threads=2", cache=False, n_threads=2).options == (
        ("n_threads", 2),
    )


@pytest.mark.parametrize("suffix", ["?threads=", "?threads=0", "?threads=two", "?threads=-1"])
def test_bad_llamacpp_threads_are_config_errors(suffix: str) -> None:
    with pytest.raises(ConfigError, match="threads"):
        parse_llm_spec(f"llamacpp:/models/m.gguf{suffix}", cache=False)
    with pytest.raises(ConfigError, match="twice"):
        parse_llm_spec("llamacpp:/models/m.gguf?threads=1", cache=False, n_threads=2)


def _filled_cache(folder: Path, rows: int = 300) -> Path:
    """A cache file with ``rows`` answers spread over many pages, closed and checkpointed."""
    with ScriptedOpenAIServer(lambda m: "answer " * 40 + _last_user(m)) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=folder / "llm.sqlite", concurrency=1)
        for i in range(rows):
            llm.generate(f"question {i}")
        assert llm.cache is not None
        llm.cache.close()
    return folder / "llm.sqlite"


def _describe_run(tmp_path: Path, url: str) -> int:
    """``fabula describe`` of a small book's character with the model at ``url``."""
    from tests.conftest import run_cli

    book = tmp_path / "book.txt"
    book.write_text("CHAPTER I\n\n" + 'Anna walked in. "Good morning," said Anna to Bell.\n\n' * 20)
    return run_cli("describe", book, "Anna", "--llm", f"openai:m@{url}")


def test_a_damaged_cache_page_is_a_one_line_error_naming_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every page after the first (the schema) overwritten: the file opens, then every lookup finds a
    malformed page (it was an uncaught sqlite3.DatabaseError traceback)."""
    path = _filled_cache(tmp_path / "cache")
    page = 4096
    data = bytearray(path.read_bytes())
    assert len(data) > 10 * page
    data[page:] = bytes(range(256)) * ((len(data) - page) // 256) + b"\0" * ((len(data) - page) % 256)
    path.write_bytes(bytes(data))
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))
    with ScriptedOpenAIServer("Anna is a polite woman.") as server:
        code = _describe_run(tmp_path, server.url)
    printed = capsys.readouterr()
    err = printed.err
    assert "polite" not in printed.out  # no description printed from an answer the cache could not keep
    assert code == 2 and "Traceback" not in err, err[-2000:]
    line = next(x for x in err.splitlines() if x.startswith("fabula: error:"))
    assert str(path) in line and "malformed" in line and "--no-cache" in line


def test_a_full_disk_for_the_cache_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SQLite told that the file may not grow (``max_page_count``: its own "database or disk is full"
    path, as on a full disk) on every connection the run opens, worker threads' included."""
    from fabula.llm._cache import ResponseCache

    connect = ResponseCache._connect

    def full(self: ResponseCache) -> sqlite3.Connection:
        connection = connect(self)
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        connection.execute(f"PRAGMA max_page_count={pages}")
        return connection

    monkeypatch.setattr(ResponseCache, "_connect", full)
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))
    with ScriptedOpenAIServer("Anna is a polite woman. " * 200) as server:
        code = _describe_run(tmp_path, server.url)
    printed = capsys.readouterr()
    err = printed.err
    assert "polite" not in printed.out  # no description printed from an answer the cache could not keep
    assert code == 2 and "Traceback" not in err, err[-2000:]
    line = next(x for x in err.splitlines() if x.startswith("fabula: error:"))
    assert str(tmp_path / "cache" / "llm.sqlite") in line and "full" in line and "FABULA_CACHE_DIR" in line


def test_a_really_full_disk_for_the_cache_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cache on a 64 KiB tmpfs and an answer of 120 KB: the disk fills while the answer is stored."""
    from tests.disk import full_disk

    with full_disk(tmp_path / "disk", "64k") as disk:
        monkeypatch.setenv("FABULA_CACHE_DIR", str(disk))
        with ScriptedOpenAIServer("Anna is a polite woman. " * 5000) as server:
            code = _describe_run(tmp_path, server.url)
        printed = capsys.readouterr()
    assert code == 2 and "Traceback" not in printed.err, printed.err[-2000:]
    line = next(x for x in printed.err.splitlines() if x.startswith("fabula: error:"))
    assert str(disk / "llm.sqlite") in line and "full" in line, line
    assert "polite" not in printed.out
