"""``POST /v1/chat/completions`` and ``GET /v1/models``: the served client behind the
OpenAI Chat Completions API, so any OpenAI client, SDK or UI can use it.

The caller's ``messages`` are the whole conversation, as with OpenAI: the server adds no
remembered history and stores nothing (its memory advisors are left out of these
requests). The server runs its own tools and the caller sees the answer. A request that
declares ``tools`` of its own is passed through instead: the server runs no tool, and the
model's tool calls go back to the caller (``finish_reason: "tool_calls"``), as OpenAI
does. A server tool that needs approval is not run: no OpenAI client can approve, so the
answer says so and where approval is possible (the page, ``/api/turns``). Closing a
stream cancels the turn. Under ``turns=durable`` the turn runs on the engine
(:mod:`ostinato_serve._openai_durable`).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ostinato.advisors import ChatClientMessageAggregator
from ostinato.client import AdvisorParams, ChatClientRequestSpec
from ostinato.errors import OstinatoError
from ostinato.events import ApprovalRequired, LoopEnded, LoopEvent
from ostinato.messages import Message, ToolCall
from ostinato.model import ChatResponse, Usage
from ostinato_serve._openai_durable import durable_completion, on_engine
from ostinato_serve._openai_wire import (
    caller_tools,
    calls_json,
    chunk,
    completion,
    finish_reason,
    request_messages,
    request_options,
)
from ostinato_serve._problems import ApiError
from ostinato_serve._requests import read_json_object
from ostinato_serve._sse import closing, event_stream_response, failure_body, sse
from ostinato_serve._state import ServeState

__all__ = ["chat_completions", "list_models"]


class _Usage:
    """What the turn's events tell: its usage, every round summed (from ``LoopEnded``;
    without a tool loop, the response's own), and the calls it stopped on for approval."""

    __slots__ = ("usage", "waiting")

    def __init__(self) -> None:
        self.usage: Usage | None = None
        self.waiting: tuple[ToolCall, ...] = ()

    def __call__(self, event: LoopEvent) -> None:
        if isinstance(event, LoopEnded):
            self.usage = event.usage
        elif isinstance(event, ApprovalRequired) and event.pending is not None:
            self.waiting = event.calls  # the turn stops (an approver deciding inline: not)


def _not_approvable(calls: tuple[ToolCall, ...], base_url: str) -> str:
    """The answer of a turn that stopped for approval: nothing waits, since no OpenAI
    client can approve; where approval is possible instead."""
    names = ", ".join(dict.fromkeys(call.name for call in calls))
    one = len(calls) == 1
    return (
        f"Not run: the tool call{'' if one else 's'} {names} need{'s' if one else ''} "
        "approval, which this OpenAI-compatible endpoint cannot ask for (nothing waits "
        f"for a decision). Ask on the server's page, {base_url}, or through its "
        "event-stream API (POST /api/turns, then POST /api/approvals/<pending_id>)."
    )


def _state(request: Request) -> ServeState:
    state: ServeState = request.app.state.ostinato
    return state


async def list_models(request: Request) -> Response:
    """``{"object": "list", "data": [<the served model>]}``."""
    model = {"id": _state(request).model_name, "object": "model", "created": 0}
    return JSONResponse({"object": "list", "data": [{**model, "owned_by": "ostinato"}]})


def _spec(
    state: ServeState, body: dict[str, Any], messages: list[Message], usage: _Usage
) -> ChatClientRequestSpec:
    options = request_options(body)
    declared = caller_tools(body.get("tools"))
    spec = state.stateless_client.prompt().messages(messages).listener(usage)
    if declared:
        spec.tools(*declared).advisors(AdvisorParams.tool_calling_advisor_auto_register(False))
    else:
        spec.tools(*state.tools)
    if options is not None:
        spec.options(options)
    return spec


def _outcome(response: ChatResponse | None) -> tuple[str | None, tuple[ToolCall, ...], str]:
    generation = response.result if response is not None else None
    if generation is None:
        return None, (), "stop"
    calls = generation.output.tool_calls
    raw = generation.metadata.finish_reason
    return generation.output.text, calls, finish_reason(raw, bool(calls))


async def _call(
    state: ServeState, spec: ChatClientRequestSpec, usage: _Usage, base_url: str
) -> Response:
    try:
        response = await spec.call().achat_response()
    except OstinatoError as exc:
        failure = failure_body(exc)["error"]
        raise ApiError(502, failure["type"], failure["message"]) from None
    finally:
        state.slots.release()
    text, calls, finish = _outcome(response)
    if usage.waiting:
        text = _not_approvable(usage.waiting, base_url)
    spent = usage.usage or (response.metadata.usage if response is not None else None)
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    return JSONResponse(completion(completion_id, state.model_name, text, calls, finish, spent))


async def _stream(
    state: ServeState,
    spec: ChatClientRequestSpec,
    usage: _Usage,
    include_usage: bool,
    base_url: str,
) -> AsyncIterator[bytes]:
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    model = state.model_name
    yield sse(chunk(completion_id, model, {"role": "assistant", "content": ""}))
    aggregator = ChatClientMessageAggregator()
    try:
        async with closing(spec.stream().achat_client_responses()) as pieces:
            async for piece in pieces:
                aggregator.add(piece)
                text = piece.chat_response.text if piece.chat_response is not None else None
                if text and not usage.waiting:  # the loop's own "waiting" text is not sent
                    yield sse(chunk(completion_id, model, {"content": text}))
    except Exception as exc:  # the stream has started: the failure is an error event
        yield sse(failure_body(exc), event="error")
        return
    if usage.waiting:
        text = _not_approvable(usage.waiting, base_url)
        yield sse(chunk(completion_id, model, {"content": text}))
    final = aggregator.result()
    _, calls, finish = _outcome(final.chat_response if final is not None else None)
    if calls:
        delta = {"tool_calls": calls_json(calls, indexed=True)}
        yield sse(chunk(completion_id, model, delta))
    yield sse(chunk(completion_id, model, {}, finish))
    if include_usage:
        spent = usage.usage
        if spent is None and final is not None and final.chat_response is not None:
            spent = final.chat_response.metadata.usage
        yield sse(chunk(completion_id, model, None, usage=spent))
    yield sse("[DONE]")


async def chat_completions(request: Request) -> Response:
    """``POST /v1/chat/completions`` (``stream: true`` for server-sent chunks)."""
    state = _state(request)
    body = await read_json_object(request)
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise ApiError(400, "invalid_request_error", f"'stream' must be a boolean, got {stream!r}")
    options = body.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    messages = request_messages(body.get("messages"))
    if on_engine(state, body, messages):
        base = str(request.base_url)
        return await durable_completion(
            state, messages, stream, include_usage, lambda calls: _not_approvable(calls, base)
        )
    usage = _Usage()
    spec = _spec(state, body, messages, usage)
    state.slots.acquire()
    if not stream:
        return await _call(state, spec, usage, str(request.base_url))
    events = _stream(state, spec, usage, include_usage, str(request.base_url))
    return event_stream_response(events, on_close=state.slots.release)
