"""``POST /api/turns`` and ``POST /api/approvals/<pending_id>``: a turn's loop events as
server-sent events; ``GET /api/turns/<id>``, ``GET /api/turns/<id>/events`` (reattach by
position) and ``POST /api/turns/<id>/cancel``.

The stream opens with ``event: turn`` (the conversation and turn ids), then one message
per loop event (``id: <seq>``, ``event: <kind>``, ``data: <LoopEvent.to_dict()>``); a
turn stopping for approval adds ``event: pending`` after its ``approval_required``; a
failure ends it with ``event: error``. A turn runs as a task of the server writing its
turn log (:mod:`ostinato_serve._running`), so it outlives its connection: a reader that
lost it reads on with ``GET /api/turns/<turn_id>/events`` and ``Last-Event-ID`` (or
``?after=N``), each event once. When the last reader goes, ``on_disconnect`` decides:
``detach`` (default) runs on, ``cancel`` cancels after ``reattach_seconds`` without a
reader; an explicit stop cancels. A message for a conversation whose turn still runs
follows the busy policy (``"busy"`` in the request, else ``busy_policy``): ``reject``,
``enqueue``, ``interrupt`` or ``steer``. Under ``turns=durable`` every route here hands
over to :mod:`ostinato_serve._durable_turns`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ostinato.client import AdvisorParams, ChatClientRequestSpec
from ostinato.errors import ResumeError, TurnLogError
from ostinato.events import ApprovalRequired, LoopEnded, LoopEvent, LoopExitReason
from ostinato.messages import AssistantMessage, Message, UserMessage
from ostinato.tools import PendingToolCalls
from ostinato_serve import _durable_turns as durable
from ostinato_serve._decisions import parse_decisions
from ostinato_serve._problems import ApiError
from ostinato_serve._requests import optional_str, read_json_object, required_str
from ostinato_serve._running import BusyPolicy, ServedTurn
from ostinato_serve._sse import closing, error_event, event_stream_response, sse
from ostinato_serve._state import PendingTurn, ServeState

__all__ = [
    "busy_error",
    "busy_policy",
    "cancel_turn",
    "position",
    "resume_turn",
    "show_turn",
    "start_turn",
    "stream_flag",
    "turn_events",
]


def _state(request: Request) -> ServeState:
    state: ServeState = request.app.state.ostinato
    return state


def _frame(event: LoopEvent) -> bytes:
    return sse(event.to_dict(), event=event.kind, id=event.seq)


async def _events(state: ServeState, turn: ServedTurn, spec: ChatClientRequestSpec) -> None:
    """Run the turn, its events into its log."""
    answer: str | None = None
    stopped = False
    try:
        async with closing(spec.listener(turn.log).stream().aevents()) as events:
            async for event in events:
                if isinstance(event, ApprovalRequired) and event.pending is not None:
                    pending = PendingToolCalls.from_dict(event.pending)
                    waiting = PendingTurn(pending, turn.conversation_id, turn.question)
                    calls = [call.to_dict() for call in pending.calls]
                    turn.pending_id = state.pending.add(waiting)
                    body = {"pending_id": turn.pending_id, "calls": calls}
                    turn.after_event[event.seq] = sse(body, event="pending")
                elif isinstance(event, LoopEnded):
                    stopped = event.reason is LoopExitReason.APPROVAL_REQUIRED
                    answer = event.response.text if event.response is not None else None
                    turn.outcome = event.reason.value
    except Exception as exc:  # the stream has started: the failure is a message
        turn.outcome = "failed"
        turn.trailer = error_event(exc)
        return
    turn.answer = answer
    if not state.has_memory and not stopped:
        messages: list[Message] = [
            UserMessage(turn.question),
            *turn.steering.joined,
            AssistantMessage(answer or ""),
        ]
        state.histories.extend(turn.conversation_id, messages)


async def _run(
    state: ServeState, turn: ServedTurn, spec: ChatClientRequestSpec, before: ServedTurn | None
) -> None:
    try:
        if before is not None:  # enqueued (or interrupting): the earlier turn ends first
            await before.wait_done()
        if turn.scope.cancelled:
            turn.outcome = "cancelled"
            turn.trailer = sse({"reason": "cancelled before it started"}, event="cancelled")
        else:
            await _events(state, turn, spec)
    finally:
        turn.end()
        state.slots.release()
    left = turn.steering.drain()  # steered after the turn's last round boundary
    if left and not turn.scope.cancelled:
        text = "\n\n".join(m.text or "" for m in left)
        try:
            state.slots.acquire()
        except ApiError:
            return
        _launch(state, turn.conversation_id, text, _user_spec(state, turn.conversation_id, text))


def _user_spec(state: ServeState, conversation_id: str, question: str) -> ChatClientRequestSpec:
    spec = state.client.prompt()
    if not state.has_memory:
        spec.messages(state.histories.get(conversation_id))
    return spec.user(question).tools(*state.tools)


def _launch(
    state: ServeState, conversation_id: str, question: str, spec: ChatClientRequestSpec
) -> ServedTurn:
    """Start a turn in a task of its own (its slot taken by the caller)."""
    turn, before = state.turns.open(conversation_id, question)
    if state.has_memory:
        spec.advisors(AdvisorParams.conversation_id(conversation_id))
    spec.cancel_scope(turn.scope).steering(turn.steering)
    turn.task = asyncio.get_running_loop().create_task(_run(state, turn, spec, before))
    return turn


def _opening(turn: ServedTurn) -> bytes:
    return sse({"conversation_id": turn.conversation_id, "turn_id": turn.id}, event="turn")


async def _stream(state: ServeState, turn: ServedTurn, after: int) -> AsyncIterator[bytes]:
    yield _opening(turn)
    async for message in state.turns.read(turn, after, _frame):
        yield message


async def _respond(state: ServeState, turn: ServedTurn, stream: bool) -> Response:
    """The turn's messages from the start as SSE, or (``stream`` false) its summary once
    it has ended; the reader going away is the disconnect policy's to handle."""
    if stream:
        return event_stream_response(_stream(state, turn, 0))
    state.turns.attach(turn)
    try:
        await turn.wait_done()
    finally:
        state.turns.detach(turn)
    return JSONResponse(turn.summary())


