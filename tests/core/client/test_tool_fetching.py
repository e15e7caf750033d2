"""A tool provider that fetches its tools (``aget_tool_callbacks``): nothing is fetched
when the client is built; every run — call, stream, events, sync and async — awaits the
fetch before it builds its request, so the first request already offers the tools."""

from __future__ import annotations

import asyncio

import pytest

from ostinato import ChatClient, tool
from ostinato.events import ToolFinished
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato.tools import ToolCallback, tool_callbacks


@tool(description="Current temperature in a city, in °C")
def temperature(city: str) -> int:
    return 14


class FetchingProvider:
    """Offers its tools only once they were fetched, as MCP servers listing theirs do."""

    def __init__(self) -> None:
        self.fetches = 0
        self.tools: list[ToolCallback] = []

    async def aget_tool_callbacks(self) -> list[ToolCallback]:
        self.fetches += 1
        self.tools = tool_callbacks(temperature)
        return self.tools

    def get_tool_callbacks(self) -> list[ToolCallback]:
        return self.tools


def script() -> ScriptedChatModel:
    return ScriptedChatModel(
        [tool_call_response(tool_call("temperature", {"city": "Paris"})), "14 °C."]
    )


WAYS = ["call", "stream", "events", "acall", "astream", "aevents"]


async def run(way: str, client: ChatClient) -> str:
    spec = client.prompt("How warm is Paris?")
    if way == "call":
        return spec.call().content() or ""
    if way == "acall":
        return await spec.call().acontent() or ""
    if way == "stream":
        return "".join(spec.stream().content())
    if way == "astream":
        return "".join([t async for t in spec.stream().acontent()])
    events = (
        list(spec.stream().events())
        if way == "events"
        else [e async for e in spec.stream().aevents()]
    )
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    return finished.result


@pytest.mark.parametrize("way", WAYS)
def test_the_tools_are_fetched_before_each_request_and_not_before(way):
    provider = FetchingProvider()
    model = script()
    client = ChatClient.builder(model).default_tools(provider).build()
    assert provider.fetches == 0
    answer = asyncio.run(run(way, client))
    assert answer == ("14" if way.endswith("events") else "14 °C.")
    assert provider.fetches == 1
    assert model.prompts[0].options.tool_names == ("temperature",)  # type: ignore[union-attr]
