"""Early start: read-only calls start while their round still streams (opt-in), the
transcript is the same as without, nothing is told twice, and the end of a round that
fails or is cancelled cancels what started early."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from ostinato import ChatClient, tool
from ostinato.advisors import ToolCallingAdvisor
from ostinato.errors import ModelConnectionError
from ostinato.events import LoopEvent, ToolFinished, ToolStarted
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.testing._scripted import ScriptedStream
from ostinato.tools import DefaultToolCallingManager, EffectPolicy

TOOL_SECONDS = 0.15
CHUNK_SECONDS = 0.02


def client(model: ScriptedChatModel, eager: bool) -> ChatClient:
    manager = DefaultToolCallingManager(effects=EffectPolicy(eager_start=eager))
    advisor = ToolCallingAdvisor(tool_calling_manager=manager)
    return ChatClient.builder(model).tool_advisor(advisor).build()


class Tools:
    def __init__(self) -> None:
        self.started: list[tuple[str, float]] = []
        self.cancelled: list[str] = []

    def all(self) -> list[Any]:
        log = self

        @tool(effect="read_only")
        async def weather(city: str) -> str:
            """The weather of a city."""
            log.started.append((city, time.perf_counter()))
            try:
                await asyncio.sleep(TOOL_SECONDS)
            except asyncio.CancelledError:
                log.cancelled.append(city)
                raise
            return f"sunny in {city}"

        @tool(effect="read_only")
        def population(city: str) -> str:
            """How many live in a city (a sync tool)."""
            log.started.append((f"pop {city}", time.perf_counter()))
            time.sleep(TOOL_SECONDS)
            return f"many in {city}"

        @tool(effect="side_effecting")
        def note(text: str) -> str:
            """Write a note."""
            log.started.append((f"note {text}", time.perf_counter()))
            return "noted"

        return [weather, population, note]


def round_of_three(model: ScriptedChatModel) -> ScriptedStream:
    asking = tool_call_response(
        ("weather", {"city": "Paris"}), ("population", {"city": "Rome"}), ("note", {"text": "x"})
    )
    return ScriptedStream(model.chunk(asking), delay=CHUNK_SECONDS)


async def stream_turn(eager: bool, events: list[LoopEvent] | None = None) -> Any:
    tools = Tools()
    model = ScriptedChatModel([], chunk_size=4)
    model.add(round_of_three(model), "done")
    spec = client(model, eager).prompt().user("go").tools(*tools.all())
    if events is not None:
        spec = spec.listener(events.append)
    began = time.perf_counter()
    text = "".join([piece async for piece in spec.stream().acontent()])
    return text, time.perf_counter() - began, model.prompts[1].messages, tools


async def test_read_only_calls_start_while_the_round_streams_and_the_transcript_is_the_same():
    events: list[LoopEvent] = []
    text, eager_seconds, eager_messages, tools = await stream_turn(True, events)
    plain_text, plain_seconds, plain_messages, _ = await stream_turn(False)
    assert text == plain_text == "done"
    assert eager_messages == plain_messages  # what the model reads next: identical
    assert eager_seconds < plain_seconds
    assert [name for name, _ in tools.started] == ["Paris", "pop Rome", "note x"]
    # Told once each, when the batch runs them.
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == [
        "weather",
        "population",
        "note",
    ]
    assert len([e for e in events if isinstance(e, ToolFinished)]) == 3


async def test_off_by_default_and_on_the_call_path_nothing_starts_early():
    tools = Tools()
    model = ScriptedChatModel([], chunk_size=4)
    model.add(round_of_three(model), "done")
    spec = client(model, False).prompt().user("go").tools(*tools.all())
    async for _ in spec.stream().acontent():
        pass
    assert EffectPolicy().eager_start is False


async def test_a_round_that_fails_cancels_what_started_early():
    tools = Tools()
    model = ScriptedChatModel([], chunk_size=4)
    chunks = list(round_of_three(model).chunks)
    # The stream breaks once the first call is complete (the second call has begun).
    cut = next(
        i for i, c in enumerate(chunks) if c.result and c.result.output.tool_calls[0].index == 1
    )
    broken = [*chunks[: cut + 1], ModelConnectionError("the connection broke")]
    model.add(ScriptedStream(broken, delay=CHUNK_SECONDS))
    spec = client(model, True).prompt().user("go").tools(*tools.all())
    with pytest.raises(ModelConnectionError):
        async for _ in spec.stream().acontent():
            pass
    assert [name for name, _ in tools.started] == ["Paris"]
    assert tools.cancelled == ["Paris"]


async def test_a_reader_who_stops_cancels_what_started_early():
    tools = Tools()
    model = ScriptedChatModel([], chunk_size=4)
    stream = round_of_three(model)
    model.add(ScriptedStream([*stream.chunks[:-1]], delay=0.2))  # slow to finish
    spec = client(model, True).prompt().user("go").tools(*tools.all())
    responses = spec.stream().achat_client_responses()
    task = asyncio.ensure_future(responses.__anext__())
    while not tools.started:  # noqa: ASYNC110  # the first call started early: stop now
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises((asyncio.CancelledError, StopAsyncIteration)):
        await task
    await responses.aclose()
    assert [name for name, _ in tools.started] == tools.cancelled == ["Paris"]
