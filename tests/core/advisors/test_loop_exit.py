"""ToolLoopExitListener: advisors inside the tool loop learn of the endings they cannot see
(return-direct, a tool-call limit, the iteration cap), once, on both paths."""

from __future__ import annotations

import pytest

from ostinato import ChatClient
from ostinato.advisors import (
    ToolCallingAdvisor,
    ToolLoopExit,
    ToolLoopExitListener,
    ToolLoopExitReason,
)
from ostinato.messages import ToolResponseMessage
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.tools import DefaultToolCallingManager, ToolCallLimits
from tests.core.advisors.fakes import ExitListener, forecast, weather

pytestmark = pytest.mark.parametrize("mode", ["call", "stream"])


INSIDE = ToolCallingAdvisor.DEFAULT_ORDER + 1
OUTSIDE = ToolCallingAdvisor.DEFAULT_ORDER - 1


async def ask(client: ChatClient, mode: str, *tools: object) -> str:
    spec = client.prompt("Weather?").tools(*tools)
    if mode == "call":
        return await spec.call().acontent() or ""
    return "".join([piece async for piece in spec.stream().acontent()])


def client_with(model: ScriptedChatModel, *advisors: object) -> ChatClient:
    return ChatClient.builder(model).default_advisors(*advisors).build()


async def test_an_answered_turn_tells_nobody(mode):
    inner, outer = ExitListener(INSIDE), ExitListener(OUTSIDE)
    model = ScriptedChatModel([tool_call_response(("weather", {"city": "Paris"})), "Sunny"])
    assert await ask(client_with(model, inner, outer), mode, weather) == "Sunny"
    assert inner.endings == [] and outer.endings == []


async def test_return_direct_tells_the_advisors_inside_with_the_tool_responses(mode):
    inner, outer = ExitListener(INSIDE), ExitListener(OUTSIDE)
    asking = tool_call_response(("forecast", {"city": "Oslo"}))
    answer = await ask(client_with(ScriptedChatModel([asking]), inner, outer), mode, forecast)
    assert answer == "forecast for Oslo"
    assert outer.endings == []
    [ending] = inner.endings
    assert ending.reason is ToolLoopExitReason.RETURN_DIRECT
    assert ending.asked.result is not None and ending.asked.result.output.has_tool_calls
    assert isinstance(ending.tool_responses, ToolResponseMessage)
    assert [r.response_data for r in ending.tool_responses.responses] == ["forecast for Oslo"]
    assert ending.response.chat_response is not None
    assert ending.response.chat_response.text == "forecast for Oslo"
    assert ending.request.prompt.messages[-1].text == "Weather?"


async def test_the_iteration_cap_tells_the_advisors_inside(mode):
    inner = ExitListener(INSIDE)
    model = ScriptedChatModel(
        [tool_call_response(("weather", {"city": c})) for c in ("Paris", "Rome")]
    )
    client = client_with(model, inner, ToolCallingAdvisor(max_iterations=2))
    answer = await ask(client, mode, weather)
    [ending] = inner.endings
    assert ending.reason is ToolLoopExitReason.MAX_ITERATIONS
    assert ending.tool_responses is None
    assert ending.response.chat_response is not None
    assert ending.response.chat_response.text == answer
    # The last round's request: the first round's tool exchange is in it.
    assert isinstance(ending.request.prompt.messages[-1], ToolResponseMessage)


async def test_a_limit_breach_tells_the_advisors_inside(mode):
    inner = ExitListener(INSIDE)
    manager = DefaultToolCallingManager(limits=ToolCallLimits(per_tool={"weather": 1}))
    asking = tool_call_response(("weather", {"city": "Paris"}), ("weather", {"city": "Rome"}))
    client = client_with(
        ScriptedChatModel([asking]), inner, ToolCallingAdvisor(tool_calling_manager=manager)
    )
    answer = await ask(client, mode, weather)
    [ending] = inner.endings
    assert ending.reason is ToolLoopExitReason.TOOL_CALL_LIMIT
    assert ending.tool_responses is None
    assert "limit" in answer and ending.response.chat_response is not None
    assert ending.response.chat_response.text == answer


async def test_a_failing_listener_fails_the_turn(mode):
    asking = tool_call_response(("forecast", {"city": "Oslo"}))
    client = client_with(ScriptedChatModel([asking]), ExitListener(INSIDE, fail=True))
    with pytest.raises(RuntimeError, match="listener broke"):
        await ask(client, mode, forecast)


async def test_listeners_are_told_in_chain_order(mode):
    told: list[str] = []

    class Named(ExitListener):
        async def on_tool_loop_exit(self, ending: ToolLoopExit) -> None:
            told.append(f"order {self.order}")

    first, second = Named(INSIDE + 10), Named(INSIDE + 5)
    asking = tool_call_response(("forecast", {"city": "Oslo"}))
    await ask(client_with(ScriptedChatModel([asking]), first, second), mode, forecast)
    assert told == [f"order {INSIDE + 5}", f"order {INSIDE + 10}"]


def test_a_listener_must_implement_the_method(mode):
    class Incomplete(ToolLoopExitListener):
        pass

    with pytest.raises(TypeError, match="on_tool_loop_exit"):
        Incomplete()  # type: ignore[abstract]
