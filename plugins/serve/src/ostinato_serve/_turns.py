"""``POST /api/turns`` and ``POST /api/approvals/<pending_id>``: a turn's loop events as
server-sent events.

The stream opens with ``event: turn`` (the conversation id), then one message per loop
event (``event: <kind>``, ``data: <LoopEvent.to_dict()>``); a turn stopping for approval
adds ``event: pending`` after its ``approval_required``; a failure ends it with
``event: error``. Closing the connection cancels the turn: nothing of it is remembered.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ostinato.client import AdvisorParams, ChatClientRequestSpec
from ostinato.errors import ResumeError
from ostinato.events import ApprovalRequired, LoopEnded, LoopExitReason
from ostinato.messages import AssistantMessage, Message, UserMessage
from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_serve._problems import ApiError
from ostinato_serve._requests import optional_str, read_json_object, required_str
from ostinato_serve._sse import closing, error_event, event_stream_response, sse
from ostinato_serve._state import PendingTurn, ServeState

__all__ = ["parse_decisions", "resume_turn", "start_turn"]

_KINDS = ("approve", "deny", "edit")


def _state(request: Request) -> ServeState:
    state: ServeState = request.app.state.ostinato
    return state


async def _stream(
    state: ServeState, spec: ChatClientRequestSpec, conversation_id: str, question: str
) -> AsyncIterator[bytes]:
    """The turn's messages."""
    yield sse({"conversation_id": conversation_id}, event="turn")
    answer: str | None = None
    stopped = False
    try:
        async with closing(spec.stream().aevents()) as events:
            async for event in events:
                yield sse(event.to_dict(), event=event.kind)
                if isinstance(event, ApprovalRequired) and event.pending is not None:
                    pending = PendingToolCalls.from_dict(event.pending)
                    turn = PendingTurn(pending, conversation_id, question)
                    calls = [call.to_dict() for call in pending.calls]
                    pending_id = state.pending.add(turn)
                    yield sse({"pending_id": pending_id, "calls": calls}, event="pending")
                elif isinstance(event, LoopEnded):
                    stopped = event.reason is LoopExitReason.APPROVAL_REQUIRED
                    answer = event.response.text if event.response is not None else None
    except Exception as exc:  # the stream has started: the failure is a message
        yield error_event(exc)
        return
    if not state.has_memory and not stopped:
        messages: list[Message] = [UserMessage(question), AssistantMessage(answer or "")]
        state.histories.extend(conversation_id, messages)


def _respond(
    state: ServeState, spec: ChatClientRequestSpec, conversation_id: str, question: str
) -> Response:
    if state.has_memory:
        spec.advisors(AdvisorParams.conversation_id(conversation_id))
    state.slots.acquire()
    body = _stream(state, spec, conversation_id, question)
    return event_stream_response(body, on_close=state.slots.release)


async def start_turn(request: Request) -> Response:
    """``POST /api/turns`` ``{"message": ..., "conversation_id": ...|null}``."""
    state = _state(request)
    data = await read_json_object(request)
    question = required_str(data, "message")
    conversation_id = optional_str(data, "conversation_id") or f"conv-{uuid.uuid4().hex}"
    spec = state.client.prompt()
    if not state.has_memory:
        spec.messages(state.histories.get(conversation_id))
    spec.user(question).tools(*state.tools)
    return _respond(state, spec, conversation_id, question)


def _decision(call_id: str, value: Any) -> ApprovalDecision:
    if not isinstance(value, dict) or value.get("decision") not in _KINDS:
        raise ApiError(
            422,
            "invalid_decision",
            f'the decision for call {call_id!r} must be an object with "decision": '
            f'"approve", "deny" or "edit", got {value!r}',
        )
    kind = value["decision"]
    if kind == "approve":
        return ApprovalDecision.approve()
    if kind == "deny":
        reason = value.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise ApiError(422, "invalid_decision", f"'reason' for call {call_id!r} must be text")
        return ApprovalDecision.deny(reason) if reason else ApprovalDecision.deny()
    arguments = value.get("arguments")
    if not isinstance(arguments, dict):
        raise ApiError(
            422,
            "invalid_decision",
            f"an edit of call {call_id!r} needs 'arguments', a JSON object, got {arguments!r}",
        )
    return ApprovalDecision.edit(arguments)


def parse_decisions(data: dict[str, Any], awaiting: tuple[str, ...]) -> dict[str, ApprovalDecision]:
    """One decision per awaited call id, from ``{"decisions": {id: {...}}}``.

    Raises:
        ApiError: ``422`` for a missing or unknown call id, or a malformed decision.
    """
    given = data.get("decisions")
    if not isinstance(given, dict):
        raise ApiError(
            422,
            "invalid_request",
            f"expected 'decisions', an object of call id -> decision, got {given!r}",
        )
    missing = [call_id for call_id in awaiting if call_id not in given]
    if missing:
        raise ApiError(
            422,
            "missing_decision",
            f"no decision for call id(s) {', '.join(missing)}; every waiting call needs one "
            f"(waiting: {', '.join(awaiting)})",
        )
    unknown = [call_id for call_id in given if call_id not in awaiting]
    if unknown:
        raise ApiError(
            422,
            "unknown_call",
            f"decisions for call id(s) {', '.join(map(str, unknown))} that do not wait "
            f"(waiting: {', '.join(awaiting)})",
        )
    return {call_id: _decision(call_id, given[call_id]) for call_id in awaiting}


async def resume_turn(request: Request) -> Response:
    """``POST /api/approvals/<pending_id>`` ``{"decisions": {...}}``."""
    state = _state(request)
    pending_id = request.path_params["pending_id"]
    waiting = state.pending.peek(pending_id)
    data = await read_json_object(request)
    decisions = parse_decisions(data, waiting.pending.awaiting)
    try:
        spec = state.client.prompt().tools(*state.tools).resume(waiting.pending, decisions)
    except ResumeError as exc:
        raise ApiError(422, "invalid_resume", str(exc)) from None
    # Taken only once the resumed turn can start: a busy server (503) keeps it waiting,
    # and of two requests deciding at once, the second finds it gone (404).
    response = _respond(state, spec, waiting.conversation_id, waiting.question)
    try:
        state.pending.take(pending_id)
    except ApiError:
        state.slots.release()  # the response is never sent: its slot is given back here
        raise
    return response
