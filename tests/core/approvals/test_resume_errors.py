"""Resuming with a bad pending value or bad decisions: one ``ResumeError``, before any
model call or tool run."""

from __future__ import annotations

from typing import Any

import pytest

from ostinato import ChatClient
from ostinato.errors import ResumeError
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import ApprovalDecision, PendingToolCalls, tool

RAN: list[str] = []


@tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(path)
    return "deleted"


def pending_value() -> PendingToolCalls:
    model = ScriptedChatModel([tool_call_response(("delete_file", {"path": "a"}))])
    response = ChatClient.create(model).prompt("x").tools(delete_file).call()
    pending = PendingToolCalls.of(response.chat_client_response())
    assert pending is not None
    return pending


APPROVE = {"call_delete_file": ApprovalDecision.approve()}


def resume(pending: Any, decisions: Any, *tools: Any) -> ScriptedChatModel:
    model = ScriptedChatModel([text_response("never")])
    ChatClient.create(model).prompt().tools(*tools).resume(pending, decisions).call().content()
    return model


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: "not json {", "must be JSON text"),
        (lambda d: {**d, "version": 99}, "schema version 99"),
        (lambda d: {**d, "schema": "other"}, "not a pending value"),
        (lambda d: {**d, "messages": "x"}, "'messages' must be a list"),
        (lambda d: {**d, "messages": [{"type": "exec"}]}, "malformed message"),
        (lambda d: {**d, "awaiting": ["nope"]}, "'awaiting'"),
        (lambda d: {**d, "options": {"tool_callbacks": "os.system"}}, "unexpected fields"),
        (lambda d: {**d, "rounds": -1}, "'rounds'"),
        (lambda d: {**d, "usage": 12}, "'usage' must be null or an object"),
        (lambda d: {**d, "usage": {"prompt_tokens": "x"}}, "'usage' 'prompt_tokens'"),
        (lambda d: {**d, "usage": {"total_tokens": 1, "tokens": 1}}, "'usage' must be null"),
        (lambda d: {**d, "tool_calls": -1}, "'tool_calls' must be a non-negative int"),
        (lambda d: {**d, "tool_calls": "2"}, "'tool_calls' must be a non-negative int"),
        (lambda d: [], "resume\\(\\) takes a PendingToolCalls"),
    ],
)
def test_a_corrupted_or_foreign_pending_value_is_refused(change: Any, message: str) -> None:
    carried = change(pending_value().to_dict())
    model = ScriptedChatModel([text_response("never")])
    with pytest.raises(ResumeError, match=message):
        ChatClient.create(model).prompt().tools(delete_file).resume(carried, APPROVE).call()
    assert model.call_count == 0


def test_a_pending_value_for_tools_the_request_lacks_is_refused() -> None:
    pending = pending_value()
    model = ScriptedChatModel([text_response("never")])
    spec = ChatClient.create(model).prompt().resume(pending, APPROVE)
    with pytest.raises(ResumeError, match="need tool\\(s\\) delete_file"):
        spec.call().content()
    assert model.call_count == 0
    assert RAN == []


def test_decisions_for_unknown_call_ids_are_refused() -> None:
    with pytest.raises(ResumeError, match="unknown call id\\(s\\) 'call_x'"):
        resume(pending_value(), {**APPROVE, "call_x": True}, delete_file)


def test_missing_decisions_are_refused() -> None:
    with pytest.raises(ResumeError, match="no decision for call id\\(s\\) 'call_delete_file'"):
        resume(pending_value(), {}, delete_file)


def test_a_decision_that_is_not_one_is_refused() -> None:
    with pytest.raises(ResumeError, match="not valid"):
        resume(pending_value(), {"call_delete_file": {"kind": "run-shell"}}, delete_file)


def test_new_user_text_on_a_resumed_turn_is_refused() -> None:
    model = ScriptedChatModel([text_response("never")])
    spec = ChatClient.create(model).prompt("more").tools(delete_file)
    with pytest.raises(ResumeError, match="no new user text"):
        spec.resume(pending_value(), APPROVE).call().content()
    assert model.call_count == 0


def test_the_json_form_round_trips() -> None:
    pending = pending_value()
    assert PendingToolCalls.from_json(pending.to_json()) == pending


def test_a_pending_value_stored_without_usage_still_resumes() -> None:
    stored = pending_value().to_dict()
    del stored["usage"]  # version-1 values stored before the usage field existed
    assert PendingToolCalls.from_dict(stored).usage is None
    model = resume(stored, APPROVE, delete_file)
    assert model.call_count == 1


def test_a_pending_value_stored_without_its_tool_call_count_still_resumes() -> None:
    stored = pending_value().to_dict()
    del stored["tool_calls"]  # version-1 values stored before the count existed
    assert PendingToolCalls.from_dict(stored).tool_calls == 0
    model = resume(stored, APPROVE, delete_file)
    assert model.call_count == 1
