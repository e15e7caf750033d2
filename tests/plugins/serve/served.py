"""What the ostinato-serve tests share: a weather agent on a scripted model, an httpx
client on the ASGI app, and an SSE reader.

The scripted model answers by looking at the prompt (a responder), so concurrent turns
need no ordering: a user question asks for the weather tool, a tool response is answered
in words. ``pay`` needs approval.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

import httpx

from ostinato import ChatClient, tool
from ostinato.messages import ToolResponseMessage, UserMessage
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import report_progress
from ostinato_serve._state import TurnSlots

__all__ = [
    "GatedModel",
    "ObservedSlots",
    "agent",
    "asgi_client",
    "pay",
    "read_sse",
    "sse_messages",
    "weather",
    "weather_progress",
]


@tool(description="Current weather for a city")
def weather(city: str) -> str:
    """The weather in ``city``."""
    return f"{city}: 21C, sunny"


@tool(description="The weather in a city, told as it is fetched")
def weather_progress(city: str) -> str:
    """The weather in ``city``, reporting its progress."""
    report_progress(f"asking the station in {city}", data={"city": city}, fraction=0.5)
    return f"{city}: 21C, sunny"


@tool(description="Pay someone", requires_approval=True)
def pay(amount: int, to: str) -> str:
    """Pay ``amount`` to ``to``."""
    return f"paid {amount} to {to}"


def answer(prompt: Prompt) -> Any:
    """The scripted agent: asks for a tool the question names (the offered tool whose name
    says weather), answers the tool's result."""
    last = prompt.messages[-1]
    if isinstance(last, ToolResponseMessage):
        return text_response(f"Done: {last.responses[0].response_data}.", usage=(10, 5, 15))
    question = last.text if isinstance(last, UserMessage) else ""
    if "pay" in question.lower():
        return tool_call_response(("pay", {"amount": 5, "to": "Ann"}), usage=(8, 2, 10))
    if "weather" in question.lower():
        offered = getattr(prompt.options, "tool_names", ())
        name = next((n for n in offered if "weather" in n), "weather")
        return tool_call_response((name, {"city": "Paris"}), usage=(8, 2, 10))
    return text_response(f"You said: {question}", usage=(4, 3, 7))


def agent() -> ChatClient:
    """A client on the scripted agent."""
    return ChatClient.create(ScriptedChatModel(responder=answer))


class GatedModel:
    """The scripted agent, held at the start of each model request until :meth:`release`
    (from any thread). ``entered`` is set once a request waits; ``cancelled`` once a
    waiting request was cancelled."""

    def __init__(self) -> None:
        self.inner = ScriptedChatModel(responder=answer)
        self.entered = threading.Event()
        self.cancelled = threading.Event()
        self._lock = threading.Lock()
        self._released = False
        self._gates: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    @property
    def default_options(self) -> Any:
        return self.inner.default_options

    def release(self) -> None:
        with self._lock:
            self._released = True
            gates, self._gates = self._gates, []
        for loop, gate in gates:
            loop.call_soon_threadsafe(gate.set)

    async def _wait(self) -> None:
        gate = asyncio.Event()
        with self._lock:
            if self._released:
                return
            self._gates.append((asyncio.get_running_loop(), gate))
        self.entered.set()
        try:
            await gate.wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise

    async def call(self, prompt: Prompt) -> Any:
        await self._wait()
        return await self.inner.call(prompt)

    async def stream(self, prompt: Prompt) -> AsyncIterator[Any]:
        await self._wait()
        async for chunk in self.inner.stream(prompt):
            yield chunk


class ObservedSlots(TurnSlots):
    """The server's turn slots, telling a test (on another thread) when none is taken."""

    __slots__ = ("idle",)

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.idle = threading.Event()

    def acquire(self) -> None:
        super().acquire()
        self.idle.clear()

    def release(self) -> None:
        super().release()
        if self.running == 0:
            self.idle.set()


def asgi_client(app: Any, **kwargs: Any) -> httpx.AsyncClient:
    """An httpx client talking to ``app`` in process."""
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver", **kwargs
    )


def sse_messages(text: str) -> list[tuple[str | None, str]]:
    """``(event, data)`` of each message of an SSE body."""
    messages = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        event = None
        data = []
        for line in block.split("\n"):
            if line.startswith("event: "):
                event = line[len("event: ") :]
            elif line.startswith("data: "):
                data.append(line[len("data: ") :])
        messages.append((event, "\n".join(data)))
    return messages


def read_sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    """``(event, JSON data)`` of each named message of an SSE body."""
    return [(e or "", json.loads(d)) for e, d in sse_messages(text)]
