"""The tools and questions of the recorded ruby_llm tool-loop corpus (``tests/wire``).

The end-to-end tests replay the recorded exchanges against these real tools: their names,
descriptions and results are the recorded ones, so the follow-up requests the loop sends
can be compared with the recorded follow-ups.
"""

from __future__ import annotations

from typing import Annotated

from ostinato import tool

__all__ = ["BOTH_QUESTION", "QUESTION", "best_language_to_learn", "weather"]

QUESTION = "What's the weather in Berlin? (52.5200, 13.4050)"
BOTH_QUESTION = (
    "What's the weather in Berlin (52.5200, 13.4050) and what's the best language to learn?"
)


@tool(description="Gets current weather for a location")
def weather(
    latitude: Annotated[str, "Latitude (e.g., 52.5200)"],
    longitude: Annotated[str, "Longitude (e.g., 13.4050)"],
) -> str:
    """Recorded tool of the corpus (ruby_llm's weather tool)."""
    return f"Current weather at {latitude}, {longitude}: 15°C, Wind: 10 km/h"


@tool(description="Gets the best language to learn")
async def best_language_to_learn() -> str:
    """Recorded tool of the corpus."""
    return "Ruby"
