"""``POST /api/turns`` and ``POST /api/approvals/<pending_id>``: a turn's loop events as
server-sent events; ``GET /api/turns/<id>``, ``GET /api/turns/<id>/events`` (reattach by
position) and ``POST /api/turns/<id>/cancel``.

The stream opens with ``event: turn`` (the conversation and turn ids), then one message
per loop event (``event: <kind>``, ``data: <LoopEvent.to_dict()>``); a turn stopping for
approval adds ``event: pending`` after its ``approval_required``; a failure ends it with
``event: error``. Every message has an ``id:`` (its position, from 1): a reader that lost
its connection reads on from there (``Last-Event-ID`` or ``?after=N``). A turn runs in a
task of its own, so it outlives its connection (``on_disconnect``: ``detach`` by
default, or ``cancel``); an explicit stop cancels it. A message for a conversation whose
turn still runs follows the busy policy (``"busy"`` in the request, else
``busy_policy``): ``reject``, ``enqueue``, ``interrupt`` or ``steer``.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ostinato.client import AdvisorParams, ChatClientRequestSpec
from ostinato.errors import ResumeError
from ostinato.events import ApprovalRequired, LoopEnded, LoopExitReason
from ostinato.messages import AssistantMessage, Message, UserMessage
from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_serve._problems import ApiError
from ostinato_serve._requests import optional_str, read_json_object, required_str
from ostinato_serve._running import BusyPolicy, Disconnect, ServedTurn
from ostinato_serve._sse import closing, error_event, event_stream_response, sse
from ostinato_serve._state import PendingTurn, ServeState

__all__ = [
    "cancel_turn",
    "parse_decisions",
    "resume_turn",
    "show_turn",
    "start_turn",
    "turn_events",
]

_KINDS = ("approve", "deny", "edit")


def _state(request: Request) -> ServeState:
    state: ServeState = request.app.state.ostinato
    return state


async def _events(state: ServeState, turn: ServedTurn, spec: ChatClientRequestSpec) -> None:
    """Run the turn, its messages into its log."""
    log = turn.log
    answer: str | None = None
    stopped = False
    try:
        async with closing(spec.stream().aevents()) as events:
            async for event in events:
                log.append(sse(event.to_dict(), event=event.kind))
                if isinstance(event, ApprovalRequired) and event.pending is not None:
                    pending = PendingToolCalls.from_dict(event.pending)
                    waiting = PendingTurn(pending, turn.conversation_id, turn.question)
                    calls = [call.to_dict() for call in pending.calls]
                    turn.pending_id = state.pending.add(waiting)
                    log.append(
                        sse({"pending_id": turn.pending_id, "calls": calls}, event="pending")
                    )
                elif isinstance(event, LoopEnded):
                    stopped = event.reason is LoopExitReason.APPROVAL_REQUIRED
                    answer = event.response.text if event.response is not None else None
                    turn.outcome = event.reason.value
    except Exception as exc:  # the stream has started: the failure is a message
        turn.outcome = "failed"
        log.append(error_event(exc))
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
            await before.log.wait_done()
        if turn.scope.cancelled:
            turn.outcome = "cancelled"
            turn.log.append(sse({"reason": "cancelled before it started"}, event="cancelled"))
        else:
            await _events(state, turn, spec)
    finally:
        turn.log.close()
        state.slots.release()
    left = turn.steering.drain()  # steered after the turn's last round boundary
    if left and not turn.scope.cancelled:
        text = "\n\n".join(m.text or "" for m in left)
        follow = ServedTurn(turn.conversation_id, text)
        try:
            state.slots.acquire()
        except ApiError:
            return
        _launch(state, follow, _user_spec(state, turn.conversation_id, text))


def _user_spec(state: ServeState, conversation_id: str, question: str) -> ChatClientRequestSpec:
    spec = state.client.prompt()
    if not state.has_memory:
        spec.messages(state.histories.get(conversation_id))
    return spec.user(question).tools(*state.tools)


def _launch(state: ServeState, turn: ServedTurn, spec: ChatClientRequestSpec) -> None:
    """Start ``turn`` in a task of its own (its slot taken by the caller)."""
    if state.has_memory:
        spec.advisors(AdvisorParams.conversation_id(turn.conversation_id))
    spec.cancel_scope(turn.scope).steering(turn.steering)
    before = state.turns.add(turn)
    ids = {"conversation_id": turn.conversation_id, "turn_id": turn.id}
    turn.log.append(sse(ids, event="turn"))
    turn.task = asyncio.get_running_loop().create_task(_run(state, turn, spec, before))


async def respond(request: Request, turn: ServedTurn, stream: bool, mode: Disconnect) -> Response:
    """The turn's messages from the start as SSE, or (``stream`` false) its summary once
    it has ended; a reader going away cancels it only in ``cancel`` mode."""
    if not stream:
        try:
            await turn.log.wait_done()
        except asyncio.CancelledError:
            if mode is Disconnect.CANCEL:
                turn.scope.cancel("the client went away")
            raise
        return JSONResponse(turn.summary())

    def on_close() -> None:
        if mode is Disconnect.CANCEL and not turn.done:
            turn.scope.cancel("the client went away")

    return event_stream_response(turn.log.follow(0), on_close=on_close)


def _flag(data: dict[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ApiError(422, "invalid_request", f"{key!r} must be a boolean, got {value!r}")
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
    stream = _flag(data, "stream", True)
    policy = busy_policy(data, state)
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
    turn = ServedTurn(conversation_id, question)
    _launch(state, turn, _user_spec(state, conversation_id, question))
    return await respond(request, turn, stream, Disconnect(state.settings.on_disconnect))


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
    """``POST /api/approvals/<pending_id>`` ``{"decisions": {...}, "stream"?}``; a second
    decision for the same calls is refused (``409 already_decided``)."""
    state = _state(request)
    pending_id = request.path_params["pending_id"]
    data = await read_json_object(request)
    waiting = state.pending.peek(pending_id)
    decisions = parse_decisions(data, waiting.pending.awaiting)
    stream = _flag(data, "stream", True)
    try:
        spec = state.client.prompt().tools(*state.tools).resume(waiting.pending, decisions)
    except ResumeError as exc:
        raise ApiError(422, "invalid_resume", str(exc)) from None
    # Nothing is awaited from the peek to here: of two requests deciding at once, the
    # second finds the calls decided. A busy server (503) keeps them waiting.
    state.slots.acquire()
    state.pending.take(pending_id)
    turn = ServedTurn(waiting.conversation_id, waiting.question)
    _launch(state, turn, spec)
    return await respond(request, turn, stream, Disconnect(state.settings.on_disconnect))


def _position(request: Request) -> int:
    raw = request.query_params.get("after") or request.headers.get("last-event-id") or "0"
    try:
        return int(raw)
    except ValueError:
        raise ApiError(
            422, "invalid_request", f"the position must be a whole number, got {raw!r}"
        ) from None


async def show_turn(request: Request) -> Response:
    """``GET /api/turns/<turn_id>``: where the turn stands."""
    state = _state(request)
    turn_id = request.path_params["turn_id"]
    return JSONResponse(state.turns.get(turn_id).summary())


async def turn_events(request: Request) -> Response:
    """``GET /api/turns/<turn_id>/events?after=N`` (or ``Last-Event-ID: N``): the turn's
    messages after position N, following it live until it ends. Leaving never cancels."""
    state = _state(request)
    turn_id = request.path_params["turn_id"]
    after = _position(request)
    log = state.turns.get(turn_id).log
    log.check(after)
    return event_stream_response(log.follow(after))


async def cancel_turn(request: Request) -> Response:
    """``POST /api/turns/<turn_id>/cancel``: stop the turn (it ends ``cancelled``, its
    conversation left valid); ``202`` with where it stands."""
    state = _state(request)
    turn_id = request.path_params["turn_id"]
    turn = state.turns.get(turn_id)
    turn.scope.cancel("stopped by the user")
    return JSONResponse(turn.summary(), status_code=202)
