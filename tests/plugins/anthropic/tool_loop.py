"""Anthropic's tool-loop scenarios: the model's ``tool_use``, then its answer.

The tool's result travels back as a ``tool_result`` block; the follow-up request is
compared with the one recorded.
"""

from __future__ import annotations

from typing import Any

from ostinato import ChatClient
from ostinato.client import ChatClientRequestSpec
from ostinato_anthropic import AnthropicChatModel, AnthropicChatOptions
from tests.fakes.corpus_tools import BOTH_QUESTION, QUESTION, best_language_to_learn, weather
from tests.plugins.anthropic.loopback import LoopbackServer
from tests.plugins.anthropic.wire import load
from tests.plugins.tool_loop import Scenario, ToolLoop, asking, scenario

__all__ = ["ANTHROPIC"]

MODEL = "claude-haiku-4-5-20251001"

#: The model's call of the weather tool, then its answer to the result.
WEATHER = ("002-tool-use-single.json", "003-tool-result-followup.json")
#: The model's calls of both tools in one turn, then its answer to both results.
PARALLEL = ("004-tool-use-parallel.json", "005-tool-results-followup-parallel.json")


def served(*names: str) -> LoopbackServer:
    return LoopbackServer([load(name) for name in names])


def new_model(server: LoopbackServer) -> AnthropicChatModel:
    # ruby_llm asked for 64000 tokens; asking the same makes whole requests comparable.
    return AnthropicChatModel(
        default_options=AnthropicChatOptions(model=MODEL, max_tokens=64000),
        api_key="sk-ant-loopback",
        base_url=server.base_url,
    )


def check_requests(server: LoopbackServer, followup: str) -> None:
    """Both requests of a call went to /v1/messages; the follow-up is exactly the recorded one."""
    assert len(server.requests) == 2
    recorded = load(followup).request["body"]
    for received in server.requests:
        assert received.method == "POST"
        assert received.target == "/v1/messages"
        assert received.headers["x-api-key"] == "sk-ant-loopback"
        assert received.headers["anthropic-version"] == "2023-06-01"
        body = received.json()
        assert body["stream"] is False
        assert (body["model"], body["max_tokens"]) == (MODEL, 64000)
        assert [t["name"] for t in body["tools"]] == [t["name"] for t in recorded["tools"]]
    sent = server.requests[1].json()
    assert sent["messages"] == recorded["messages"]


ask_weather = asking(QUESTION, weather)
ask_both = asking(BOTH_QUESTION, weather, best_language_to_learn)


def ask_language(client: ChatClient) -> ChatClientRequestSpec:
    return (
        client.prompt()
        .system("You must use tools whenever possible.")
        .user("What's the best language to learn?")
        .tools(best_language_to_learn)
    )


call_sync = Scenario(
    WEATHER,
    ask_weather,
    starts="The weather in Berlin is currently:\n- **Temperature**: 15°C",
    followup=True,
)


# Both results in one user turn, in call order, as recorded.
parallel_call_sync = Scenario(
    PARALLEL,
    ask_both,
    starts="Here's the information you requested:",
    followup=True,
)


@scenario("007-stream-tool-use.json", "006-stream-text.json", ask=ask_weather)
def stream_sync(server: LoopbackServer, pieces: list[str]) -> None:
    assert pieces == ["1\n2\n3"]
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


call_async = Scenario(
    WEATHER,
    ask_weather,
    usage=(633 + 748, 75 + 55),
    starts="The weather in Berlin is currently:",
    followup=True,
)


@scenario("008-stream-tool-use-no-arguments.json", "006-stream-text.json", ask=ask_language)
def stream_async(server: LoopbackServer, pieces: list[str]) -> None:
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


ANTHROPIC = ToolLoop(
    "anthropic",
    served,
    new_model,
    call_sync,
    stream_sync,
    call_async,
    stream_async,
    parallel_call_sync,
    check_followup=check_requests,
)
