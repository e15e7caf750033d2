"""A model that misbehaves, served over loopback by the fault server.

It calls tools forever, calls one with a 5 MB argument, calls 500 tools in one response,
or returns an empty response. Each case is bounded by a limit, told to the model, or
reported clearly — within a time bound, through ``call()`` and ``stream()``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from ostinato import ChatClient, ToolCallingAdvisor, tool
from ostinato.advisors import ChatClientMessageAggregator
from ostinato.errors import MalformedResponseError, ToolCallLimitExceeded
from ostinato.model import ChatResponse, FinishReason
from ostinato.tools import (
    DefaultToolCallingManager,
    FunctionToolCallback,
    LimitBehavior,
    ToolCallLimits,
)
from ostinato.transport import NDJSONDecoder
from ostinato.transport import SSEDecoder as CoreSSEDecoder
from ostinato_openai import OpenAIChatModel, RetryPolicy
from tests.reliability.faultserver import (
    Fault,
    FaultServer,
    ReceivedRequest,
    completion_body,
    reply,
    sse,
    text_chunks,
    tool_call_chunks,
)

MODES = ["call", "stream"]
MB = 1 << 20


def rounds_so_far(request: ReceivedRequest) -> int:
    """How many assistant messages the conversation already holds."""
    return sum(1 for m in request.json()["messages"] if m["role"] == "assistant")


def asking_for(
    request: ReceivedRequest, calls: list[tuple[str, str, str]], *, whole: bool = False
) -> Fault:
    """An answer asking for ``calls`` (id, name, arguments), as a call or a stream.

    Streamed arguments come in fragments of 4 KB, one event each, as OpenAI sends them;
    ``whole=True`` sends each call in one event, in network pieces of 1 KB (as Mistral
    and Groq send whole calls)."""
    if request.json().get("stream") and whole:
        return sse(tool_call_chunks(calls), piece=1024)
    if request.json().get("stream"):
        events: list[dict[str, Any]] = []
        base = {"id": "chatcmpl-h", "object": "chat.completion.chunk", "model": "m"}
        for index, (call_id, name, arguments) in enumerate(calls):
            # Arguments in fragments of 4 KB, as a real server streams them.
            pieces = [arguments[i : i + 4096] for i in range(0, len(arguments), 4096)] or [""]
            for position, piece in enumerate(pieces):
                delta: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
                if position == 0:
                    delta.update(id=call_id, type="function")
                    delta["function"]["name"] = name
                events.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]})
        events.append(
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
        )
        return sse(events)
    tool_calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls
    ]
    return reply(200, completion_body(None, tool_calls=tool_calls, finish="tool_calls"))


def answering(request: ReceivedRequest, text: str) -> Fault:
    """A plain text answer, as a call or a stream."""
    if request.json().get("stream"):
        return sse(text_chunks(text))
    return reply(200, completion_body(text))


def model_for(server: FaultServer) -> OpenAIChatModel:
    return OpenAIChatModel(
        model="m",
        api_key="sk-hostile",
        base_url=server.base_url,
        timeout=httpx.Timeout(10.0),
        retry_policy=RetryPolicy(max_retries=0),
    )


async def final_response(client: ChatClient, mode: str, text: str = "go") -> ChatResponse:
    """The turn's final response (for a stream: the aggregate of its final round)."""
    spec = client.prompt(text)
    if mode == "call":
        response = await spec.call().achat_response()
    else:
        aggregator = ChatClientMessageAggregator()
        async for chunk in spec.stream().achat_client_responses():
            aggregator.add(chunk)
        aggregate = aggregator.result()
        response = aggregate.chat_response if aggregate is not None else None
    assert response is not None
    return response


@pytest.fixture
async def served(serve: Callable[..., FaultServer]):
    """A model against a server answering with ``script(request)``; closed afterwards."""
    models: list[OpenAIChatModel] = []

    def start(script: Callable[[ReceivedRequest], Fault]) -> tuple[FaultServer, OpenAIChatModel]:
        server = serve(script)
        models.append(model_for(server))
        return server, models[-1]

    yield start
    for model in models:
        await model.aclose()


@tool(description="Ping")
def ping() -> str:
    """A tool the endless model keeps asking for."""
    return "pong"


