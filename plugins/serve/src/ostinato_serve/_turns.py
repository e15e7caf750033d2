"""``POST /api/turns``, ``GET /api/turns/<turn_id>/events`` and
``POST /api/approvals/<pending_id>``: a turn's loop events as server-sent events.

The stream opens with ``event: turn`` (the conversation id and the turn id), then one
message per loop event (``id: <seq>``, ``event: <kind>``, ``data: <LoopEvent.to_dict()>``);
a turn stopping for approval adds ``event: pending`` after its ``approval_required``; a
failure ends it with ``event: error``. The turn runs as a task of the server writing to
its log (:mod:`ostinato_serve._turn_logs`): a client that lost its connection reads on
with ``GET /api/turns/<turn_id>/events`` and ``Last-Event-ID`` (each event once); a turn
no connection reads for ``OSTINATO_SERVE_REATTACH_SECONDS`` is cancelled.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ostinato.client import AdvisorParams, ChatClientRequestSpec
from ostinato.errors import ResumeError, TurnLogError
from ostinato.events import ApprovalRequired, LoopEnded, LoopEvent, LoopExitReason
from ostinato.messages import AssistantMessage, Message, UserMessage
from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_serve._problems import ApiError
from ostinato_serve._requests import optional_str, read_json_object, required_str
from ostinato_serve._sse import closing, error_event, event_stream_response, sse
from ostinato_serve._state import PendingTurn, ServeState
from ostinato_serve._turn_logs import ServedTurn

__all__ = ["parse_decisions", "read_turn", "resume_turn", "start_turn"]

_KINDS = ("approve", "deny", "edit")


def _state(request: Request) -> ServeState:
    state: ServeState = request.app.state.ostinato
    return state


def _frame(event: LoopEvent) -> bytes:
    return sse(event.to_dict(), event=event.kind, id=event.seq)


async def _run(
    state: ServeState, spec: ChatClientRequestSpec, turn: ServedTurn, question: str
) -> None:
    """The turn itself (a task of the server), its events into its log."""
    conversation_id = turn.conversation_id
    answer: str | None = None
    stopped = False
    try:
        async with closing(spec.listener(turn.log).stream().aevents()) as events:
            async for event in events:
                if isinstance(event, ApprovalRequired) and event.pending is not None:
                    pending = PendingToolCalls.from_dict(event.pending)
                    waiting = PendingTurn(pending, conversation_id, question)
                    calls = [call.to_dict() for call in pending.calls]
                    pending_id = state.pending.add(waiting)
                    body = {"pending_id": pending_id, "calls": calls}
                    turn.after_event[event.seq] = sse(body, event="pending")
                elif isinstance(event, LoopEnded):
                    stopped = event.reason is LoopExitReason.APPROVAL_REQUIRED
                    answer = event.response.text if event.response is not None else None
    except Exception as exc:  # the stream has started: the failure is a message
        turn.error = error_event(exc)
        return
    if not state.has_memory and not stopped:
        messages: list[Message] = [UserMessage(question), AssistantMessage(answer or "")]
        state.histories.extend(conversation_id, messages)


async def _stream(
    state: ServeState, spec: ChatClientRequestSpec, turn: ServedTurn, question: str
) -> AsyncIterator[bytes]:
    """The turn's messages; the turn starts with them."""
    yield sse({"conversation_id": turn.conversation_id, "turn_id": turn.log.turn_id}, event="turn")
    state.turns.start(turn, lambda t: _run(state, spec, t, question), state.slots.release)
    async for message in state.turns.read(turn, 0, _frame):
        yield message


def _respond(
    state: ServeState, spec: ChatClientRequestSpec, conversation_id: str, question: str
) -> Response:
    if state.has_memory:
        spec.advisors(AdvisorParams.conversation_id(conversation_id))
    state.slots.acquire()
    turn = state.turns.open(f"turn-{uuid.uuid4().hex}", conversation_id)

    def closed() -> None:
        if turn.task is None:  # the client left before the turn started
            state.slots.release()

    return event_stream_response(_stream(state, spec, turn, question), on_close=closed)


def _position(request: Request) -> int:
    raw = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
    try:
        after = int(raw)
    except ValueError:
        after = -1
    if after < 0:
        raise ApiError(
            422,
            "invalid_position",
            f"the position to read after (Last-Event-ID or ?after=) must be an event id "
            f"(an integer >= 0), got {raw!r}",
        )
    return after


_LOG_ERRORS = {"unknown_turn": 404, "past_end": 416, "expired": 410}


async def read_turn(request: Request) -> Response:
    """``GET /api/turns/<turn_id>/events``: the turn's messages after ``Last-Event-ID``
    (or ``?after=``), live until it ends."""
    state = _state(request)
    after = _position(request)
    try:
        turn = state.turns.get(request.path_params["turn_id"])
        turn.log.check(after)
    except TurnLogError as exc:
        raise ApiError(_LOG_ERRORS[exc.reason], exc.reason, str(exc)) from None

    async def body() -> AsyncIterator[bytes]:
        yield sse(
            {"conversation_id": turn.conversation_id, "turn_id": turn.log.turn_id}, event="turn"
        )
        async for message in state.turns.read(turn, after, _frame):
            yield message

    return event_stream_response(body())


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
