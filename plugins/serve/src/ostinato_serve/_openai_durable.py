"""``POST /v1/chat/completions`` on the durable engine (``OSTINATO_SERVE_TURNS=durable``).

The caller's messages become one :class:`~ostinato.durable.TurnRequest`: its last user
message the turn's, those before it the turn's ``history``, with the server's durable
tools and ``remember=False`` (the caller holds the conversation: the worker's memory
advisors are left out, as the in-process endpoint leaves the server's out). The turn is
submitted under the completion's id (``chatcmpl-<hex>``) and its answer read from its
turn log: streamed as chunks (each text piece as it is logged), or once it ended (the
answer the turn's workflow returned, which an output guard outside the loop checked;
the streamed pieces are the loop's own, as every turn log's text events are).

Closing the stream before the turn ended cancels the durable turn
(``OSTINATO_SERVE_OPENAI_ON_DISCONNECT=cancel``, the default: OpenAI clients expect a
closed stream to stop the completion); ``detach`` lets it run on, unread. A turn that
stops for approval is cancelled at once (no OpenAI client can approve) and answers where
approval is possible. A request this endpoint cannot hand to the engine as it is (the
caller's own ``tools``, sampling options, a last message other than the user's) runs in
the server's process, as without the engine. A round a worker failover withdrew was
streamed already: its text comes again (the non-streamed answer is unaffected). The
cancel is :mod:`ostinato_serve._durable_disconnect`'s, shared with ``/api/turns``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse, Response

from ostinato.events import ApprovalRequired, LoopEnded, LoopEvent, TextDelta
from ostinato.messages import Message, UserMessage
from ostinato.model import Usage
from ostinato_serve._durable_disconnect import cancel_handle, cancel_soon
from ostinato_serve._openai_wire import caller_tools, chunk, completion, request_options
from ostinato_serve._problems import ApiError
from ostinato_serve._sse import event_stream_response, failure_body, sse

if TYPE_CHECKING:
    from ostinato.durable import TurnHandle
    from ostinato_serve._state import ServeState

__all__ = ["durable_completion", "on_engine"]


def on_engine(state: ServeState, body: dict[str, Any], messages: list[Message]) -> bool:
    """Whether this request runs on the durable engine (see the module's text)."""
    if state.durable is None or not isinstance(messages[-1], UserMessage):
        return False
    return not caller_tools(body.get("tools")) and request_options(body) is None


class _Ended:
    """What the turn's events told: its answer, usage and the calls it stopped on."""

    __slots__ = ("answer", "ended", "usage", "waiting")

    def __init__(self) -> None:
        self.answer: str | None = None
        self.usage: Usage | None = None
        self.waiting: tuple[Any, ...] = ()
        self.ended = False

    def see(self, event: LoopEvent) -> bool:
        """Take ``event``; ``True`` once the turn is over for this endpoint."""
        if isinstance(event, ApprovalRequired) and event.pending is not None:
            self.waiting = event.calls
            return True
        if isinstance(event, LoopEnded):
            self.ended = True
            self.usage = event.usage
            self.answer = event.response.text if event.response is not None else None
            return True
        return False


async def _submit(state: ServeState, messages: list[Message]) -> TurnHandle:
    from ostinato.durable import TurnRequest

    durable = state.durable
    assert durable is not None
    last = messages[-1]
    request = TurnRequest(
        last.text or "", tools=durable.tools, history=tuple(messages[:-1]), remember=False
    )
    turn_id = f"chatcmpl-{uuid.uuid4().hex}"
    return await asyncio.to_thread(durable.engine.submit, request, turn_id=turn_id)


async def _failure(handle: TurnHandle) -> str:
    """Why a turn whose log ended without ``loop_ended`` ended (its status, masked)."""
    try:
        await handle.aresult()
    except Exception as exc:
        return str(failure_body(exc)["error"]["message"])
    return "the turn ended without an answer"


async def _answer(handle: TurnHandle) -> str | None:
    """The ended turn's answer as its workflow returned it: after the advisors outside
    the loop, so an output guard's rewrite (``LoopEnded`` carries the loop's own text)."""
    try:
        answer = await handle.aresult()
    except Exception as exc:  # it failed after its loop ended (a memory write)
        raise ApiError(502, "turn_failed", str(failure_body(exc)["error"]["message"])) from None
    return answer.text


async def _call(
    state: ServeState, handle: TurnHandle, not_approvable: Callable[[tuple[Any, ...]], str]
) -> Response:
    seen = _Ended()
    async for event in handle.aevents(0):
        if seen.see(event):
            break
    if seen.waiting:
        await asyncio.to_thread(cancel_handle, handle)
        seen.answer = not_approvable(seen.waiting)
    elif not seen.ended:
        raise ApiError(502, "turn_failed", await _failure(handle))
    else:
        seen.answer = await _answer(handle)
    body = completion(handle.id, state.model_name, seen.answer, (), "stop", seen.usage)
    return JSONResponse(body)


async def _stream(
    state: ServeState,
    handle: TurnHandle,
    seen: _Ended,
    include_usage: bool,
    not_approvable: Callable[[tuple[Any, ...]], str],
) -> AsyncIterator[bytes]:
    model = state.model_name
    yield sse(chunk(handle.id, model, {"role": "assistant", "content": ""}))
    async for event in handle.aevents(0):
        if isinstance(event, TextDelta) and event.text:
            yield sse(chunk(handle.id, model, {"content": event.text}))
        if seen.see(event):
            break
    if seen.waiting:
        await asyncio.to_thread(cancel_handle, handle)
        yield sse(chunk(handle.id, model, {"content": not_approvable(seen.waiting)}))
    elif not seen.ended:
        seen.ended = True  # it ended without an answer: nothing left to cancel
        yield sse({"error": {"type": "turn_failed", "message": await _failure(handle)}})
        return
    yield sse(chunk(handle.id, model, {}, "stop"))
    if include_usage:
        yield sse(chunk(handle.id, model, None, usage=seen.usage))
    yield sse("[DONE]")


async def durable_completion(
    state: ServeState,
    messages: list[Message],
    stream: bool,
    include_usage: bool,
    not_approvable: Callable[[tuple[Any, ...]], str],
) -> Response:
    """The completion of ``messages`` as a durable turn (call or stream)."""
    handle = await _submit(state, messages)
    if not stream:
        return await _call(state, handle, not_approvable)
    seen = _Ended()
    cancel = state.settings.openai_on_disconnect == "cancel"

    def closed() -> None:
        # However the response ended — the client gone mid-stream, or before its body
        # started — a turn that has not ended is cancelled (not awaited: the response
        # is over).
        if cancel and not seen.ended and not seen.waiting:
            cancel_soon(handle)

    body = _stream(state, handle, seen, include_usage, not_approvable)
    return event_stream_response(body, on_close=closed)