# -- a model that never stops calling tools ------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_endless_tool_calls_stop_at_the_iteration_cap(served, mode):
    server, model = served(lambda r: asking_for(r, [(f"call-{rounds_so_far(r)}", "ping", "{}")]))
    advisor = ToolCallingAdvisor(max_iterations=8)
    client = ChatClient.builder(model).default_advisors(advisor).default_tools(ping).build()
    started = time.monotonic()
    response = await final_response(client, mode)
    assert response.result.metadata.finish_reason == FinishReason.MAX_ITERATIONS_EXCEEDED
    assert "max_iterations=8" in (response.text or "")
    assert len(server.requests) == 8
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("mode", MODES)
async def test_endless_tool_calls_stop_at_the_default_limits(served, mode):
    server, model = served(lambda r: asking_for(r, [(f"call-{rounds_so_far(r)}", "ping", "{}")]))
    client = ChatClient.builder(model).default_tools(ping).build()
    response = await final_response(client, mode)
    # The default cap (25 rounds) comes before the per-tool limit (40 calls).
    assert response.result.metadata.finish_reason == FinishReason.MAX_ITERATIONS_EXCEEDED
    assert len(server.requests) == ToolCallingAdvisor.DEFAULT_MAX_ITERATIONS


@pytest.mark.parametrize("mode", MODES)
async def test_endless_parallel_tool_calls_stop_at_the_per_tool_limit(served, mode):
    server, model = served(
        lambda r: asking_for(r, [(f"call-{rounds_so_far(r)}-{i}", "ping", "{}") for i in range(4)])
    )
    client = ChatClient.builder(model).default_tools(ping).build()
    response = await final_response(client, mode)
    assert response.result.metadata.finish_reason == ToolCallLimitExceeded.FINISH_REASON
    assert "Tool call limit (40) exceeded for tool 'ping'" in (response.text or "")
    assert len(server.requests) == 11  # 4 calls a round: the 41st comes in round 11


# -- a 5 MB argument -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", [*MODES, "stream-whole"])
async def test_a_5_mb_argument_reaches_the_tool_whole_and_in_bounded_time(served, mode):
    blob = "x" * (5 * MB - 20) + "é✓\U0001f600"  # multi-byte characters at the end
    arguments = json.dumps({"blob": blob}, ensure_ascii=False)
    received: list[str] = []

    @tool(description="Store a blob")
    def store(blob: str) -> str:
        received.append(blob)
        return f"stored {len(blob)} characters"

    def script(request: ReceivedRequest) -> Fault:
        if rounds_so_far(request) == 0:
            calls = [("call-1", "store", arguments)]
            return asking_for(request, calls, whole=mode == "stream-whole")
        return answering(request, request.json()["messages"][-1]["content"])

    server, model = served(script)
    client = ChatClient.builder(model).default_tools(store).build()
    started = time.monotonic()
    response = await final_response(client, mode.removesuffix("-whole"))
    elapsed = time.monotonic() - started
    assert received == [blob]
    assert response.text == f"stored {len(blob)} characters"
    # The second request carried the call back to the model, whole.
    sent = server.requests[1].json()["messages"]
    assert json.loads(sent[-2]["tool_calls"][0]["function"]["arguments"]) == {"blob": blob}
    assert elapsed < 15, f"a 5 MB argument took {elapsed:.1f} s"


@pytest.mark.parametrize("mode", MODES)
async def test_a_lone_surrogate_in_an_argument_goes_to_the_tool_and_back(served, mode):
    # Valid JSON ("\\ud800") that has no UTF-8 form: the request echoing it back must still
    # be sent (escaped), not fail with UnicodeEncodeError.
    @tool(description="Echo")
    def echo(text: str) -> str:
        return f"got {text}"

    def script(request: ReceivedRequest) -> Fault:
        if rounds_so_far(request) == 0:
            return asking_for(request, [("call-1", "echo", '{"text": "a\\ud800b"}')])
        return answering(request, request.json()["messages"][-1]["content"])

    server, model = served(script)
    client = ChatClient.builder(model).default_tools(echo).build()
    response = await final_response(client, mode)
    assert response.text == "got a\ud800b"
    assert b"\\ud800" in server.requests[1].body


# -- 500 tool calls in one response --------------------------------------------------------


def five_hundred(request: ReceivedRequest) -> Fault:
    if rounds_so_far(request) == 0:
        return asking_for(
            request, [(f"call-{i}", "count", json.dumps({"n": i})) for i in range(500)]
        )
    results = [m["content"] for m in request.json()["messages"] if m["role"] == "tool"]
    return answering(request, f"{len(results)} results")


