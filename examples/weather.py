"""The weather tool of the main job: ``ostinato chat ... --tools examples/weather.py``.

``get_weather`` answers from a small table of invented readings (no network, no key), so
the demo runs anywhere and the same question always gets the same numbers; a city not
in the table gets plausible numbers derived from its name.

``make demo`` runs::

    ostinato chat "What is the weather in Paris and in Tokyo?" --tools examples/weather.py

Run as a script, it asks the same question of a scripted model instead of a real one:
``uv run python examples/weather.py``.
"""

from __future__ import annotations

import zlib
from typing import Annotated

from ostinato import ChatClient, tool
from ostinato.testing import ScriptedChatModel, tool_call_response

CONDITIONS = ("sunny", "partly cloudy", "cloudy", "light rain", "rain", "windy", "foggy")

READINGS: dict[str, tuple[int, str, int]] = {
    # city: (temperature in °C, conditions, wind in km/h) — invented, not live data
    "paris": (14, "light rain", 18),
    "tokyo": (22, "sunny", 9),
    "london": (11, "cloudy", 21),
    "new york": (17, "partly cloudy", 14),
    "lisbon": (21, "sunny", 12),
}


@tool(description="Get the current weather in a city")
def get_weather(city: Annotated[str, "the city's name, e.g. Paris"]) -> dict[str, object]:
    name = city.strip()
    reading = READINGS.get(name.lower())
    if reading is None:  # any other city: stable numbers derived from its name
        seed = zlib.crc32(name.lower().encode())
        reading = (seed % 30 - 2, CONDITIONS[seed % len(CONDITIONS)], seed % 35)
    temperature, conditions, wind = reading
    return {
        "city": name,
        "temperature_c": temperature,
        "conditions": conditions,
        "wind_kmh": wind,
    }


def main() -> None:
    # A scripted model stands in for the real one: it asks for both cities at once, then
    # answers from what the tool returned.
    model = ScriptedChatModel(
        [
            tool_call_response(
                ("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo"})
            ),
            "Paris: 14 °C with light rain. Tokyo: 22 °C and sunny.",
        ]
    )
    client = ChatClient.builder(model).default_tools(get_weather).build()
    print(client.prompt("What is the weather in Paris and in Tokyo?").call().content())
    for message in model.prompts[-1].messages[-1:]:
        for response in message.responses:
            print(f"{response.name} -> {response.response_data}")


if __name__ == "__main__":
    main()
