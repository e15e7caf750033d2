"""Approvals in the tool loop: inline approvers, pending turns, resume — on every face."""

from __future__ import annotations

import json

import pytest

from ostinato import ChatClient
from ostinato.advisors import LoopExitReason
from ostinato.errors import ApprovalError
from ostinato.messages import ToolResponseMessage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import ApprovalDecision, ApprovalRequest, PendingToolCalls, tool
from tests.core.approvals.faces import FACES, answer, text

RAN: list[str] = []


@tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append(f"delete {path}")
    return f"deleted {path}"


@tool
def list_files(folder: str) -> str:
    """List a folder."""
    RAN.append(f"list {folder}")
    return "a.txt b.txt"


@pytest.fixture(autouse=True)
def _clear() -> None:
    RAN.clear()


def asking_both() -> ScriptedChatModel:
    return ScriptedChatModel(
        [
            tool_call_response(("delete_file", {"path": "a.txt"}), ("list_files", {"folder": "."})),
            text_response("Done."),
        ]
    )


@pytest.mark.parametrize("face", FACES)
def test_an_approver_that_approves_lets_the_call_run(face: str) -> None:
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.approve()

    model = asking_both()
    spec = ChatClient.create(model).prompt("tidy up").tools(delete_file, list_files)
    assert text(spec.approver(approver), face) == "Done."
    assert [r.call.name for r in asked] == ["delete_file"]
    assert asked[0].arguments == {"path": "a.txt"}
    # The call that needs no decision runs first.
    assert RAN == ["list .", "delete a.txt"]
    responses = model.prompts[1].messages[-1]
    assert isinstance(responses, ToolResponseMessage)
    assert [r.name for r in responses.responses] == ["delete_file", "list_files"]


