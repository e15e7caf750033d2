"""Watching and steering the tool loop: typed events, a listener, limits.

A listener sees every step of a turn on the call path; ``stream().events()`` yields the
same steps (plus the text and tool-call pieces as they stream); every event has a JSON
form. Usage limits and no-progress detection end a turn that would run away.

Run: ``uv run python examples/events.py``
"""

from __future__ import annotations

import json

from ostinato import ChatClient, tool
from ostinato.advisors import ToolCallingAdvisor, UsageLimits
from ostinato.events import LoopEnded, LoopEvent, TextDelta, ToolFinished, ToolStarted
from ostinato.testing import ScriptedChatModel, text_response, tool_call, tool_call_response


@tool(description="Current temperature in a city, in °C")
def temperature(city: str) -> int:
    return {"Paris": 14, "Lisbon": 21}.get(city, 10)


def weather_model() -> ScriptedChatModel:
    return ScriptedChatModel(
        [
            tool_call_response(
                tool_call("temperature", {"city": "Lisbon"}, id="t1"), usage=(20, 5, 25)
            ),
            text_response("Lisbon is at 21 °C.", usage=(30, 7, 37)),
        ]
    )


def show(event: LoopEvent) -> None:
    """A listener: one line per step (durations left out so the output is stable)."""
    if isinstance(event, ToolStarted):
        print(f"  round {event.round}: {event.call.name}({event.call.arguments}) ...")
    elif isinstance(event, ToolFinished):
        print(f"  round {event.round}: {event.call.name} -> {event.result}")
    elif isinstance(event, LoopEnded):
        print(f"  ended: {event.reason}, {event.rounds} rounds, {event.usage.total_tokens} tokens")


print("call, with a listener:")
client = ChatClient.builder(weather_model()).listener(show).build()
print(client.prompt("How warm is Lisbon?").tools(temperature).call().content())

print("stream, as events:")
client = ChatClient.create(weather_model())
pieces = []
for event in client.prompt("How warm is Lisbon?").tools(temperature).stream().events():
    if isinstance(event, TextDelta):
        pieces.append(event.text)
    elif isinstance(event, LoopEnded):
        print(f"  {len(pieces)} text pieces: {''.join(pieces)!r}")
        print("  as JSON:", json.dumps(event.to_dict())[:60], "...")

print("a usage limit:")
client = (
    ChatClient.builder(weather_model()).default_usage_limits(UsageLimits(total_tokens=20)).build()
)
print(client.prompt("How warm is Lisbon?").tools(temperature).call().content())

print("no progress, ended:")
same_call = [
    tool_call_response(tool_call("temperature", {"city": "Paris"}, id=f"p{n}")) for n in range(3)
]
advisor = ToolCallingAdvisor(no_progress_action="end")
client = ChatClient(ScriptedChatModel(same_call), tool_advisor=advisor)
print(client.prompt("How warm is Paris?").tools(temperature).call().content())
