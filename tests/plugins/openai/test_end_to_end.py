"""The whole tool loop through ``ChatClient`` with ``OpenAIChatModel`` over real sockets.

A loopback server replays recorded exchanges in sequence: the model's tool call, then its
answer. The tool runs for real and its result travels back to the server, where the
follow-up request is compared with the one recorded. Sync and async faces, call and
stream.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ostinato import ChatClient
from ostinato_openai import OpenAIChatModel
from tests.fakes.corpus_tools import BOTH_QUESTION, QUESTION, best_language_to_learn, weather
from tests.fakes.loopback_fixture import server_and_model_fixture
from tests.plugins.openai.loopback import LoopbackServer
from tests.plugins.openai.wire import load


def served(*names: str) -> LoopbackServer:
    return LoopbackServer([load("openai", name) for name in names])


def new_model(server: LoopbackServer) -> OpenAIChatModel:
    return OpenAIChatModel(model="gpt-5-nano", api_key="sk-loopback", base_url=server.base_url)


server_and_model = server_and_model_fixture(served, new_model)


def messages_sent(server: LoopbackServer, position: int) -> list[Any]:
    return server.requests[position].json()["messages"]


def recorded_messages(name: str) -> list[Any]:
    return list(load("openai", name).request["body"]["messages"])


def normalised(messages: list[Any]) -> list[Any]:
    """Messages with tool arguments parsed (their spacing is the model's)."""
    result = json.loads(json.dumps(messages))
    for message in result:
        for call in message.get("tool_calls") or ():
            call["function"]["arguments"] = json.loads(call["function"]["arguments"])
    return result


def check_requests(server: LoopbackServer, *, stream: bool, followup: str) -> None:
    assert len(server.requests) == 2
    for received in server.requests:
        assert received.method == "POST"
        assert received.target == "/v1/chat/completions"
        assert received.headers["authorization"] == "Bearer sk-loopback"
        body = received.json()
        assert body["stream"] is stream
        assert body["model"] == "gpt-5-nano"
        assert [t["function"]["name"] for t in body["tools"]] == [
            t["function"]["name"] for t in load("openai", followup).request["body"]["tools"]
        ]
    assert normalised(messages_sent(server, 1)) == normalised(recorded_messages(followup))


@pytest.mark.parametrize(
    "server_and_model",
    [("002-tool-call-single.json", "003-tool-result-followup.json")],
    indirect=True,
)
def test_tool_loop_call_sync(server_and_model: tuple[LoopbackServer, OpenAIChatModel]):
    server, model = server_and_model
    answer = ChatClient.create(model).prompt(QUESTION).tools(weather).call().content()
    assert answer == "Berlin (52.5200, 13.4050): 15°C, Wind 10 km/h."
    check_requests(server, stream=False, followup="003-tool-result-followup.json")
    # The follow-up is exactly what ruby_llm sent, message for message.
    assert messages_sent(server, 1) == recorded_messages("003-tool-result-followup.json")


@pytest.mark.parametrize(
    "server_and_model",
    [("004-parallel-tool-calls.json", "005-parallel-tool-results-followup.json")],
    indirect=True,
)
def test_parallel_tool_loop_call_sync(server_and_model: tuple[LoopbackServer, OpenAIChatModel]):
    server, model = server_and_model
    client = ChatClient.create(model)
    answer = client.prompt(BOTH_QUESTION).tools(weather, best_language_to_learn).call().content()
    assert answer is not None
    assert answer.startswith("- Berlin weather (52.5200, 13.4050): 15°C, wind 10 km/h.")
    check_requests(server, stream=False, followup="005-parallel-tool-results-followup.json")


@pytest.mark.parametrize(
    "server_and_model",
    [("007-stream-tool-call-fragmented.json", "006-stream-text-usage.json")],
    indirect=True,
)
def test_tool_loop_stream_sync(server_and_model: tuple[LoopbackServer, OpenAIChatModel]):
    server, model = server_and_model
    pieces = list(ChatClient.create(model).prompt(QUESTION).tools(weather).stream().content())
    assert pieces == ["1", "\n", "2", "\n", "3"]
    assert len(server.requests) == 2
    first, second = (r.json() for r in server.requests)
    assert first["stream"] is True
    assert first["stream_options"] == {"include_usage": True}
    assert first["messages"] == [{"role": "user", "content": QUESTION}]
    assert second["messages"] == [
        {"role": "user", "content": QUESTION},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_N2fJZh6fGguUrjbTlDD9mkbh",
                    "type": "function",
                    "function": {
                        "name": "weather",
                        "arguments": '{"latitude":"52.5200","longitude":"13.4050"}',
                    },
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_N2fJZh6fGguUrjbTlDD9mkbh",
            "content": "Current weather at 52.5200, 13.4050: 15°C, Wind: 10 km/h",
        },
    ]


async def test_tool_loop_call_async():
    with served("002-tool-call-single.json", "003-tool-result-followup.json") as server:
        async with OpenAIChatModel(
            model="gpt-5-nano", api_key="sk-loopback", base_url=server.base_url
        ) as model:
            spec = ChatClient.create(model).prompt(QUESTION).tools(weather).call()
            response = await spec.achat_response()
        assert response is not None
        assert response.text == "Berlin (52.5200, 13.4050): 15°C, Wind 10 km/h."
        # The usage of both rounds is summed on the final response.
        assert response.usage.prompt_tokens == 169 + 230
        assert response.usage.completion_tokens == 160 + 352
        check_requests(server, stream=False, followup="003-tool-result-followup.json")


async def test_tool_loop_stream_async():
    with served("008-stream-tool-call-no-arguments.json", "006-stream-text-usage.json") as server:
        async with OpenAIChatModel(
            model="gpt-5-nano", api_key="sk-loopback", base_url=server.base_url
        ) as model:
            spec = ChatClient.create(model).prompt("Best language?").tools(best_language_to_learn)
            pieces = [text async for text in spec.stream().acontent()]
        assert "".join(pieces) == "1\n2\n3"
        second = server.requests[1].json()["messages"]
        assert second[1]["tool_calls"][0]["function"] == {
            "name": "best_language_to_learn",
            "arguments": "{}",
        }
        assert second[2] == {
            "role": "tool",
            "tool_call_id": "call_TUkbUb0gIeBdIOHbrszf5mHx",
            "content": "Ruby",
        }