def stream_flag(data: dict[str, Any]) -> bool:
    """The request's ``"stream"`` (default true).

    Raises:
        ApiError: ``422`` when it is not a boolean.
    """
    value = data.get("stream", True)
    if not isinstance(value, bool):
        raise ApiError(422, "invalid_request", f"'stream' must be a boolean, got {value!r}")
    return value


def busy_policy(data: dict[str, Any], state: ServeState) -> BusyPolicy:
    """The request's ``"busy"`` policy, else the server's.

    Raises:
        ApiError: ``422`` for an unknown policy.
    """
    value = data.get("busy") or state.settings.busy_policy
    try:
        return BusyPolicy(value)
    except ValueError:
        known = ", ".join(p.value for p in BusyPolicy)
        raise ApiError(
            422, "invalid_request", f"'busy' must be one of {known}, got {value!r}"
        ) from None


def busy_error(turn_id: str, conversation_id: str) -> ApiError:
    """``409 conversation_busy`` naming the running turn."""
    return ApiError(
        409,
        "conversation_busy",
        f"the conversation {conversation_id!r} has a turn running ({turn_id}); wait for it, "
        'stop it (POST /api/turns/<turn_id>/cancel), or send with "busy": "enqueue", '
        '"interrupt" or "steer"',
        details={"turn_id": turn_id},
    )


