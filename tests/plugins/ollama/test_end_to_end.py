"""The whole tool loop through ``ChatClient`` with ``OllamaChatModel`` over real sockets.

A loopback server replays recorded exchanges in sequence: ollama.com's recorded tool call
(``006``), then a recorded answer. The corpus has no recorded native follow-up (see its
README), so the answer comes from another recording and the follow-up request is checked
against Ollama's documented shape: the assistant's tool call sent back with its id and
thinking, then a ``tool`` message naming the tool and the call. Sync and async faces,
call and stream; in the streamed loop the tool-call reply arrives as one JSON object,
read as a one-line stream.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest

from ostinato import ChatClient, tool
from ostinato_ollama import OllamaChatModel, OllamaChatOptions
from tests.fakes.loopback_fixture import server_and_model_fixture
from tests.plugins.ollama.loopback import LoopbackServer
from tests.plugins.ollama.wire import load

QUESTION = "What's the weather like in San Francisco?"
CALL_ID = "call_mo1wm122"
THINKING = "User asks about weather in San Francisco. Use function getWeather."
RESULT = "Sunny, 18°C in San Francisco, CA"


@tool(name="getWeather", description="Get the current weather for a location.")
def get_weather(location: Annotated[str, "The city and state, e.g. San Francisco, CA"]) -> str:
    """langchaingo's recorded tool."""
    return f"Sunny, 18°C in {location}"


def served(*names: str) -> LoopbackServer:
    return LoopbackServer([load(name) for name in names])


def new_model(server: LoopbackServer) -> OllamaChatModel:
    # langchaingo sent format "" and options {}: asking the same makes requests comparable.
    return OllamaChatModel(
        default_options=OllamaChatOptions(model="gpt-oss:120b", format="", options={}),
        api_key="ollama-loopback",
        base_url=server.base_url,
    )


server_and_model = server_and_model_fixture(served, new_model)


def check_requests(server: LoopbackServer, *, stream: bool) -> None:
    """The first request is the recorded one; the follow-up carries the call and result."""
    assert len(server.requests) == 2
    for received in server.requests:
        assert (received.method, received.target) == ("POST", "/api/chat")
        assert received.headers["authorization"] == "Bearer ollama-loopback"
        assert received.json()["stream"] is stream
    first: dict[str, Any] = server.requests[0].json()
    recorded = dict(load("006-cloud-tool-call-nonstream.json").request["body"])
    assert {k: v for k, v in first.items() if k not in ("tools", "stream")} == {
        k: v for k, v in recorded.items() if k not in ("tools", "stream")
    }
    (sent_tool,) = first["tools"]
    (recorded_tool,) = recorded["tools"]
    assert sent_tool["type"] == recorded_tool["type"] == "function"
    for key in ("name", "description"):
        assert sent_tool["function"][key] == recorded_tool["function"][key]
    assert sent_tool["function"]["parameters"]["required"] == ["location"]
    assert server.requests[1].json()["messages"] == [
        {"role": "user", "content": QUESTION},
        {
            "role": "assistant",
            "content": "",
            "thinking": THINKING,
            "tool_calls": [
                {
                    "id": CALL_ID,
                    "function": {
                        "index": 0,
                        "name": "getWeather",
                        "arguments": {"location": "San Francisco, CA"},
                    },
                }
            ],
        },
        {"role": "tool", "content": RESULT, "tool_name": "getWeather", "tool_call_id": CALL_ID},
    ]


@pytest.mark.parametrize(
    "server_and_model",
    [("006-cloud-tool-call-nonstream.json", "001-chat-nonstream-text.json")],
    indirect=True,
)
def test_tool_loop_call_sync(server_and_model: tuple[LoopbackServer, OllamaChatModel]):
    server, model = server_and_model
    answer = ChatClient.create(model).prompt(QUESTION).tools(get_weather).call().content()
    assert answer == load("001-chat-nonstream-text.json").response["body"]["message"]["content"]
    check_requests(server, stream=False)


@pytest.mark.parametrize(
    "server_and_model",
    [("006-cloud-tool-call-nonstream.json", "005-cloud-stream-thinking.json")],
    indirect=True,
)
def test_tool_loop_stream_sync(server_and_model: tuple[LoopbackServer, OllamaChatModel]):
    server, model = server_and_model
    pieces = list(ChatClient.create(model).prompt(QUESTION).tools(get_weather).stream().content())
    lines = load("005-cloud-stream-thinking.json").lines
    assert pieces == [line["message"]["content"] for line in lines if line["message"]["content"]]
    check_requests(server, stream=True)


async def test_tool_loop_call_async():
    with served("006-cloud-tool-call-nonstream.json", "001-chat-nonstream-text.json") as server:
        async with new_model(server) as model:
            spec = ChatClient.create(model).prompt(QUESTION).tools(get_weather).call()
            response = await spec.achat_response()
        assert response is not None
        assert response.text is not None
        assert response.text.startswith("I'm just a language model")
        # The usage of both rounds is summed on the final response.
        assert response.usage.prompt_tokens == 145 + 31
        assert response.usage.completion_tokens == 44 + 46
        check_requests(server, stream=False)


async def test_tool_loop_stream_async():
    with served("006-cloud-tool-call-nonstream.json", "002-chat-stream-text.json") as server:
        async with new_model(server) as model:
            spec = ChatClient.create(model).prompt(QUESTION).tools(get_weather)
            pieces = [text async for text in spec.stream().acontent()]
        assert "".join(pieces) == "Okay, here we go!\n\n1, 2, 3, 4, 5\n"
        check_requests(server, stream=True)
