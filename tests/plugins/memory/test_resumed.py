"""Memory and approvals: a turn that stops for approvals stores nothing; the resumed turn
is stored once, whole, when it ends — outside and inside the tool loop, in memory and in
SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest

from ostinato import tool
from ostinato.advisors import ChatClientResponse
from ostinato.memory import ChatMemoryRepository
from ostinato.messages import AssistantMessage, ToolResponseMessage, UserMessage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_memory import (
    InMemoryChatMemoryRepository,
    MessageChatMemoryAdvisor,
    MessageWindowChatMemory,
    SQLiteChatMemoryRepository,
)
from tests.plugins.memory.harness import INSIDE, MODES, client_for, weather_call


@tool(requires_approval=True, description="Current weather for a city")
def weather(city: str) -> str:
    """The approval-gated weather tool."""
    return f"{city}: 25C"


async def last_response(spec, mode: str) -> ChatClientResponse:  # type: ignore[no-untyped-def]
    if mode == "call":
        return await spec.call().achat_client_response()  # type: ignore[no-any-return]
    chunks = [c async for c in spec.stream().achat_client_responses()]
    return chunks[-1]  # type: ignore[no-any-return]


@pytest.fixture(params=["in-memory", "sqlite"])
def repository(request: pytest.FixtureRequest, tmp_path: Path) -> ChatMemoryRepository:
    if request.param == "in-memory":
        return InMemoryChatMemoryRepository()
    return SQLiteChatMemoryRepository(tmp_path / "memory.sqlite3")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", ["outside", "inside"])
async def test_the_resumed_turn_is_stored_once_whole(
    repository: ChatMemoryRepository, mode: str, order: str
) -> None:
    memory = MessageWindowChatMemory(repository)
    advisor = (
        MessageChatMemoryAdvisor(memory)
        if order == "outside"
        else MessageChatMemoryAdvisor(memory, order=INSIDE)
    )
    await memory.add("c1", [UserMessage("earlier"), AssistantMessage("noted")])
    model = ScriptedChatModel([weather_call("Paris"), text_response("Sunny in Paris.")])
    client = client_for(model, advisor)

    stopped = await last_response(client.prompt().user("Weather?").tools(weather), mode)
    pending = PendingToolCalls.of(stopped)
    assert pending is not None
    assert len(await memory.get("c1")) == 2  # nothing of the stopped turn

    carried = PendingToolCalls.from_json(pending.to_json())
    resumed = (
        client.prompt()
        .tools(weather)
        .resume(carried, {"call-Paris": ApprovalDecision.edit({"city": "Lyon"})})
    )
    await last_response(resumed, mode)

    stored = await memory.get("c1")
    assert [type(m).__name__ for m in stored[:3]] == [
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
    ]
    assert stored[2].text == "Weather?"
    if order == "outside":
        assert len(stored) == 4
    else:
        asking, responses = stored[3], stored[4]
        assert isinstance(asking, AssistantMessage)
        assert '"Lyon"' in asking.tool_calls[0].arguments
        assert isinstance(responses, ToolResponseMessage)
        assert responses.responses[0].response_data == "Lyon: 25C"
        assert len(stored) == 6
    assert stored[-1].text == "Sunny in Paris."
    # The history was sent once (the resumed conversation already held it).
    assert [m.text for m in model.prompts[1].messages].count("earlier") == 1


@pytest.mark.parametrize("mode", MODES)
async def test_a_cancelled_tool_round_is_kept_with_every_call_answered(mode: str) -> None:
    import asyncio
    import threading

    from ostinato import CancelScope

    started = threading.Event()

    @tool
    async def wait_forever(city: str) -> str:
        """Never answers."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    memory = MessageWindowChatMemory(InMemoryChatMemoryRepository())
    model = ScriptedChatModel(
        [tool_call_response(("wait_forever", {"city": "Oslo"}), ("wait_forever", {"city": "Rome"}))]
    )
    client = client_for(model, MessageChatMemoryAdvisor(memory, order=INSIDE))
    scope = CancelScope()
    spec = client.prompt().user("Weather?").tools(wait_forever).cancel_scope(scope)
    waiter = asyncio.ensure_future(asyncio.to_thread(started.wait, 30))
    run = asyncio.ensure_future(last_response(spec, mode))
    await waiter
    scope.cancel()
    await run

    stored = await memory.get("c1")
    asking, responses = stored[1], stored[2]
    assert isinstance(asking, AssistantMessage) and isinstance(responses, ToolResponseMessage)
    assert [r.id for r in responses.responses] == [c.id for c in asking.tool_calls]
    assert all(r.response_data.startswith("Cancelled") for r in responses.responses)
    assert stored[-1].text == "The turn was cancelled."
