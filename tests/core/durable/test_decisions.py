"""What every engine does with approval decisions: ``decision_of`` and ``ask_in_doubt``."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import pytest

from ostinato import tool
from ostinato.durable import ask_in_doubt, decision_of
from ostinato.errors import ResumeError
from ostinato.messages import ToolCall
from ostinato.tools import (
    ApprovalDecision,
    ApprovalKind,
    FunctionToolCallback,
    PendingToolCalls,
    ToolContext,
)
from ostinato.units import ToolInvocation


@tool(effect="destructive")
def pay(to: str) -> str:
    """Pay someone."""
    return f"paid {to}"


def test_a_decision_is_read_from_every_form_a_handle_takes():
    assert decision_of("c", True).kind is ApprovalKind.APPROVE
    assert decision_of("c", False).kind is ApprovalKind.DENY
    edit = ApprovalDecision.edit({"to": "b"})
    assert decision_of("c", edit) is edit
    assert decision_of("c", edit.to_dict()) == edit


def test_anything_else_is_refused_naming_the_call():
    with pytest.raises(ResumeError, match=r"call 'c1'.*got int"):
        decision_of("c1", 3)  # type: ignore[arg-type]  # the wrong input under test


def _unit() -> ToolInvocation:
    call = ToolCall("c1", "pay", '{"to": "a"}')
    return ToolInvocation(call, FunctionToolCallback(pay), call.arguments, ToolContext())


def _waiting(decision: ApprovalDecision | None) -> tuple[list[PendingToolCalls], object]:
    asked: list[PendingToolCalls] = []

    async def wait(pending: PendingToolCalls) -> Mapping[str, ApprovalDecision]:
        asked.append(pending)
        return {} if decision is None else {"c1": decision}

    return asked, wait


def test_an_in_doubt_call_is_asked_about_alone_with_a_note_naming_its_key():
    asked, wait = _waiting(ApprovalDecision.approve())
    unit = _unit()
    assert asyncio.run(ask_in_doubt(unit, "k-1", 2, wait)) is True  # type: ignore[arg-type]
    (pending,) = asked
    assert pending.awaiting == ("c1",)
    assert "idempotency key k-1" in (pending.assistant.text or "")
    assert "(decision 2)" in (pending.assistant.text or "")


def test_a_denial_gives_its_reason_and_no_decision_counts_as_denied():
    _, wait = _waiting(ApprovalDecision.deny("not twice"))
    assert asyncio.run(ask_in_doubt(_unit(), None, 1, wait)) == "not twice"  # type: ignore[arg-type]
    _, wait = _waiting(None)
    assert asyncio.run(ask_in_doubt(_unit(), None, 1, wait)) == "denied"  # type: ignore[arg-type]


def test_an_edit_changes_the_call_itself():
    _, wait = _waiting(ApprovalDecision.edit({"to": "b"}))
    unit = _unit()
    assert asyncio.run(ask_in_doubt(unit, None, 1, wait)) is True  # type: ignore[arg-type]
    assert unit.call.arguments == unit.arguments
    assert '"b"' in unit.call.arguments
