"""Weather tools, one of them return-direct: its result goes straight to the caller.

Run: ``uv run python examples/weather_return_direct.py``
"""

from __future__ import annotations

import json

from ostinato import ChatClient, tool
from ostinato.testing import ScriptedChatModel, tool_call_response

CITIES = {"San Francisco": 30, "Tokyo": 10, "Paris": 15}


class WeatherTools:
    """Two tools over the same (fake) weather service."""

    @tool(description="Current temperature of a city in Celsius")
    def current_temperature(self, city: str) -> dict[str, object]:
        return {"city": city, "temp": CITIES.get(city, 20), "unit": "C"}

    @tool(
        description="The raw weather report of a city, shown to the user as is", return_direct=True
    )
    def weather_report(self, city: str) -> dict[str, object]:
        temp = CITIES.get(city, 20)
        return {"city": city, "temp": temp, "feels_like": temp - 1, "humidity": 60}


def main() -> None:
    model = ScriptedChatModel(
        [
            # Turn 1: the model asks for three temperatures at once, then answers.
            tool_call_response(
                ("current_temperature", {"city": "San Francisco"}),
                ("current_temperature", {"city": "Tokyo"}),
                ("current_temperature", {"city": "Paris"}),
            ),
            "San Francisco is 30 °C, Tokyo 10 °C and Paris 15 °C.",
            # Turn 2: the model calls the return-direct tool; no second model call.
            tool_call_response(("weather_report", {"city": "Tokyo"})),
        ]
    )
    client = ChatClient.builder(model).default_tools(WeatherTools()).build()

    print(client.prompt("What's the weather in San Francisco, Tokyo and Paris?").call().content())
    report = client.prompt("Give me Tokyo's raw weather report").call().content()
    print(json.loads(report or "{}"))
    print(f"model calls: {model.call_count}")


if __name__ == "__main__":
    main()
