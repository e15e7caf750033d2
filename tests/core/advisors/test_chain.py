"""AdvisorChain: ordering, walking, copying and rendering (stable order of equal orders, also in copies)."""

from __future__ import annotations

import pytest

from ostinato.advisors import (
    AdvisorChain,
    BaseAdvisor,
    CallAdvisor,
    ChatClientRequest,
    ChatClientResponse,
    ChatModelCallAdvisor,
    ChatModelStreamAdvisor,
    MemoryAdvisor,
    Ordered,
    StreamAdvisor,
    ToolCallingAdvisor,
)
from ostinato.errors import AdvisorChainError
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel
from tests.core.advisors.fakes import LoggingAdvisor, NamedAdvisor


def names(advisors) -> list[str]:
    return [a.name for a in advisors]


def test_advisors_run_in_ascending_order():
    chain = AdvisorChain([LoggingAdvisor("c", 3), LoggingAdvisor("a", 1), LoggingAdvisor("b", 2)])
    assert names(chain.call_advisors) == ["a", "b", "c"]


def test_equal_orders_keep_registration_order_in_chain_and_copies():
    x, y, z, first = (
        LoggingAdvisor("x", 0),
        LoggingAdvisor("y", 0),
        LoggingAdvisor("z", 0),
        LoggingAdvisor("first", -1),
    )
    chain = AdvisorChain([x, y, first, z])
    assert names(chain.call_advisors) == ["first", "x", "y", "z"]
    assert names(chain.copy(first).call_advisors) == ["x", "y", "z"]
    assert names(chain.copy(x).copy(y).call_advisors) == ["z"]


def test_copy_after_last_advisor_is_empty():
    a1, a2, a3 = LoggingAdvisor("a1", 1), LoggingAdvisor("a2", 2), LoggingAdvisor("a3", 3)
    assert AdvisorChain([a1, a2, a3]).copy(a3).call_advisors == ()


def test_copy_from_the_middle_leaves_the_original_unchanged():
    advisors = [LoggingAdvisor(f"a{i}", i) for i in range(1, 5)]
    chain = AdvisorChain(advisors)
    assert names(chain.copy(advisors[1]).call_advisors) == ["a3", "a4"]
    assert names(chain.call_advisors) == ["a1", "a2", "a3", "a4"]


def test_copy_rejects_unknown_or_missing_advisor():
    chain = AdvisorChain([LoggingAdvisor("a", 1)])
    with pytest.raises(
        ValueError, match="The specified advisor is not part of the chain: stranger"
    ):
        chain.copy(LoggingAdvisor("stranger"))
    with pytest.raises(ValueError, match="The after advisor must not be null"):
        chain.copy(None)


async def test_walking_past_the_end_is_an_error():
    chain = AdvisorChain([])
    request = ChatClientRequest(Prompt("hi"))
    with pytest.raises(AdvisorChainError, match="No CallAdvisors available to execute"):
        await chain.next_call(request)
    with pytest.raises(AdvisorChainError, match="No StreamAdvisors available to execute"):
        chain.next_stream(request)


async def test_snapshot_lists_do_not_change_while_walking():
    log: list[str] = []
    model = ScriptedChatModel(["ok"])
    chain = AdvisorChain([LoggingAdvisor("a", 1, log), ChatModelCallAdvisor(model)])
    before = chain.call_advisors
    await chain.next_call(ChatClientRequest(Prompt("hi")))
    assert chain.call_advisors == before
    assert log == ["a"]


async def test_call_only_and_stream_only_advisors_land_on_their_path():
    class CallOnly(CallAdvisor):
        async def advise_call(self, request, chain):
            return await chain.next_call(request)

    class StreamOnly(StreamAdvisor):
        async def advise_stream(self, request, chain):
            async for c in chain.next_stream(request):
                yield c

    model = ScriptedChatModel()
    chain = AdvisorChain(
        [CallOnly(), StreamOnly(), ChatModelCallAdvisor(model), ChatModelStreamAdvisor(model)]
    )
    assert names(chain.call_advisors) == ["CallOnly", "call"]
    assert names(chain.stream_advisors) == ["StreamOnly", "stream"]


class Tagging(NamedAdvisor):
    """Writes its name into the context before and after, like Spring AI's test."""

    async def before(self, request, chain):
        return request.with_context({f"{self._name}.before": True, "lastBefore": self._name})

    async def after(self, response, chain):
        return response.with_context({f"{self._name}.after": True, "lastAfter": self._name})


@pytest.mark.parametrize("mode", ["call", "stream"])
async def test_context_flows_down_and_back_up(mode):
    model = ScriptedChatModel(["hello"], chunk_size=100)
    chain = AdvisorChain(
        [
            Tagging("Advisor1", 0),
            Tagging("Advisor2", 1),
            ChatModelCallAdvisor(model),
            ChatModelStreamAdvisor(model),
        ]
    )
    request = ChatClientRequest(Prompt("hi"), {"param": "value"})
    if mode == "call":
        response: ChatClientResponse = await chain.next_call(request)
    else:
        response = [c async for c in chain.next_stream(request)][-1]
    ctx = response.context
    assert ctx["lastBefore"] == "Advisor2"
    assert ctx["lastAfter"] == "Advisor1"
    for key in ("Advisor1.before", "Advisor2.before", "Advisor1.after", "Advisor2.after", "param"):
        assert key in ctx


def test_describe_shows_orders_names_and_the_loop_boundary():
    class Memory(BaseAdvisor, MemoryAdvisor):
        @property
        def order(self) -> int:
            return Ordered.HIGHEST_PRECEDENCE + 200

    model = ScriptedChatModel()
    chain = AdvisorChain(
        [
            LoggingAdvisor("Logger", 0),
            Memory(),
            ToolCallingAdvisor(),
            ChatModelCallAdvisor(model),
            ChatModelStreamAdvisor(model),
        ]
    )
    text = chain.describe()
    lines = text.splitlines()
    assert lines[0] == "advisor chain, outer to inner:"
    assert "HIGHEST+200  Memory [memory]" in lines[1] and "outside the tool loop" in lines[1]
    assert "HIGHEST+300  Tool Calling Advisor [tool loop]" in lines[2]
    assert "Logger" in lines[3] and "inside the tool loop" in lines[3]
    assert lines[-1].strip().startswith("LOWEST  stream")
