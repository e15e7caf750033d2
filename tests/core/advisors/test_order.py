"""The one "at most one tool advisor" check and the one "inside the tool loop" answer."""

from __future__ import annotations

import pytest

from ostinato import ChatClient, ToolCallingAdvisor
from ostinato.advisors import (
    AdvisorChain,
    MemoryAdvisor,
    advisors_inside_tool_loop,
    check_tool_advisors,
)
from ostinato.errors import AdvisorChainError
from ostinato.testing import ScriptedChatModel
from tests.core.advisors.fakes import NamedAdvisor

LOOP = ToolCallingAdvisor.DEFAULT_ORDER


class Memory(NamedAdvisor, MemoryAdvisor):
    pass


def test_no_tool_advisor_is_none_and_one_is_returned():
    assert check_tool_advisors([NamedAdvisor("a", 0)]) is None
    tool = ToolCallingAdvisor()
    assert check_tool_advisors([NamedAdvisor("a", 0), tool]) is tool


def test_two_tool_advisors_fail_naming_both_with_their_orders():
    with pytest.raises(AdvisorChainError) as info:
        check_tool_advisors([ToolCallingAdvisor(), ToolCallingAdvisor(advisor_order=5)])
    message = str(info.value)
    assert "found 2" in message
    assert f"Tool Calling Advisor (order={LOOP})" in message
    assert "Tool Calling Advisor (order=5)" in message
    assert "tool_calling_advisor_auto_register(False)" in message


def test_inside_means_after_the_tool_advisor_in_execution_order():
    outer, inner, tool = (
        NamedAdvisor("outer", LOOP - 1),
        NamedAdvisor("inner", LOOP + 1),
        ToolCallingAdvisor(),
    )
    assert advisors_inside_tool_loop([inner, tool, outer]) == (inner,)
    assert advisors_inside_tool_loop([inner, outer]) == ()


def test_equal_orders_keep_registration_order():
    before, tool, after = (
        NamedAdvisor("before", LOOP),
        ToolCallingAdvisor(),
        NamedAdvisor("after", LOOP),
    )
    assert advisors_inside_tool_loop([before, tool, after]) == (after,)


@pytest.mark.parametrize(("order", "inside"), [(LOOP + 1, True), (LOOP, False), (LOOP - 1, False)])
def test_the_client_disables_the_loop_history_only_for_memory_inside(order, inside):
    client = ChatClient.create(ScriptedChatModel(["a"]))
    spec = client.prompt("hi").advisors(Memory("memory", order))
    [tool] = [a for a in spec.effective_advisors() if isinstance(a, ToolCallingAdvisor)]
    assert tool.conversation_history_enabled is (not inside)


def test_the_chain_rendering_agrees():
    tool = ToolCallingAdvisor()
    text = AdvisorChain(
        [NamedAdvisor("outer", LOOP - 1), tool, NamedAdvisor("inner", LOOP + 1)]
    ).describe()
    assert "outer <call/stream>  (outside the tool loop: once per turn)" in text
    assert "inner <call/stream>  (inside the tool loop: once per model round)" in text
