"""``/api/turns`` on a durable engine (``OSTINATO_SERVE_TURNS=durable``): turns are
submitted to the engine and read from its turn log, so any server process serves any
turn, and a server keeps no turn state a restart would lose.

A turn's id is ``turn:<conversation_id>:<n>`` (the engine's workflow id; ``n`` counts the
conversation's turns): any process finds a conversation's turns by that prefix and its
conversation by the id, and the next number is claimed once across processes (see
:mod:`ostinato_serve._durable_claims`, which also applies the busy policies). Its
messages are those of an in-process turn: ``event: turn``, then each loop event with
``id: <seq>`` from :meth:`~ostinato.durable.TurnHandle.aevents`; a turn that stops for
approval adds ``event: pending`` (``pending_id`` ``<turn_id>@<seq>``) and the stream ends
after its ``loop_ended``, as an in-process turn's does; ``POST
/api/approvals/<pending_id>`` decides it through the handle (each round decided once,
across processes: ``409 already_decided``) and streams the turn on from there. A client
that goes away before the turn ended leaves it running (``on_disconnect=detach``) or
cancels it through its handle (``cancel``: see :mod:`ostinato_serve._durable_disconnect`
for which readers count, and the grace).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse, Response
from starlette.types import Receive

from ostinato.errors import DurableTurnError, ResumeError, TurnLogError
from ostinato.events import ApprovalRequired, LoopEnded, LoopEvent, LoopExitReason
from ostinato.tools import PendingToolCalls
from ostinato_serve._decisions import parse_decisions
from ostinato_serve._durable_claims import DONE, claim_turn, conversation_of
from ostinato_serve._durable_disconnect import DurableReaders, cancel_handle
from ostinato_serve._problems import ApiError
from ostinato_serve._running import BusyPolicy, Disconnect
from ostinato_serve._sse import error_event, event_stream_response, sse

if TYPE_CHECKING:
    from ostinato.durable import DurableEngine, TurnHandle
    from ostinato_serve._state import ServeState

__all__ = ["DurableTurns", "cancel", "events", "resume", "show", "start"]

_DONE = DONE
_LOG_ERRORS = {"unknown_turn": 404, "past_end": 416, "expired": 410}
#: How long a decision waits for the calls of a stop it read to be published.
_PUBLISH_WAIT = 1.5


class DurableTurns:
    """What a server needs to serve durable turns: the engine and the tool names.

    Args:
        engine: the durable engine (``durable_engine()``).
        tools: the tool names every submitted turn offers (workers resolve them).
        readers: this process's readers of the turns and the disconnect policy
            (default: ``detach``).
    """

    def __init__(
        self,
        engine: DurableEngine,
        tools: tuple[str, ...] = (),
        readers: DurableReaders | None = None,
    ) -> None:
        self.engine = engine
        self.tools = tools
        self.readers = readers if readers is not None else DurableReaders()

    def handle(self, turn_id: str) -> TurnHandle:
        """The handle of ``turn_id`` (one of this server's ids, else ``404``)."""
        if _conversation_of(turn_id) is None:
            raise _unknown(turn_id)
        return self.engine.turn(turn_id)


_conversation_of = conversation_of


def _unknown(turn_id: str) -> ApiError:
    return ApiError(
        404,
        "unknown_turn",
        f"no durable turn has the id {turn_id!r}; expected the turn_id of a 'turn' event",
    )


async def _status(handle: TurnHandle) -> str:
    try:
        return (await asyncio.to_thread(lambda: handle.status)).value
    except DurableTurnError:
        raise _unknown(handle.id) from None


def _opening(turn_id: str) -> bytes:
    conversation = _conversation_of(turn_id)
    return sse({"conversation_id": conversation, "turn_id": turn_id}, event="turn")


class _Reader:
    """Where a reader of a turn stands: ``stopped`` while the last event it knows of is
    the turn stopping for approval (the turn waits: its reader leaving cancels nothing)."""

    __slots__ = ("stopped",)

    def __init__(self, stopped: bool) -> None:
        self.stopped = stopped


async def _read(
    handle: TurnHandle, after: int, skip_stop: bool, reader: _Reader
) -> AsyncIterator[bytes]:
    """The turn's messages after ``after``, until it ends or stops for approval
    (``skip_stop``: the stop at ``after`` was decided: read on past its ``loop_ended``)."""
    yield _opening(handle.id)
    try:
        async for event in handle.aevents(after):
            if skip_stop:
                skip_stop = not isinstance(event, LoopEnded)
                continue
            reader.stopped = _stopped(event)
            yield sse(event.to_dict(), event=event.kind, id=event.seq)
            if isinstance(event, ApprovalRequired) and event.pending is not None:
                yield _pending(handle.id, event)
            if isinstance(event, LoopEnded) and _stopped(event):
                return
    except Exception as exc:  # the stream has started: the failure is a message
        yield error_event(exc)


def _stopped(event: LoopEvent) -> bool:
    return isinstance(event, LoopEnded) and event.reason is LoopExitReason.APPROVAL_REQUIRED


def _pending(turn_id: str, event: ApprovalRequired) -> bytes:
    pending = PendingToolCalls.from_dict(event.pending or {})
    calls = [call.to_dict() for call in pending.calls]
    return sse({"pending_id": f"{turn_id}@{event.seq}", "calls": calls}, event="pending")


def _streamed(
    durable: DurableTurns, handle: TurnHandle, after: int, skip: bool, stopped: bool = False
) -> Response:
    """The turn read on as SSE, its reader counted until the response is over
    (``stopped``: the event at ``after`` is the turn stopping for approval)."""
    reader = _Reader(stopped)
    read_to_end = False

    async def body() -> AsyncIterator[bytes]:
        nonlocal read_to_end
        async for message in _read(handle, after, skip, reader):
            yield message
        read_to_end = True  # not when the client went away: the body was cancelled

    def closed() -> None:
        durable.readers.detach(handle, not read_to_end and not reader.stopped)

    durable.readers.attach(handle.id)
    return event_stream_response(body(), on_close=closed)


async def _summary(handle: TurnHandle, after: int, skip: bool) -> dict[str, Any]:
    """The non-streamed answer: where the turn stands once it ended or stopped."""
    outcome: str | None = None
    answer: str | None = None
    pending_id: str | None = None
    last = after
    async for event in handle.aevents(after):
        last = event.seq
        if skip:
            skip = not isinstance(event, LoopEnded)
            continue
        if isinstance(event, ApprovalRequired):
            pending_id = f"{handle.id}@{event.seq}"
        if isinstance(event, LoopEnded):
            outcome = event.reason.value
            answer = event.response.text if event.response is not None else None
            if _stopped(event):
                break
    return {
        "turn_id": handle.id,
        "conversation_id": _conversation_of(handle.id),
        "done": outcome is not None and not _stopped_outcome(outcome),
        "outcome": outcome,
        "answer": answer,
        "pending_id": pending_id if outcome == "approval_required" else None,
        "position": last,
    }


async def _gone(receive: Receive) -> None:
    """Return once the client went away (its request's body was read already)."""
    try:
        while (await receive())["type"] != "http.disconnect":
            pass
    except Exception:  # nothing more comes from the client: it is gone
        pass


async def _respond(
    durable: DurableTurns,
    handle: TurnHandle,
    after: int,
    stream: bool,
    skip: bool,
    receive: Receive | None,
) -> Response:
    if stream:
        return _streamed(durable, handle, after, skip)
    durable.readers.attach(handle.id)
    reading = asyncio.ensure_future(_summary(handle, after, skip))
    watching = asyncio.ensure_future(_gone(receive)) if receive is not None else None
    gone = False
    try:
        if watching is not None:
            await asyncio.wait((reading, watching), return_when=asyncio.FIRST_COMPLETED)
            gone = not reading.done()
        if gone:
            return Response(status_code=499)  # nobody reads it: the client went away
        return JSONResponse(await reading)
    finally:
        reading.cancel()  # no-op once it is done
        if watching is not None:
            watching.cancel()
        durable.readers.detach(handle, gone)


def _stopped_outcome(outcome: str) -> bool:
    return outcome == LoopExitReason.APPROVAL_REQUIRED.value


async def start(
    state: ServeState,
    question: str,
    conversation_id: str,
    stream: bool,
    policy: BusyPolicy,
    receive: Receive | None = None,
) -> Response:
    """``POST /api/turns`` on the engine (``receive``: the request's, to notice a
    non-streamed call's client going away)."""
    from ostinato.durable import TurnRequest

    durable = state.durable
    assert durable is not None
    request = TurnRequest(question, conversation_id=conversation_id, tools=durable.tools)
    claimed = await claim_turn(durable.engine, request, conversation_id, policy)
    if claimed.steered:
        body = {"turn_id": claimed.turn_id, "conversation_id": conversation_id, "steered": True}
        return JSONResponse(body, status_code=202)
    handle = durable.engine.turn(claimed.turn_id)
    return await _respond(durable, handle, 0, stream, False, receive)


async def resume(
    state: ServeState,
    pending_id: str,
    data: dict[str, Any],
    stream: bool,
    receive: Receive | None = None,
) -> Response:
    """``POST /api/approvals/<turn_id>@<seq>``: decide through the handle, then read on."""
    durable = state.durable
    assert durable is not None
    turn_id, _, at = pending_id.rpartition("@")
    if not turn_id or not at.isdigit():
        raise ApiError(
            404, "unknown_pending", f"no calls wait under {pending_id!r} (expected <turn_id>@<n>)"
        )
    handle = durable.handle(turn_id)
    pending = await asyncio.to_thread(handle.pending)
    try:
        if pending is None:
            pending = await _published(handle)
        if pending is None:
            await asyncio.to_thread(handle.decide, {})  # raises: decided, or none waits
        else:
            decisions = parse_decisions(data, pending.awaiting)
            await asyncio.to_thread(handle.decide, decisions)
    except DurableTurnError as exc:
        if exc.status == "already_decided":
            raise ApiError(409, "already_decided", str(exc)) from None
        raise ApiError(404, "unknown_pending", str(exc)) from None
    except ResumeError as exc:
        raise ApiError(422, "invalid_resume", str(exc)) from None
    return await _respond(durable, handle, int(at), stream, True, receive)


async def _published(handle: TurnHandle) -> PendingToolCalls | None:
    """The calls ``handle``'s turn waits for, once published: a turn logs its stop a
    moment before it publishes the calls, so a client deciding as soon as it read the
    stop waits for them here, up to :data:`_PUBLISH_WAIT` seconds (``None``: none were
    published in that time, or the turn ended: a round decided already, or no stop)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _PUBLISH_WAIT
    while loop.time() < deadline:
        await asyncio.sleep(0.05)
        pending = await asyncio.to_thread(handle.pending)
        if pending is not None:
            return pending
        if (await _status(handle)) in _DONE:
            return None
    return None


async def show(state: ServeState, turn_id: str) -> Response:
    """``GET /api/turns/<turn_id>`` of a durable turn."""
    assert state.durable is not None
    handle = state.durable.handle(turn_id)
    status = await _status(handle)
    pending = await asyncio.to_thread(handle.pending)
    body = {
        "turn_id": turn_id,
        "conversation_id": _conversation_of(turn_id),
        "done": status in _DONE,
        "status": status,
        "awaiting": list(pending.awaiting) if pending is not None else [],
    }
    return JSONResponse(body)


async def events(state: ServeState, turn_id: str, after: int) -> Response:
    """``GET /api/turns/<turn_id>/events`` of a durable turn, after ``after``."""
    assert state.durable is not None
    handle = state.durable.handle(turn_id)
    await _status(handle)  # 404 for an unknown turn, before the stream starts
    try:  # a bad position fails at the first read: at once, before the stream starts
        await asyncio.to_thread(_first, handle, after)
        at = None
        if after > 0 and state.durable.readers.disconnect is Disconnect.CANCEL:
            at = await asyncio.to_thread(_first, handle, after - 1)
    except TurnLogError as exc:
        raise ApiError(_LOG_ERRORS.get(exc.reason, 422), exc.reason, str(exc)) from None
    stopped = at is not None and _stopped(at)  # read on after a stop: the turn waits
    return _streamed(state.durable, handle, after, False, stopped)


def _first(handle: TurnHandle, after: int) -> LoopEvent | None:
    """The turn's event after ``after`` if it is there now (a bad position raises)."""
    reader = handle.events(after, timeout=0)
    try:
        return next(iter(reader), None)
    except TimeoutError:
        return None
    finally:
        close = getattr(reader, "close", None)
        if close is not None:
            close()


async def cancel(state: ServeState, turn_id: str) -> Response:
    """``POST /api/turns/<turn_id>/cancel`` of a durable turn (its engine's handle must
    have ``cancel()``)."""
    assert state.durable is not None
    handle = state.durable.handle(turn_id)
    if getattr(handle, "cancel", None) is None:
        raise ApiError(
            501,
            "not_cancellable",
            f"the durable engine's handle ({type(handle).__name__}) cannot cancel a turn",
        )
    await _status(handle)
    await asyncio.to_thread(cancel_handle, handle)
    return JSONResponse({"turn_id": turn_id, "cancelled": True}, status_code=202)
