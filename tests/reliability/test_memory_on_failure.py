"""A turn that fails leaves the conversation in memory exactly as it was before it.

A real ``ChatClient`` with the memory advisor over SQLite talks to the fault server;
each test breaks one turn of a conversation in one way — an HTTP error, a reset, a
malformed reply, a stream that broke after delivering text, a consumer that walked away —
at the first model call of the turn or after a tool round. Memory must hold only the
turns that completed, and the next turn must work and be stored as usual.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from ostinato import AdvisorParams, ChatClient, tool
from ostinato.errors import ModelError
from ostinato.messages import Message
from ostinato_memory import (
    MessageChatMemoryAdvisor,
    MessageWindowChatMemory,
    SQLiteChatMemoryRepository,
)
from ostinato_openai import OpenAIChatModel, RetryPolicy
from tests.reliability.faultserver import (
    Fault,
    FaultServer,
    ReceivedRequest,
    model_reply,
    reply,
    reset,
    reset_mid_stream,
    sse,
    text_chunks,
)

MODES = ["call", "stream"]
CONVERSATION = "conv-1"


@tool(description="Echo the text back")
def echo(text: str) -> str:
    """The tool the fault server's model asks for."""
    return f"echoed: {text}"


class Plan:
    """Answers like a model, except for the faults injected for the next requests
    (``None`` in the list: answer normally)."""

    def __init__(self) -> None:
        self.next: list[Fault | None] = []

    def __call__(self, request: ReceivedRequest) -> Fault:
        injected = self.next.pop(0) if self.next else None
        return injected or model_reply(request)


class Setup:
    """Server, model, SQLite memory and a client over them."""

    def __init__(self, serve: Callable[..., FaultServer], path: Path) -> None:
        self.plan = Plan()
        self.server = serve(self.plan)
        self.model = OpenAIChatModel(
            model="fault-model",
            api_key="sk-memory",
            base_url=self.server.base_url,
            timeout=httpx.Timeout(5.0),
            retry_policy=RetryPolicy(max_retries=0),
        )
        self.repository = SQLiteChatMemoryRepository(path)
        self.memory = MessageWindowChatMemory(self.repository, max_messages=1000)
        self.client = (
            ChatClient.builder(self.model)
            .default_advisors(
                MessageChatMemoryAdvisor(self.memory),
                AdvisorParams.conversation_id(CONVERSATION),
            )
            .default_tools(echo)
            .build()
        )

    async def ask(self, text: str, mode: str) -> str | None:
        spec = self.client.prompt().user(text)
        if mode == "call":
            return await spec.call().acontent()
        return "".join([piece async for piece in spec.stream().acontent()])

    async def stored(self) -> list[Message]:
        return await self.memory.get(CONVERSATION)

    async def close(self) -> None:
        await self.model.aclose()
        self.repository.close()


@pytest.fixture
async def setup(serve, tmp_path):
    made = Setup(serve, tmp_path / "memory.sqlite3")
    yield made
    await made.close()


def broken_after_text() -> Fault:
    return reset_mid_stream(text_chunks("partial ", "answer")[:2])


FAILURES: dict[str, Callable[[], Fault]] = {
    "500": lambda: reply(500, {"error": {"message": "boom"}}),
    "401": lambda: reply(401, {"error": {"message": "bad key", "code": "invalid_api_key"}}),
    "reset": reset,
    "malformed": lambda: reply(200, "{not json", content_type="application/json"),
    "no-done": lambda: sse(text_chunks("half")[:1], done=False),
    "broken-after-text": broken_after_text,
}


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("where", ["first model call", "after a tool round"])
@pytest.mark.parametrize("mode", MODES)
async def test_a_failed_turn_leaves_memory_as_it_was(setup, mode, where, failure):
    assert await setup.ask("hello", mode) == "answer to hello"
    before = await setup.stored()
    assert len(before) == 2

    fault = FAILURES[failure]()
    # A question goes through the echo tool first: fail its first or its second call.
    setup.plan.next = [fault] if where == "first model call" else [None, fault]
    with pytest.raises(ModelError):
        await setup.ask("what now?", mode)
    assert await setup.stored() == before

    # The conversation goes on, and the next turn is stored as usual.
    assert await setup.ask("and now?", mode) == "echoed: and now?"
    after = await setup.stored()
    assert after[: len(before)] == before
    assert [m.text for m in after[len(before) :] if m.text] == ["and now?", "echoed: and now?"]


async def test_an_abandoned_stream_leaves_memory_as_it_was(setup):
    assert await setup.ask("hello", "stream") == "answer to hello"
    before = await setup.stored()
    setup.plan.next = [sse(text_chunks("a", "b", "c"))]
    async for piece in setup.client.prompt().user("bye").stream().acontent():
        assert piece == "a"
        break
    assert await setup.stored() == before


async def test_a_cancelled_turn_leaves_memory_as_it_was(setup):
    assert await setup.ask("hello", "call") == "answer to hello"
    before = await setup.stored()
    started = asyncio.Event()

    @tool(description="Never returns")
    async def stuck() -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    async def turn() -> None:
        await setup.client.prompt().user("wait").tools(stuck).call().acontent()

    # The model asks for the stuck tool; the turn is cancelled while it runs.
    setup.plan.next = [
        reply(
            200,
            {
                "id": "x",
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {
                                    "id": "c1",
                                    "type": "function",
                                    "function": {"name": "stuck", "arguments": "{}"},
                                }
                            ],
                        },
                        "finish_reason": "tool_calls",
                    }
                ],
            },
        )
    ]
    task = asyncio.create_task(turn())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await setup.stored() == before
