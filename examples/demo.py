"""The whole tool loop, end to end, on a scripted model (the main job, on a real model,
is ``make demo``).

A scripted model stands in for an LLM (no key, no network): it asks for three tool
calls in parallel, then for one more, then answers. Everything else is real — the
ChatClient, the advisor chain, the ToolCallingAdvisor, concurrent tool execution, usage
accounting, and streaming.

Run: ``make run``
"""

from __future__ import annotations

import asyncio
import time

from ostinato import ChatClient, tool
from ostinato.advisors import BaseAdvisor, ToolCallingAdvisor
from ostinato.messages import ToolResponseMessage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response

FORECASTS = {"Paris": (15, "cloudy"), "Tokyo": (10, "rain"), "Lisbon": (22, "sunny")}


@tool(description="Today's forecast for a city: temperature in °C and sky")
async def forecast(city: str) -> dict[str, object]:
    await asyncio.sleep(0.2)  # a slow weather service
    temp, sky = FORECASTS.get(city, (18, "unknown"))
    return {"city": city, "temp_c": temp, "sky": sky}


@tool(description="Convert Celsius to Fahrenheit")
def to_fahrenheit(celsius: float) -> float:
    return round(celsius * 9 / 5 + 32, 1)


class ShowToolRounds(BaseAdvisor):
    """Inside the loop: prints the tool calls of the round that just ended, and their
    results, from the request of the next round.

    The request holds the assistant message whose tool calls were run, whole, and the
    results. ``after`` would not do on the stream path: there it sees only the chunk that
    ends the round, whose tool call may be the last fragment of its arguments.
    """

    order = ToolCallingAdvisor.DEFAULT_ORDER + 1

    async def before(self, request, chain):
        messages = request.prompt.messages
        if len(messages) >= 2 and isinstance(messages[-1], ToolResponseMessage):
            for call in getattr(messages[-2], "tool_calls", ()):
                print(f"    → {call.name}({call.arguments})")
            for response in messages[-1].responses:
                print(f"    ← {response.name}: {response.response_data}")
        return request


def script() -> list[object]:
    return [
        tool_call_response(
            ("forecast", {"city": "Paris"}),
            ("forecast", {"city": "Tokyo"}),
            ("forecast", {"city": "Lisbon"}),
            usage=(120, 40, 160),
        ),
        tool_call_response(("to_fahrenheit", {"celsius": 22}), usage=(260, 20, 280)),
        text_response(
            "Lisbon is the warmest today: 22 °C (71.6 °F) and sunny. "
            "Paris is 15 °C and cloudy; Tokyo 10 °C with rain.",
            usage=(300, 35, 335),
        ),
    ]


def main() -> None:
    question = "Which of Paris, Tokyo and Lisbon is warmest today, in °F too?"
    model = ScriptedChatModel(script() * 2, chunk_size=6)
    client = (
        ChatClient.builder(model)
        .default_system("You are a concise travel assistant.")
        .default_tools(forecast, to_fahrenheit)
        .default_advisors(ShowToolRounds())
        .build()
    )
    print(client.prompt(question).describe())

    print(f"\nuser: {question}\n  call():")
    started = time.perf_counter()
    call = client.prompt(question).call()
    print(f"  assistant: {call.content()}")
    usage = call.chat_response().usage
    print(
        f"  {model.call_count} model rounds, three forecasts run concurrently, "
        f"{time.perf_counter() - started:.2f} s; usage {usage.prompt_tokens} in / "
        f"{usage.completion_tokens} out"
    )

    print("\n  stream():")
    prefix = "  assistant: "
    for piece in client.prompt(question).stream().content():
        print(prefix + piece, end="", flush=True)
        prefix = ""
    print()


if __name__ == "__main__":
    main()
