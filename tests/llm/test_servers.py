"""What real OpenAI-compatible servers were measured to do, imitated by the loopback server
(`fabula.llm.testing.ScriptedOpenAIServer`), and how fabula copes: structured-output fallback, echo
layouts of prompt log-probabilities, one request at a time, tokenizer endpoints, deadlines."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from fabula.errors import BackendError
from fabula.llm import LLM, GenerateOptions, Generation, TransientError, ask_json_many, get_llm
from fabula.llm._types import ChatMessage
from fabula.llm.testing import ScriptedOpenAIServer

SCHEMA = {
    "type": "object",
    "properties": {"1": {"type": "string", "enum": ["Alice", "Bob"]}},
    "required": ["1"],
}


def _warnings(caplog: pytest.LogCaptureFixture, url: str, word: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if url in r.getMessage() and word in r.getMessage()]


def test_a_schema_rejected_with_a_500_validation_body_falls_back_once_to_json_object(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with ScriptedOpenAIServer('{"1": "Alice"}', reject_formats={"json_schema"}) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False, concurrency=1, retry_base_delay=0.01)
        with caplog.at_level("WARNING", logger="fabula.llm"):
            answers = ask_json_many(
                llm, ["who?", "who else?", "and now?"], options=GenerateOptions(json_schema=SCHEMA)
            )
        formats = [b["response_format"]["type"] for b in server.bodies]
    assert [a.value for a in answers] == [{"1": "Alice"}] * 3
    # the first request is asked once more as json_object with the schema; the others go straight there
    assert formats == ["json_schema", "json_object", "json_object", "json_object"]
    assert server.bodies[1]["response_format"] == {"type": "json_object", "schema": SCHEMA}
    said = _warnings(caplog, server.url, "rejected")
    assert len(said) == 1 and "response_format.type: Input should be 'text' or 'json_object'" in said[0]
    assert llm.usage.retries == 0 and not _warnings(caplog, server.url, "retrying")


def test_when_json_object_is_rejected_too_the_answer_is_asked_as_plain_text_and_parsed_strictly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with ScriptedOpenAIServer('Sure: {"1": "Bob"}', reject_formats={"json_schema", "json_object"}) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False, concurrency=1)
        with caplog.at_level("WARNING", logger="fabula.llm"):
            answers = ask_json_many(llm, ["who?", "who else?"], options=GenerateOptions(json_schema=SCHEMA))
        formats = [(b.get("response_format") or {}).get("type") for b in server.bodies]
    assert [a.value for a in answers] == [{"1": "Bob"}] * 2
    assert formats == ["json_schema", "json_object", None, None]
    assert len(_warnings(caplog, server.url, "plain text")) == 1


def test_with_structured_schema_a_rejection_is_not_retried_and_the_server_s_message_reaches_the_user() -> (
    None
):
    with ScriptedOpenAIServer("{}", reject_formats={"json_schema"}) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False, structured="schema")
        generation = llm.generate("who?", GenerateOptions(json_schema=SCHEMA))
        assert server.requests == 1  # neither retried (it is no transient error) nor weakened
    assert generation.error is not None
    assert "HTTP 500" in generation.error and "Input should be 'text' or 'json_object'" in generation.error


@pytest.mark.parametrize(
    ("structured", "expected"),
    [("json", {"type": "json_object", "schema": SCHEMA}), ("off", None)],
)
def test_structured_json_and_off_ask_as_told(structured: str, expected: dict[str, Any] | None) -> None:
    with ScriptedOpenAIServer('{"1": "Alice"}') as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False, structured=structured)
        assert llm.generate("who?", GenerateOptions(json_schema=SCHEMA)).ok
        assert server.bodies[0].get("response_format") == expected


def test_greedy_sampling_is_sent_explicitly() -> None:
    with ScriptedOpenAIServer("ok") as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        llm.generate("hi", GenerateOptions(temperature=0.0))
        body = server.bodies[0]
    assert body["temperature"] == 0.0 and body["top_p"] == 1.0
    assert body["frequency_penalty"] == 0.0 and body["presence_penalty"] == 0.0
    assert body["repeat_penalty"] == 1.0  # llama-cpp-python's server defaults to 1.1


@pytest.mark.parametrize("layout", ["prompt+generated", "prompt-only"])
def test_prompt_log_probabilities_keep_every_prompt_token_in_both_echo_layouts(layout: str) -> None:
    with ScriptedOpenAIServer(echo_layout=layout) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        values = llm.prompt_logprobs("one two three four five")
    # one value per word after the first; with the prompt-only layout the last one is a prompt token
    assert values == [-2.0, -3.0, -1.0, -2.0]


@pytest.mark.parametrize(
    ("layout", "reason"),
    [("shifted", "fail fabula's check"), ("none", "gives no prompt log-probabilities")],
)
def test_log_probabilities_that_fail_the_calibration_are_refused_with_a_reason(
    layout: str, reason: str, tmp_path: Path
) -> None:
    with ScriptedOpenAIServer(echo_layout=layout) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=tmp_path)
        with pytest.raises(BackendError, match=reason) as refused:
            llm.prompt_logprobs("one two three four five")
        with pytest.raises(BackendError, match=reason):
            llm.prompt_logprobs("six seven eight")
        assert server.requests == 1  # the calibration, once per run; nothing else was asked or used
    assert "\n" not in str(refused.value)
    assert len(llm.cache or []) == 0


def test_a_failed_log_probability_request_says_why() -> None:
    with ScriptedOpenAIServer(fail_with=[400]) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        with pytest.raises(BackendError, match=r"log-probability request failed: .*HTTP 400.*scripted"):
            llm.prompt_logprobs("one two three")


def test_a_llama_cpp_python_server_gets_one_request_at_a_time(caplog: pytest.LogCaptureFixture) -> None:
    with ScriptedOpenAIServer("ok", owned_by="me", one_at_a_time=True, delay=0.02) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False, concurrency=4)
        with caplog.at_level("WARNING", logger="fabula.llm"):
            results = llm.generate_many([f"p{i}" for i in range(8)])
        assert all(g.ok for g in results)
        assert server.peak_in_flight == 1 and server.gets == ["/v1/models"]
    assert len(_warnings(caplog, server.url, "one request at a time")) == 1


class _QueueingModel(LLM):
    """A model whose server queues: the second of two requests in flight runs out of time in the queue."""

    backend = "queueing"

    def __init__(self) -> None:
        super().__init__("queueing", "queueing", cache=None, concurrency=4, retry_base_delay=0.01)
        self.peak_after = 0
        self._arrivals = 0
        self._active = 0
        self._guard = threading.Lock()

    def _complete(self, messages: list[ChatMessage], options: GenerateOptions) -> Generation:
        with self._guard:
            self._arrivals += 1
            arrival = self._arrivals
            self._active += 1
            if self._slots.one_at_a_time:
                self.peak_after = max(self.peak_after, self._active)
        try:
            if arrival == 1:  # in flight until fabula has backed off (so the other one queued behind it)
                deadline = time.monotonic() + 30
                while not self._slots.one_at_a_time and time.monotonic() < deadline:
                    time.sleep(0.005)
            elif arrival == 2:
                raise TransientError("no answer within 1 s (--timeout)", timeout=True)
            return Generation(text=messages[0].content)
        finally:
            with self._guard:
                self._active -= 1


def test_a_timeout_while_others_are_in_flight_backs_off_to_one_request_at_a_time(
    caplog: pytest.LogCaptureFixture,
) -> None:
    llm = _QueueingModel()
    with caplog.at_level("WARNING", logger="fabula.llm"):
        results = llm.generate_many(["p0", "p1"])
        more = llm.generate_many([f"q{i}" for i in range(8)])
    assert [g.text for g in results] == ["p0", "p1"]  # the timed-out request was asked again
    assert all(g.ok for g in more) and llm.peak_after == 1
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("queueing:")]
    assert sum("one at a time" in m for m in said) == 1
    assert llm.usage.retries == 1 and llm.usage.failures == 0


@pytest.mark.parametrize(
    ("owned_by", "path", "name"),
    [
        ("me", "/extras/tokenize", "server:/extras/tokenize (llama-cpp-python)"),
        ("llamacpp", "/tokenize", "server:/tokenize (llama.cpp server)"),
        ("vllm", "/tokenize", "server:/tokenize (vLLM)"),
    ],
)
def test_tokens_are_counted_by_the_server_s_own_tokenizer(owned_by: str, path: str, name: str) -> None:
    with ScriptedOpenAIServer(owned_by=owned_by, tokenize=True) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        assert llm.count_tokens("a b c d") == 4  # a BOS token the endpoint adds is not counted
        assert llm.count_tokens("a b c d") == 4
        calls = server.tokenized
        assert llm.token_counter_name == name
        assert f"tokens counted by {name}" in llm.usage.line()
    assert calls == 2  # the empty text (special tokens), then "a b c d" once: repeats are remembered


def test_a_server_without_a_tokenizer_endpoint_gets_a_labelled_estimate() -> None:
    with ScriptedOpenAIServer() as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        assert llm.count_tokens("a b c d") > 0
        assert llm.token_counter_name.endswith("(the server offers no tokenizer)")


def test_the_timeout_is_a_deadline_for_the_whole_request_even_when_the_server_trickles() -> None:
    # every byte arrives well within the timeout, so only a deadline for the whole request ends it
    with ScriptedOpenAIServer("a long enough answer", trickle=0.1) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False, timeout=1.0, retry_base_delay=0.01)
        started = time.monotonic()
        with pytest.raises(BackendError, match=r"no answer within 1 s"):
            llm.generate("x")
        elapsed = time.monotonic() - started
    assert elapsed < 10  # two attempts of 1 s (and the /v1/models question), not ~30 s of trickling


@pytest.mark.parametrize(
    ("owned_by", "name"),
    [
        ("me", "server:/extras/tokenize (llama-cpp-python)"),
        ("llamacpp", "server:/tokenize (llama.cpp server)"),
    ],
)
def test_token_spans_come_from_the_server_s_tokenizer(owned_by: str, name: str) -> None:
    text = "It was  a cold\n\nevening, said Anna."
    with ScriptedOpenAIServer(owned_by=owned_by, tokenize=True) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        spans, tokenizer = llm.token_spans(text)
        again, _ = llm.token_spans(text)
        count = llm.count_tokens(text)
    assert tokenizer == name and spans == again
    assert [text[a:b] for a, b in spans] == ["It", " was", "  a", " cold", "\n\nevening,", " said", " Anna."]
    assert len(spans) == count


def test_a_server_without_token_texts_leaves_spans_to_the_approximation() -> None:
    from fabula.llm import APPROXIMATE_TOKENIZER, approximate_token_spans

    with ScriptedOpenAIServer(owned_by="vllm", tokenize=True) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        assert llm.token_spans("a b c") == (approximate_token_spans("a b c"), APPROXIMATE_TOKENIZER)
