"""The kit's checks of approvals, resume and cancellation, on every way.

Mixed into :class:`~ostinato.testing.tool_advisor.ToolAdvisorConformance`: a turn whose
call needs approval ends with a :class:`~ostinato.tools.PendingToolCalls` (reason
``approval_required``); that value, through its JSON, resumes the turn; an inline
approver approves, denies or edits; a cancelled :class:`~ostinato.runtime.CancelScope`
ends the turn with reason ``cancelled``. Each runs on call and stream, sync and async.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from ostinato.advisors import ToolAdvisor
from ostinato.client import ChatClient, ChatClientRequestSpec
from ostinato.events import LoopExitReason, ToolFailureKind, ToolFinished
from ostinato.model import ChatResponse
from ostinato.testing._scripted import (
    ScriptedChatModel,
    text_response,
    tool_call,
    tool_call_response,
)
from ostinato.testing.tool_advisor._checks import check_turn
from ostinato.testing.tool_advisor._harness import WAYS, Run, run_way

__all__ = ["ApprovalConformance"]

_ways = pytest.mark.parametrize(("path", "face"), WAYS)


def _kit_calls(call: Any, tool: object) -> bool:
    # The kit's own tools need approval; an advisor's own tools (a search) do not.
    return call.name in {"weather", "lookup", "fails"}


def _pay(n: int = 1) -> ChatResponse:
    return tool_call_response(tool_call("weather", {"city": "Paris"}, id=f"p{n}"))


class ApprovalConformance:
    """Approvals, resume and cancellation checks (see the module)."""

    def make_advisor(self, **settings: Any) -> ToolAdvisor:
        """The tool advisor under test (implemented by the conformance class)."""
        raise NotImplementedError

    def discovery(self, tool_names: Sequence[str]) -> list[ChatResponse]:
        """Model responses that come first in every turn (see the conformance class)."""
        return []

    def _approval_turn(
        self,
        path: str,
        face: str,
        script: Sequence[Any],
        configure: Callable[[ChatClientRequestSpec], ChatClientRequestSpec],
    ) -> tuple[Run, Any, ScriptedChatModel]:
        from ostinato.testing.tool_advisor._suite import KitTools

        tools = KitTools()
        model = ScriptedChatModel([*self.discovery(KitTools.NAMES), *script])
        client = ChatClient.builder(model, tool_advisor=self.make_advisor()).build()

        def spec(c: ChatClient) -> ChatClientRequestSpec:
            base = c.prompt().system("You are the kit.").user("Weather?").tools(tools)
            return configure(base.approval_policy(_kit_calls))

        return run_way(path, face, spec, client), tools, model

    @_ways
    def test_a_call_needing_approval_ends_the_turn_with_the_pending_calls(
        self, path: str, face: str
    ) -> None:
        """Without an approver the turn ends (``approval_required``), no tool ran, and
        the answer carries the pending calls."""
        from ostinato.tools import PendingToolCalls

        run, tools, _ = self._approval_turn(path, face, [_pay()], lambda s: s)
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.APPROVAL_REQUIRED
        assert tools.ran["weather"] == 0
        assert run.ended.response is not None
        assert "Waiting for approval" in (run.ended.response.text or "")
        # The value itself, from the last response of the call path.
        from ostinato.testing.tool_advisor._suite import KitTools

        model = ScriptedChatModel([*self.discovery(KitTools.NAMES), _pay()])
        client = ChatClient.builder(model, tool_advisor=self.make_advisor()).build()
        response = self._bare(client).call().chat_client_response()
        pending = PendingToolCalls.of(response)
        assert pending is not None
        assert [c.id for c in pending.calls] == ["p1"]

    @_ways
    def test_a_pending_turn_resumes_from_its_json(self, path: str, face: str) -> None:
        """The pending value's JSON and a decision per call resume the turn to its end."""
        from ostinato.testing.tool_advisor._suite import KitTools
        from ostinato.tools import ApprovalDecision, PendingToolCalls

        model = ScriptedChatModel([*self.discovery(KitTools.NAMES), _pay()])
        client = ChatClient.builder(model, tool_advisor=self.make_advisor()).build()
        pending = PendingToolCalls.of(self._bare(client).call().chat_client_response())
        assert pending is not None
        stored = pending.to_json()
        tools = KitTools()
        later = ScriptedChatModel([text_response("It is sunny.")])
        resumed_client = ChatClient.builder(later, tool_advisor=self.make_advisor()).build()
        decisions = {c.id: ApprovalDecision.approve() for c in pending.calls}

        def spec(c: ChatClient) -> ChatClientRequestSpec:
            return c.prompt().tools(tools).resume(stored, decisions)

        run = run_way(path, face, spec, resumed_client)
        assert run.error is None, run.error
        assert run.ended.reason is LoopExitReason.ANSWERED
        assert run.text == "It is sunny."
        assert tools.ran["weather"] == 1

    @_ways
    @pytest.mark.parametrize("decision", ["approve", "deny", "edit"])
    def test_an_inline_approver_decides(self, path: str, face: str, decision: str) -> None:
        """An approver approving runs the call; denying runs nothing and the model reads
        the denial; editing runs the call with the edited arguments."""
        from ostinato.tools import ApprovalDecision

        def approver(request: Any) -> ApprovalDecision:
            if decision == "approve":
                return ApprovalDecision.approve()
            if decision == "deny":
                return ApprovalDecision.deny("not today")
            return ApprovalDecision.edit({"city": "Rome"})

        script = [_pay(), "Done."]
        run, tools, _ = self._approval_turn(path, face, script, lambda s: s.approver(approver))
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.ANSWERED
        assert run.text == "Done."
        finished = [e for e in run.of(ToolFinished) if e.call.name == "weather"]
        if decision == "deny":
            assert tools.ran["weather"] == 0
            # Its ToolFinished tells the denial: failure "denied", nothing raised, at once.
            assert [(e.failure, e.error, e.duration) for e in finished] == [
                (ToolFailureKind.DENIED, None, 0.0)
            ]
            assert finished[0].result == "Tool call 'weather' was not run: denied (not today)."
        else:
            assert tools.ran["weather"] == 1
            city = "Rome" if decision == "edit" else "Paris"
            assert [e.result for e in finished] == [f"sunny in {city}"]

    @_ways
    def test_a_cancelled_scope_ends_the_turn(self, path: str, face: str) -> None:
        """A scope cancelled before the turn ends it with reason ``cancelled`` and an
        answer, running no tool."""
        from ostinato.runtime import CancelScope

        scope = CancelScope()
        scope.cancel("stop")
        run, tools, _ = self._approval_turn(
            path, face, [_pay(), "Done."], lambda s: s.approval_policy(None).cancel_scope(scope)
        )
        assert run.error is None, run.error
        assert run.ended.reason is LoopExitReason.CANCELLED
        assert tools.ran["weather"] == 0
        assert run.ended.response is not None
        assert "cancelled" in (run.ended.response.text or "")

    def _bare(self, client: ChatClient) -> ChatClientRequestSpec:
        from ostinato.testing.tool_advisor._suite import KitTools

        spec = client.prompt().system("You are the kit.").user("Weather?").tools(KitTools())
        return spec.approval_policy(_kit_calls)
