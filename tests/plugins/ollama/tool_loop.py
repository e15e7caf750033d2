"""Ollama's tool-loop scenarios: ollama.com's recorded tool call (``006``), then an answer.

The corpus has no recorded native follow-up (see its README), so the answer comes from
another recording and the follow-up request is checked against Ollama's documented shape:
the assistant's tool call sent back with its id and thinking, then a ``tool`` message
naming the tool and the call. In the streamed loop the tool-call reply arrives as one JSON
object, read as a one-line stream.
"""

from __future__ import annotations

from typing import Annotated, Any

from ostinato import ChatResponse, tool
from ostinato_ollama import OllamaChatModel, OllamaChatOptions
from tests.plugins.ollama.loopback import LoopbackServer
from tests.plugins.ollama.wire import load
from tests.plugins.tool_loop import ToolLoop, asking, scenario

__all__ = ["OLLAMA"]

QUESTION = "What's the weather like in San Francisco?"
CALL_ID = "call_mo1wm122"
THINKING = "User asks about weather in San Francisco. Use function getWeather."
RESULT = "Sunny, 18°C in San Francisco, CA"
TOOL_CALL = "006-cloud-tool-call-nonstream.json"


@tool(name="getWeather", description="Get the current weather for a location.")
def get_weather(location: Annotated[str, "The city and state, e.g. San Francisco, CA"]) -> str:
    """langchaingo's recorded tool."""
    return f"Sunny, 18°C in {location}"


ask_weather = asking(QUESTION, get_weather)


def served(*names: str) -> LoopbackServer:
    return LoopbackServer([load(name) for name in names])


def new_model(server: LoopbackServer) -> OllamaChatModel:
    # langchaingo sent format "" and options {}: asking the same makes requests comparable.
    return OllamaChatModel(
        default_options=OllamaChatOptions(model="gpt-oss:120b", format="", options={}),
        api_key="ollama-loopback",
        base_url=server.base_url,
    )


def check_requests(server: LoopbackServer, *, stream: bool) -> None:
    """The first request is the recorded one; the follow-up carries the call and result."""
    assert len(server.requests) == 2
    for received in server.requests:
        assert (received.method, received.target) == ("POST", "/api/chat")
        assert received.headers["authorization"] == "Bearer ollama-loopback"
        assert received.json()["stream"] is stream
    first: dict[str, Any] = server.requests[0].json()
    recorded = dict(load(TOOL_CALL).request["body"])
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


@scenario(TOOL_CALL, "001-chat-nonstream-text.json", ask=ask_weather)
def call_sync(server: LoopbackServer, answer: str | None) -> None:
    assert answer == load("001-chat-nonstream-text.json").response["body"]["message"]["content"]
    check_requests(server, stream=False)


@scenario(TOOL_CALL, "005-cloud-stream-thinking.json", ask=ask_weather)
def stream_sync(server: LoopbackServer, pieces: list[str]) -> None:
    lines = load("005-cloud-stream-thinking.json").lines
    assert pieces == [line["message"]["content"] for line in lines if line["message"]["content"]]
    check_requests(server, stream=True)


@scenario(
    TOOL_CALL,
    "001-chat-nonstream-text.json",
    ask=ask_weather,
    usage=(145 + 31, 44 + 46),
    starts="I'm just a language model",
)
def call_async(server: LoopbackServer, response: ChatResponse) -> None:
    check_requests(server, stream=False)


@scenario(TOOL_CALL, "002-chat-stream-text.json", ask=ask_weather)
def stream_async(server: LoopbackServer, pieces: list[str]) -> None:
    assert "".join(pieces) == "Okay, here we go!\n\n1, 2, 3, 4, 5\n"
    check_requests(server, stream=True)


OLLAMA = ToolLoop("ollama", served, new_model, call_sync, stream_sync, call_async, stream_async)
