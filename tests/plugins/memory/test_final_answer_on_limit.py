"""A memory advisor inside the tool loop with ``final_answer_on_limit``: the capped round
(its calls never ran) is closed when the limit is reached, and the last round, without
tools, is stored like any round that answers — on call and stream, sync and async."""

from __future__ import annotations

import pytest

from ostinato import ToolCallingAdvisor
from ostinato.advisors import ToolLoopExit
from ostinato.messages import AssistantMessage, ToolResponseMessage, UserMessage
from ostinato.testing import ScriptedChatModel
from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory
from tests.plugins.memory.harness import INSIDE, MODES, ask, client_for, weather, weather_call

pytestmark = pytest.mark.parametrize("mode", MODES)


class CountingMemoryAdvisor(MessageChatMemoryAdvisor):
    """The memory plugin's advisor, counting the endings it is told of."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.endings: list[ToolLoopExit] = []

    async def on_tool_loop_exit(self, ending: ToolLoopExit) -> None:
        self.endings.append(ending)
        await super().on_tool_loop_exit(ending)


def _calls_without_responses(stored: list[object]) -> list[str]:
    answered = {r.id for m in stored if isinstance(m, ToolResponseMessage) for r in m.responses}
    return [
        c.id
        for m in stored
        if isinstance(m, AssistantMessage)
        for c in m.tool_calls
        if c.id not in answered
    ]


async def test_the_capped_round_is_closed_and_the_final_answer_stored(mode):
    model = ScriptedChatModel([weather_call("Paris"), weather_call("Rome"), "Sunny in both."])
    memory = MessageWindowChatMemory()
    advisor = CountingMemoryAdvisor(memory, order=INSIDE)
    loop = ToolCallingAdvisor(max_iterations=2, final_answer_on_limit=True)
    client = client_for(model, advisor, tool_advisor=loop)
    answer = await ask(client.prompt("Weather in Paris and Rome?").tools(weather), mode)
    assert answer is not None and answer.endswith("Sunny in both.")
    assert len(advisor._open_rounds) == 0
    assert [e.reason.value for e in advisor.endings] == ["max_iterations"]
    assert advisor.endings[0].asked.result is not None
    assert advisor.endings[0].asked.result.output.tool_calls[0].id == "call-Rome"
    stored = await memory.get("c1")
    assert _calls_without_responses(stored) == []
    assert stored[0] == UserMessage("Weather in Paris and Rome?")
    assert stored[-1] == AssistantMessage("Sunny in both.")
    # The next turn's request is one a provider accepts: every call has its response.
    model.add("Anything else?")
    await ask(client.prompt("Thanks").tools(weather), mode)
    assert _calls_without_responses(list(model.prompts[-1].messages)) == []


async def test_a_last_round_asking_for_tools_anyway_is_closed_too(mode):
    model = ScriptedChatModel([weather_call("Paris"), weather_call("Rome")])
    memory = MessageWindowChatMemory()
    advisor = CountingMemoryAdvisor(memory, order=INSIDE)
    loop = ToolCallingAdvisor(max_iterations=1, final_answer_on_limit=True)
    client = client_for(model, advisor, tool_advisor=loop)
    answer = await ask(client.prompt("Weather?").tools(weather), mode)
    assert "Stopped after 1 model rounds" in (answer or "")
    assert len(advisor._open_rounds) == 0
    # Each round left open by a limit is told of once: the capped one, then the last.
    asked = [e.asked.result.output.tool_calls[0].id for e in advisor.endings if e.asked.result]
    assert asked == ["call-Paris", "call-Rome"]
    assert _calls_without_responses(await memory.get("c1")) == []
