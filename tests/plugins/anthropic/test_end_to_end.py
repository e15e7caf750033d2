"""The whole tool loop through ``ChatClient`` with ``AnthropicChatModel`` over real sockets.

A loopback server replays recorded exchanges in sequence: the model's ``tool_use``, then
its answer. The tool runs for real and its result travels back to the server as a
``tool_result`` block, where the follow-up request is compared with the one recorded.
Sync and async faces, call and stream.
"""

from __future__ import annotations

from typing import Any

import pytest

from ostinato import ChatClient
from ostinato_anthropic import AnthropicChatModel, AnthropicChatOptions
from tests.fakes.corpus_tools import BOTH_QUESTION, QUESTION, best_language_to_learn, weather
from tests.fakes.loopback_fixture import server_and_model_fixture
from tests.plugins.anthropic.loopback import LoopbackServer
from tests.plugins.anthropic.wire import load

MODEL = "claude-haiku-4-5-20251001"


def served(*names: str) -> LoopbackServer:
    return LoopbackServer([load(name) for name in names])


def new_model(server: LoopbackServer) -> AnthropicChatModel:
    # ruby_llm asked for 64000 tokens; asking the same makes whole requests comparable.
    return AnthropicChatModel(
        default_options=AnthropicChatOptions(model=MODEL, max_tokens=64000),
        api_key="sk-ant-loopback",
        base_url=server.base_url,
    )


server_and_model = server_and_model_fixture(served, new_model)


def check_requests(server: LoopbackServer, *, stream: bool, followup: str) -> None:
    """Both requests went to /v1/messages; the follow-up is exactly the recorded one."""
    assert len(server.requests) == 2
    recorded = load(followup).request["body"]
    for received in server.requests:
        assert received.method == "POST"
        assert received.target == "/v1/messages"
        assert received.headers["x-api-key"] == "sk-ant-loopback"
        assert received.headers["anthropic-version"] == "2023-06-01"
        body = received.json()
        assert body["stream"] is stream
        assert (body["model"], body["max_tokens"]) == (MODEL, 64000)
        assert [t["name"] for t in body["tools"]] == [t["name"] for t in recorded["tools"]]
    sent = server.requests[1].json()
    assert sent["messages"] == recorded["messages"]


@pytest.mark.parametrize(
    "server_and_model",
    [("002-tool-use-single.json", "003-tool-result-followup.json")],
    indirect=True,
)
def test_tool_loop_call_sync(server_and_model: tuple[LoopbackServer, AnthropicChatModel]):
    server, model = server_and_model
    answer = ChatClient.create(model).prompt(QUESTION).tools(weather).call().content()
    assert answer is not None
    assert answer.startswith("The weather in Berlin is currently:\n- **Temperature**: 15°C")
    check_requests(server, stream=False, followup="003-tool-result-followup.json")


@pytest.mark.parametrize(
    "server_and_model",
    [("004-tool-use-parallel.json", "005-tool-results-followup-parallel.json")],
    indirect=True,
)
def test_parallel_tool_loop_call_sync(
    server_and_model: tuple[LoopbackServer, AnthropicChatModel],
):
    server, model = server_and_model
    client = ChatClient.create(model)
    answer = client.prompt(BOTH_QUESTION).tools(weather, best_language_to_learn).call().content()
    assert answer is not None
    assert answer.startswith("Here's the information you requested:")
    # Both results in one user turn, in call order, as recorded.
    check_requests(server, stream=False, followup="005-tool-results-followup-parallel.json")


@pytest.mark.parametrize(
    "server_and_model",
    [("007-stream-tool-use.json", "006-stream-text.json")],
    indirect=True,
)
def test_tool_loop_stream_sync(server_and_model: tuple[LoopbackServer, AnthropicChatModel]):
    server, model = server_and_model
    pieces = list(ChatClient.create(model).prompt(QUESTION).tools(weather).stream().content())
    assert pieces == ["1\n2\n3"]
    assert len(server.requests) == 2
    first, second = (r.json() for r in server.requests)
    assert first["stream"] is True
    assert first["messages"] == [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}]
    assert second["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_01MKSN7NHsBVKr7Jvw5pqCQq",
                    "name": "weather",
                    "input": {"latitude": "52.5200", "longitude": "13.4050"},
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01MKSN7NHsBVKr7Jvw5pqCQq",
                    "content": [
                        {
                            "type": "text",
                            "text": "Current weather at 52.5200, 13.4050: 15°C, Wind: 10 km/h",
                        }
                    ],
                }
            ],
        },
    ]


async def test_tool_loop_call_async():
    with served("002-tool-use-single.json", "003-tool-result-followup.json") as server:
        async with new_model(server) as model:
            spec = ChatClient.create(model).prompt(QUESTION).tools(weather).call()
            response = await spec.achat_response()
        assert response is not None
        assert response.text is not None
        assert response.text.startswith("The weather in Berlin is currently:")
        # The usage of both rounds is summed on the final response.
        assert response.usage.prompt_tokens == 633 + 748
        assert response.usage.completion_tokens == 75 + 55
        check_requests(server, stream=False, followup="003-tool-result-followup.json")


async def test_tool_loop_stream_async():
    with served("008-stream-tool-use-no-arguments.json", "006-stream-text.json") as server:
        async with new_model(server) as model:
            spec = (
                ChatClient.create(model)
                .prompt()
                .system("You must use tools whenever possible.")
                .user("What's the best language to learn?")
                .tools(best_language_to_learn)
            )
            pieces = [text async for text in spec.stream().acontent()]
        assert "".join(pieces) == "1\n2\n3"
        first: dict[str, Any] = server.requests[0].json()
        # The first request is exactly the recorded one, apart from the tool's schema.
        recorded = dict(load("008-stream-tool-use-no-arguments.json").request["body"])
        assert {k: v for k, v in first.items() if k != "tools"} == {
            k: v for k, v in recorded.items() if k != "tools"
        }
        second = server.requests[1].json()["messages"]
        assert second[1]["content"] == [
            {
                "type": "tool_use",
                "id": "toolu_01EcJNDtgucTvxugUxuGcJmF",
                "name": "best_language_to_learn",
                "input": {},
            }
        ]
        assert second[2]["content"] == [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_01EcJNDtgucTvxugUxuGcJmF",
                "content": [{"type": "text", "text": "Ruby"}],
            }
        ]