async def start_turn(request: Request) -> Response:
    """``POST /api/turns`` ``{"message", "conversation_id"?, "busy"?, "stream"?}``."""
    state = _state(request)
    data = await read_json_object(request)
    question = required_str(data, "message")
    conversation_id = optional_str(data, "conversation_id") or f"conv-{uuid.uuid4().hex}"
    stream = stream_flag(data)
    policy = busy_policy(data, state)
    if state.durable is not None:
        return await durable.start(
            state, question, conversation_id, stream, policy, request.receive
        )
    busy = state.turns.busy(conversation_id)
    if busy is not None:
        if policy is BusyPolicy.REJECT:
            raise busy_error(busy.id, conversation_id)
        if policy is BusyPolicy.STEER:
            busy.steering.add(question)
            body = {"turn_id": busy.id, "conversation_id": conversation_id, "steered": True}
            return JSONResponse(body, status_code=202)
        if policy is BusyPolicy.INTERRUPT:
            for running in state.turns.unfinished(conversation_id):
                running.scope.cancel("interrupted by a new message")
    state.slots.acquire()
    turn = _launch(state, conversation_id, question, _user_spec(state, conversation_id, question))
    return await _respond(state, turn, stream)


async def resume_turn(request: Request) -> Response:
    """``POST /api/approvals/<pending_id>`` ``{"decisions": {...}, "stream"?}``; a second
    decision for the same calls is refused (``409 already_decided``)."""
    state = _state(request)
    pending_id = request.path_params["pending_id"]
    data = await read_json_object(request)
    stream = stream_flag(data)
    if state.durable is not None:
        return await durable.resume(state, pending_id, data, stream, request.receive)
    waiting = state.pending.peek(pending_id)
    decisions = parse_decisions(data, waiting.pending.awaiting)
    try:
        spec = state.client.prompt().tools(*state.tools).resume(waiting.pending, decisions)
    except ResumeError as exc:
        raise ApiError(422, "invalid_resume", str(exc)) from None
    # Nothing is awaited from the peek to here: of two requests deciding at once, the
    # second finds the calls decided. A busy server (503) keeps them waiting.
    state.slots.acquire()
    state.pending.take(pending_id)
    turn = _launch(state, waiting.conversation_id, waiting.question, spec)
    return await _respond(state, turn, stream)


def position(request: Request) -> int:
    """The position to read after: ``Last-Event-ID`` or ``?after=`` (default 0).

    Raises:
        ApiError: ``422 invalid_position`` when it is not an integer >= 0.
    """
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


#: The status of each turn-log error's reason.
LOG_ERRORS = {"unknown_turn": 404, "past_end": 416, "expired": 410}


def _served(state: ServeState, turn_id: str) -> ServedTurn:
    try:
        return state.turns.get(turn_id)
    except TurnLogError as exc:
        raise ApiError(LOG_ERRORS[exc.reason], exc.reason, str(exc)) from None


async def show_turn(request: Request) -> Response:
    """``GET /api/turns/<turn_id>``: where the turn stands."""
    state = _state(request)
    turn_id = request.path_params["turn_id"]
    if state.durable is not None:
        return await durable.show(state, turn_id)
    return JSONResponse(_served(state, turn_id).summary())


async def turn_events(request: Request) -> Response:
    """``GET /api/turns/<turn_id>/events`` with ``Last-Event-ID: N`` (or ``?after=N``):
    the turn's messages after position N, live until it ends."""
    state = _state(request)
    turn_id = request.path_params["turn_id"]
    after = position(request)
    if state.durable is not None:
        return await durable.events(state, turn_id, after)
    turn = _served(state, turn_id)
    try:
        turn.log.check(after)
    except TurnLogError as exc:
        raise ApiError(LOG_ERRORS[exc.reason], exc.reason, str(exc)) from None
    return event_stream_response(_stream(state, turn, after))


async def cancel_turn(request: Request) -> Response:
    """``POST /api/turns/<turn_id>/cancel``: stop the turn (it ends ``cancelled``, its
    conversation left valid); ``202`` with where it stands."""
    state = _state(request)
    turn_id = request.path_params["turn_id"]
    if state.durable is not None:
        return await durable.cancel(state, turn_id)
    turn = _served(state, turn_id)
    turn.scope.cancel("stopped by the user")
    return JSONResponse(turn.summary(), status_code=202)