@pytest.mark.parametrize("face", FACES)
def test_a_denial_is_told_to_the_model_and_the_tool_does_not_run(face: str) -> None:
    async def approver(request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision.deny("not on Fridays")

    model = asking_both()
    spec = ChatClient.create(model).prompt("tidy up").tools(delete_file, list_files)
    assert text(spec.approver(approver), face) == "Done."
    assert RAN == ["list ."]
    responses = model.prompts[1].messages[-1]
    assert isinstance(responses, ToolResponseMessage)
    assert "denied (not on Fridays)" in responses.responses[0].response_data


@pytest.mark.parametrize("face", FACES)
def test_an_edit_runs_the_call_with_the_edited_arguments(face: str) -> None:
    model = asking_both()
    spec = (
        ChatClient.create(model)
        .prompt("tidy up")
        .tools(delete_file, list_files)
        .approver(lambda r: ApprovalDecision.edit({"path": "b.txt"}))
    )
    assert text(spec, face) == "Done."
    assert RAN == ["list .", "delete b.txt"]
    assistant = model.prompts[1].messages[-2]
    assert json.loads(assistant.tool_calls[0].arguments) == {"path": "b.txt"}  # type: ignore[union-attr]


@pytest.mark.parametrize("face", FACES)
def test_a_policy_decides_per_call_by_arguments(face: str) -> None:
    model = ScriptedChatModel(
        [tool_call_response(("list_files", {"folder": "/etc"})), text_response("ok")]
    )
    asked: list[str] = []
    spec = (
        ChatClient.create(model)
        .prompt("look")
        .tools(list_files)
        .approval_policy(lambda call, tool: "/etc" in call.arguments)
        .approver(lambda r: asked.append(r.call.name) or True)
    )
    assert text(spec, face) == "ok"
    assert asked == ["list_files"]


@pytest.mark.parametrize("face", FACES)
def test_without_an_approver_the_turn_ends_with_pending_calls(face: str) -> None:
    model = asking_both()
    spec = ChatClient.create(model).prompt("tidy up").tools(delete_file, list_files)
    response = answer(spec, face)
    pending = PendingToolCalls.of(response)
    assert pending is not None
    assert pending.awaiting == ("call_delete_file",)
    assert [r.name for r in pending.responses] == ["list_files"]
    assert RAN == ["list ."]
    assert model.call_count == 1
    assert response.chat_response is not None
    assert response.chat_response.result.metadata.finish_reason == "approvalRequired"
    assert LoopExitReason.APPROVAL_REQUIRED == "approval_required"


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("through_json", [False, True])
def test_resume_continues_the_same_turn(face: str, through_json: bool) -> None:
    model = asking_both()
    client = ChatClient.create(model)
    pending = PendingToolCalls.of(
        client.prompt("tidy up").tools(delete_file, list_files).call().chat_client_response()
    )
    assert pending is not None
    carried = pending.to_json() if through_json else pending
    spec = (
        client.prompt()
        .tools(delete_file, list_files)
        .resume(carried, {"call_delete_file": ApprovalDecision.approve()})
    )
    assert text(spec, face) == "Done."
    assert RAN == ["list .", "delete a.txt"]
    sent = model.prompts[1].messages
    responses = sent[-1]
    assert isinstance(responses, ToolResponseMessage)
    assert [r.response_data for r in responses.responses] == ["deleted a.txt", "a.txt b.txt"]
    assert sent[0].text == "tidy up"


@pytest.mark.parametrize("face", FACES)
def test_an_approver_that_raises_ends_the_turn_with_a_typed_error(face: str) -> None:
    def approver(request: ApprovalRequest) -> ApprovalDecision:
        raise RuntimeError("approval service down")

    spec = ChatClient.create(asking_both()).prompt("x").tools(delete_file, list_files)
    with pytest.raises(ApprovalError, match="approval service down") as caught:
        text(spec.approver(approver), face)
    assert caught.value.tool_name == "delete_file"
    assert "delete a.txt" not in RAN


@pytest.mark.parametrize("face", FACES)
def test_an_approver_that_times_out_ends_the_turn_with_a_typed_error(face: str) -> None:
    import asyncio

    async def approver(request: ApprovalRequest) -> ApprovalDecision:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    spec = ChatClient.create(asking_both()).prompt("x").tools(delete_file, list_files)
    with pytest.raises(ApprovalError, match=r"within 0\.05 s"):
        text(spec.approver(approver, timeout=0.05), face)
    assert "delete a.txt" not in RAN


@pytest.mark.parametrize("face", FACES)
def test_an_approver_returning_no_decision_is_a_typed_error(face: str) -> None:
    spec = ChatClient.create(asking_both()).prompt("x").tools(delete_file, list_files)
    with pytest.raises(ApprovalError, match="expected an ApprovalDecision"):
        text(spec.approver(lambda r: "yes"), face)
    assert "delete a.txt" not in RAN


async def test_an_inline_approval_is_announced_to_the_turns_event_sink() -> None:
    from ostinato.events import ApprovalRequired, EventSink, reset_event_sink, set_event_sink
    from ostinato.prompt import Prompt, ToolCallingChatOptions
    from ostinato.tools import ApprovalSettings, DefaultToolCallingManager, tool_callbacks
    from ostinato.tools._approval_batch import execute_with_approvals

    seen: list[object] = []
    sink = EventSink([seen.append])
    sink.round = 3
    options = ToolCallingChatOptions(tool_callbacks=tool_callbacks(delete_file, list_files))
    asking = tool_call_response(("delete_file", {"path": "a.txt"}), ("list_files", {"folder": "."}))
    token = set_event_sink(sink)
    try:
        await execute_with_approvals(
            DefaultToolCallingManager(),
            Prompt("tidy up", options),
            asking,
            ApprovalSettings(approver=lambda request: True),
            rounds=3,
            conversation_id=None,
        )
    finally:
        reset_event_sink(token)
    announced = [e for e in seen if isinstance(e, ApprovalRequired)]
    assert len(announced) == 1
    assert announced[0].round == 3 and announced[0].pending is None
    assert [c.name for c in announced[0].calls] == ["delete_file"]


@pytest.mark.parametrize("face", FACES)
def test_the_decided_calls_of_a_resumed_turn_emit_their_tool_events(face: str) -> None:
    from ostinato.events import LoopEvent, ToolFinished, ToolStarted

    model = asking_both()
    client = ChatClient.create(model)
    stopped = answer(client.prompt("tidy up").tools(delete_file, list_files), face)
    pending = PendingToolCalls.of(stopped)
    assert pending is not None
    seen: list[LoopEvent] = []
    decisions = {pending.calls[0].id: ApprovalDecision.approve()}
    spec = client.prompt().tools(delete_file, list_files).resume(pending, decisions)
    assert text(spec.listener(seen.append), face) == "Done."
    tools = [e for e in seen if isinstance(e, ToolStarted | ToolFinished)]
    assert [(type(e).__name__, e.round, e.call.name) for e in tools] == [
        ("ToolStarted", 1, "delete_file"),
        ("ToolFinished", 1, "delete_file"),
    ]
    finished = tools[-1]
    assert isinstance(finished, ToolFinished) and finished.result == "deleted a.txt"


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("through_json", [False, True])
def test_a_resumed_turn_reports_the_usage_of_every_round(face: str, through_json: bool) -> None:
    from ostinato.events import LoopEnded, LoopEvent
    from ostinato.model import Usage

    model = ScriptedChatModel(
        [
            tool_call_response(("delete_file", {"path": "a.txt"}), usage=(10, 2, 12)),
            text_response("Done.", usage=(20, 3, 23)),
        ]
    )
    client = ChatClient.create(model)
    stopped = answer(client.prompt("tidy up").tools(delete_file), face)
    pending = PendingToolCalls.of(stopped)
    assert pending is not None
    assert pending.usage == Usage(10, 2, 12)
    carried = pending.to_json() if through_json else pending
    seen: list[LoopEvent] = []
    spec = (
        client.prompt()
        .tools(delete_file)
        .resume(carried, {"call_delete_file": ApprovalDecision.approve()})
        .listener(seen.append)
    )
    final = answer(spec, face)
    assert final.chat_response is not None
    assert final.chat_response.usage == Usage(30, 5, 35)
    ended = [e for e in seen if isinstance(e, LoopEnded)]
    assert len(ended) == 1 and ended[0].usage == Usage(30, 5, 35)


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("through_json", [False, True])
def test_a_tool_call_limit_counts_the_calls_before_and_after_the_resume(
    face: str, through_json: bool
) -> None:
    from ostinato.advisors import UsageLimits
    from ostinato.model import FinishReason

    model = ScriptedChatModel(
        [
            tool_call_response(("list_files", {"folder": "a"})),
            tool_call_response(("delete_file", {"path": "a.txt"}), ("list_files", {"folder": "b"})),
            tool_call_response(("list_files", {"folder": "c"})),
            text_response("never"),
        ]
    )
    client = ChatClient.builder(model).default_usage_limits(UsageLimits(tool_calls=3)).build()
    stopped = answer(client.prompt("tidy up").tools(delete_file, list_files), face)
    pending = PendingToolCalls.of(stopped)
    assert pending is not None
    assert pending.tool_calls == 1  # the calls of the rounds before the stopped one
    carried = pending.to_json() if through_json else pending
    decisions = {pending.calls[0].id: ApprovalDecision.approve()}
    spec = client.prompt().tools(delete_file, list_files).resume(carried, decisions)
    final = answer(spec, face)
    # Three calls ran, one before the stop and two in the stopped round: the third
    # round's call would be the fourth.
    assert RAN == ["list a", "list b", "delete a.txt"]
    assert final.chat_response is not None
    result = final.chat_response.result
    assert result is not None
    assert result.metadata.finish_reason == FinishReason.USAGE_LIMIT_EXCEEDED
    assert "tool_calls=3 (used 3)" in (result.output.text or "")


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("where", ["inline", "resumed"])
def test_a_denied_call_gets_its_tool_finished_event(face: str, where: str) -> None:
    from ostinato.events import LoopEvent, ToolFailureKind, ToolFinished, ToolStarted

    seen: list[LoopEvent] = []
    client = ChatClient.create(asking_both())
    spec = client.prompt("tidy up").tools(delete_file, list_files)
    if where == "inline":
        spec.approver(lambda request: ApprovalDecision.deny("not on Fridays"))
    else:
        pending = PendingToolCalls.of(answer(spec, face))
        assert pending is not None
        decisions = {pending.calls[0].id: ApprovalDecision.deny("not on Fridays")}
        spec = client.prompt().tools(delete_file, list_files).resume(pending, decisions)
    assert text(spec.listener(seen.append), face) == "Done."
    assert RAN == ["list ."]  # the denied call never ran
    denied = [e for e in seen if isinstance(e, ToolStarted | ToolFinished)]
    denied = [e for e in denied if e.call.name == "delete_file"]
    assert len(denied) == 1  # finished, never started
    finished = denied[0]
    assert isinstance(finished, ToolFinished)
    assert finished.failure is ToolFailureKind.DENIED
    assert finished.error is None and finished.duration == 0.0 and finished.round == 1
    assert finished.result == "Tool call 'delete_file' was not run: denied (not on Fridays)."
    assert ToolFinished.from_dict(finished.to_dict()) == finished  # the log's JSON form
