"""``POST /api/ag-ui``: a turn as an AG-UI run, its loop events as AG-UI events over
server-sent events (the translation is :mod:`ostinato_serve._agui_events`).

The body is AG-UI's ``RunAgentInput``: ``threadId`` (the conversation), ``runId``,
``messages`` (the last user message is the question; earlier user and assistant texts
are the history when the client has no memory of its own), or ``resume`` (the decisions
on a run that ended with approval interrupts: one entry per interrupt, ``status``
``resolved`` with a ``payload`` ``{"decision": "approve"|"deny"|"edit", ...}``, or
``cancelled`` for a denial). Tools the caller declares (``tools``), its ``state`` and
``context`` are not used: the served client's own tools run. Closing the connection
cancels the turn, as on ``/api/turns``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ostinato.client import AdvisorParams, ChatClientRequestSpec
from ostinato.errors import ResumeError
from ostinato.events import ApprovalRequired
from ostinato.messages import AssistantMessage, Message, UserMessage
from ostinato.tools import PendingToolCalls
from ostinato_serve._agui_events import AgUiRun, split_interrupt_id
from ostinato_serve._decisions import parse_decisions
from ostinato_serve._problems import ApiError
from ostinato_serve._requests import read_json_object, required_str
from ostinato_serve._sse import closing, event_stream_response, failure_body
from ostinato_serve._state import PendingTurn, ServeState

__all__ = ["run_agent"]


def _data(event: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(event, separators=(',', ':'))}\n\n".encode()


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def _conversation(messages: Any) -> tuple[list[Message], str]:
    """The history and the question of ``messages`` (AG-UI messages)."""
    if not isinstance(messages, list):
        raise ApiError(422, "invalid_request", f"'messages' must be a list, got {messages!r}")
    texts = [
        (m.get("role"), _text(m.get("content")))
        for m in messages
        if isinstance(m, dict) and m.get("role") in ("user", "assistant")
    ]
    if not texts or texts[-1][0] != "user" or not texts[-1][1].strip():
        raise ApiError(
            422,
            "invalid_request",
            "expected 'messages' to end with a user message with text (the question), "
            "or 'resume' entries deciding the interrupts of an earlier run",
        )
    history: list[Message] = [
        UserMessage(text) if role == "user" else AssistantMessage(text)
        for role, text in texts[:-1]
        if text
    ]
    return history, texts[-1][1]


def _resumed(state: ServeState, entries: Any) -> tuple[str, PendingTurn, ChatClientRequestSpec]:
    if not isinstance(entries, list) or not entries:
        raise ApiError(
            422, "invalid_request", f"'resume' must be a list of entries, got {entries!r}"
        )
    given: dict[str, Any] = {}
    pending_ids = set()
    for entry in entries:
        pending_id, call_id = split_interrupt_id(str(entry.get("interruptId", "")))
        if not pending_id:
            raise ApiError(422, "unknown_interrupt", f"no interrupt of this server: {entry!r}")
        pending_ids.add(pending_id)
        if entry.get("status") == "cancelled":
            given[call_id] = {"decision": "deny", "reason": "the user cancelled this call"}
        else:
            given[call_id] = entry.get("payload")
    if len(pending_ids) != 1:
        raise ApiError(
            422, "invalid_request", "the 'resume' entries must answer the interrupts of one run"
        )
    (pending_id,) = pending_ids
    waiting = state.pending.peek(pending_id)
    decisions = parse_decisions({"decisions": given}, waiting.pending.awaiting)
    spec = state.client.prompt().tools(*state.tools)
    if state.has_memory:
        spec.advisors(AdvisorParams.conversation_id(waiting.conversation_id))
    try:
        spec.resume(waiting.pending, decisions)
    except ResumeError as exc:
        raise ApiError(422, "invalid_resume", str(exc)) from None
    return pending_id, waiting, spec


async def _stream(
    state: ServeState, spec: ChatClientRequestSpec, run: AgUiRun, question: str
) -> AsyncIterator[bytes]:
    yield _data(run.started())
    pending_id: str | None = None
    try:
        async with closing(spec.stream().aevents()) as events:
            async for event in events:
                if isinstance(event, ApprovalRequired) and event.pending is not None:
                    pending = PendingToolCalls.from_dict(event.pending)
                    pending_id = state.pending.add(PendingTurn(pending, run.thread_id, question))
                for out in run.translate(event, pending_id):
                    yield _data(out)
    except Exception as exc:  # the stream has started: the failure is an event
        error = failure_body(exc)["error"]
        for out in run.error(error["message"], error["type"]):
            yield _data(out)


async def run_agent(request: Request) -> Response:
    """``POST /api/ag-ui`` with a ``RunAgentInput`` (see the module)."""
    state: ServeState = request.app.state.ostinato
    data = await read_json_object(request)
    thread_id = required_str(data, "threadId")
    run = AgUiRun(thread_id, required_str(data, "runId"), state.model_name)
    taken: str | None = None
    if data.get("resume"):
        taken, waiting, spec = _resumed(state, data["resume"])
        question = waiting.question
    else:
        history, question = _conversation(data.get("messages"))
        spec = state.client.prompt()
        if state.has_memory:
            spec.advisors(AdvisorParams.conversation_id(thread_id))
        else:
            spec.messages(history)
        spec.user(question).tools(*state.tools)
    state.slots.acquire()
    response = event_stream_response(_stream(state, spec, run, question), state.slots.release)
    if taken is not None:
        try:
            state.pending.take(taken)  # of two runs deciding at once, the second finds it gone
        except ApiError:
            state.slots.release()
            raise
    return response