class Counter:
    """A tool that counts its calls and how many ran at once."""

    def __init__(self) -> None:
        self.calls = 0
        self.running = 0
        self.most = 0
        self._lock = threading.Lock()

    def callback(self) -> FunctionToolCallback:
        """The tool ``count`` backed by this counter."""
        return FunctionToolCallback(self.count, name="count", description="Count")

    def count(self, n: int) -> str:
        with self._lock:
            self.calls += 1
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.001)
        with self._lock:
            self.running -= 1
        return f"#{n}"


@pytest.mark.parametrize("mode", MODES)
async def test_500_calls_in_one_response_stop_at_the_per_tool_limit(served, mode):
    counter = Counter()
    server, model = served(five_hundred)
    client = ChatClient.builder(model).default_tools(counter.callback()).build()
    response = await final_response(client, mode)
    assert response.result.metadata.finish_reason == ToolCallLimitExceeded.FINISH_REASON
    assert "Tool call limit (40) exceeded for tool 'count'" in (response.text or "")
    assert counter.calls == 40  # the calls before the breach ran; none after it
    assert len(server.requests) == 1


@pytest.mark.parametrize("mode", MODES)
async def test_500_calls_with_error_responses_tell_the_model_about_the_rest(served, mode):
    counter = Counter()
    server, model = served(five_hundred)
    manager = DefaultToolCallingManager(
        limits=ToolCallLimits(
            max_calls_per_tool=None, on_limit_exceeded=LimitBehavior.RETURN_ERROR_RESPONSE
        ),
        max_concurrency=16,
    )
    client = (
        ChatClient.builder(model)
        .default_advisors(ToolCallingAdvisor(tool_calling_manager=manager))
        .default_tools(counter.callback())
        .build()
    )
    response = await final_response(client, mode)
    assert response.text == "500 results"
    assert counter.calls == 150 and counter.most <= 16
    tool_messages = [m for m in server.requests[1].json()["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages[:150]] == [f"#{i}" for i in range(150)]
    assert all("Total tool call limit (150)" in m["content"] for m in tool_messages[150:])


# -- an empty response ---------------------------------------------------------------------

EMPTY = {
    "no choices": lambda stream: (
        sse([{"id": "x", "object": "chat.completion.chunk", "choices": []}])
        if stream
        else reply(200, {"id": "x", "object": "chat.completion", "choices": []})
    ),
    "only [DONE]": lambda stream: (
        sse([]) if stream else reply(200, "", content_type="application/json")
    ),
}


@pytest.mark.parametrize("case", sorted(EMPTY))
@pytest.mark.parametrize("mode", MODES)
async def test_an_empty_response_is_reported_clearly(served, mode, case):
    server, model = served(lambda r: EMPTY[case](bool(r.json().get("stream"))))
    client = ChatClient.builder(model).build()
    with pytest.raises(MalformedResponseError, match=r"no answer|not JSON"):
        await final_response(client, mode)
    assert len(server.requests) == 1


@pytest.mark.parametrize("mode", MODES)
async def test_an_answer_without_words_is_an_answer(served, mode):
    # null content with a finish reason: the model chose to say nothing. Not an error.
    def script(request: ReceivedRequest) -> Fault:
        if request.json().get("stream"):
            return sse(text_chunks())
        return reply(200, completion_body(None))

    _, model = served(script)
    response = await final_response(ChatClient.builder(model).build(), mode)
    assert not response.text
    assert response.result.metadata.finish_reason == FinishReason.STOP


@pytest.mark.parametrize(
    "decoder_class",
    [CoreSSEDecoder, NDJSONDecoder],
    ids=["sse", "ndjson"],
)
def test_a_5_mb_line_in_1_kb_pieces_decodes_in_linear_time(decoder_class):
    # Joining the buffer at every piece made this quadratic: 11 s (openai), 114 s (core).
    prefix = b"" if decoder_class is NDJSONDecoder else b"data: "
    body = prefix + json.dumps({"blob": "x" * 5 * MB}).encode() + b"\n\n"
    decoder = decoder_class()
    started = time.monotonic()
    decoded = [item for i in range(0, len(body), 1024) for item in decoder.feed(body[i : i + 1024])]
    assert len(decoded) == 1
    assert time.monotonic() - started < 2.0
