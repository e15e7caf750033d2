"""Approvals and resume with tool search as the tool advisor: a discovered tool that
requires approval stops the turn; the turn resumes on call and stream, sync and async,
from the value and from its JSON."""

from __future__ import annotations

import pytest

from ostinato import ChatClient, tool
from ostinato.messages import ToolCall, ToolResponseMessage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_tool_search import ToolSearchToolCallingAdvisor
from tests.core.approvals.faces import FACES, answer, text

RAN: list[str] = []


@tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file from the disk."""
    RAN.append(path)
    return f"deleted {path}"


@pytest.fixture(autouse=True)
def _clear() -> None:
    RAN.clear()


def scripted() -> ScriptedChatModel:
    return ScriptedChatModel(
        [
            tool_call_response(ToolCall("s1", "toolSearchTool", '{"query": "delete file"}')),
            tool_call_response(ToolCall("d1", "delete_file", '{"path": "a.txt"}')),
            text_response("Deleted."),
        ]
    )


def client(model: ScriptedChatModel) -> ChatClient:
    return ChatClient.builder(model).tool_advisor(ToolSearchToolCallingAdvisor()).build()


@pytest.mark.parametrize("face", FACES)
def test_an_approver_decides_a_discovered_tool(face: str) -> None:
    model = scripted()
    spec = client(model).prompt("remove a.txt").tools(delete_file).approver(lambda r: True)
    assert text(spec, face) == "Deleted."
    assert RAN == ["a.txt"]


@pytest.mark.parametrize("face", FACES)
def test_a_stopped_turn_resumes_from_json(face: str) -> None:
    model = scripted()
    stopped = answer(client(model).prompt("remove a.txt").tools(delete_file), face)
    pending = PendingToolCalls.of(stopped)
    assert pending is not None
    assert pending.rounds == 2
    assert RAN == []
    spec = (
        client(model)
        .prompt()
        .tools(delete_file)
        .resume(pending.to_json(), {"d1": ApprovalDecision.approve()})
    )
    assert text(spec, face) == "Deleted."
    assert RAN == ["a.txt"]
    last = model.prompts[-1].messages[-1]
    assert isinstance(last, ToolResponseMessage)
    assert last.responses[0].response_data == "deleted a.txt"
