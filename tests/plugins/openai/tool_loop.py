"""OpenAI's tool-loop scenarios: the model's tool call, then its answer.

The tool's result travels back as a ``tool`` message; the follow-up request is compared
with the one recorded (tool arguments parsed: their spacing is the model's).
"""

from __future__ import annotations

import json
from typing import Any

from ostinato import ChatResponse
from ostinato_openai import OpenAIChatModel
from tests.fakes.corpus_tools import BOTH_QUESTION, QUESTION, best_language_to_learn, weather
from tests.plugins.openai.loopback import LoopbackServer
from tests.plugins.openai.wire import load
from tests.plugins.tool_loop import Scenario, ToolLoop, asking, scenario

__all__ = ["OPENAI"]

ANSWER = "Berlin (52.5200, 13.4050): 15°C, Wind 10 km/h."

#: The model's call of the weather tool, then its answer to the result.
WEATHER = ("002-tool-call-single.json", "003-tool-result-followup.json")
#: The model's calls of both tools in one turn, then its answer to both results.
PARALLEL = ("004-parallel-tool-calls.json", "005-parallel-tool-results-followup.json")


def served(*names: str) -> LoopbackServer:
    return LoopbackServer([load("openai", name) for name in names])


def new_model(server: LoopbackServer) -> OpenAIChatModel:
    return OpenAIChatModel(model="gpt-5-nano", api_key="sk-loopback", base_url=server.base_url)


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


def check_requests(server: LoopbackServer, followup: str) -> None:
    """Both requests of a call went to /v1/chat/completions; the follow-up is the recorded one."""
    assert len(server.requests) == 2
    for received in server.requests:
        assert received.method == "POST"
        assert received.target == "/v1/chat/completions"
        assert received.headers["authorization"] == "Bearer sk-loopback"
        body = received.json()
        assert body["stream"] is False
        assert body["model"] == "gpt-5-nano"
        assert [t["function"]["name"] for t in body["tools"]] == [
            t["function"]["name"] for t in load("openai", followup).request["body"]["tools"]
        ]
    assert normalised(messages_sent(server, 1)) == normalised(recorded_messages(followup))


ask_weather = asking(QUESTION, weather)
ask_both = asking(BOTH_QUESTION, weather, best_language_to_learn)


ask_language = asking("Best language?", best_language_to_learn)


@scenario(*WEATHER, ask=ask_weather, followup=True)
def call_sync(server: LoopbackServer, answer: str | None) -> None:
    assert answer == ANSWER
    # The follow-up is exactly what ruby_llm sent, message for message.
    assert messages_sent(server, 1) == recorded_messages("003-tool-result-followup.json")


parallel_call_sync = Scenario(
    PARALLEL,
    ask_both,
    starts="- Berlin weather (52.5200, 13.4050): 15°C, wind 10 km/h.",
    followup=True,
)


@scenario("007-stream-tool-call-fragmented.json", "006-stream-text-usage.json", ask=ask_weather)
def stream_sync(server: LoopbackServer, pieces: list[str]) -> None:
    assert pieces == ["1", "\n", "2", "\n", "3"]
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


@scenario(*WEATHER, ask=ask_weather, usage=(169 + 230, 160 + 352), followup=True)
def call_async(server: LoopbackServer, response: ChatResponse) -> None:
    assert response.text == ANSWER


@scenario("008-stream-tool-call-no-arguments.json", "006-stream-text-usage.json", ask=ask_language)
def stream_async(server: LoopbackServer, pieces: list[str]) -> None:
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


OPENAI = ToolLoop(
    "openai",
    served,
    new_model,
    call_sync,
    stream_sync,
    call_async,
    stream_async,
    parallel_call_sync,
    check_followup=check_requests,
)
