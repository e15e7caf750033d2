"""The loop's events as AG-UI events: :class:`AgUiRun`, one run's translation.

AG-UI events are plain JSON objects with camelCase keys (``{"type": "RUN_STARTED",
"threadId": ..., "runId": ...}``), one per server-sent event's ``data:`` line. They are
built here as dicts: the protocol's shapes are few and flat, and ``ostinato-serve`` keeps
its dependencies to Starlette and uvicorn (the tests read every event back with the
``ag-ui-protocol`` package's own types).

What maps: a model round is a step (``STEP_STARTED``/``STEP_FINISHED`` named
``round N``); its text deltas are one assistant message (``TEXT_MESSAGE_START`` /
``_CONTENT`` / ``_END``); each complete tool call is ``TOOL_CALL_START``, one
``TOOL_CALL_ARGS`` with the whole arguments and ``TOOL_CALL_END``; each tool result is
``TOOL_CALL_RESULT``; a running tool's progress report is a ``CUSTOM`` event named
``ostinato.tool_progress`` (its value: ``toolCallId``, ``text``, ``data``, ``fraction``);
the turn is ``RUN_STARTED`` ... ``RUN_FINISHED`` (with the answer as
``result`` and the usage), or ``RUN_ERROR``. Calls waiting for approval end the run with
an ``interrupt`` outcome, one interrupt per call (AG-UI's human in the loop).

What does not map is carried in the events' ``metadata`` under ``"ostinato"``: a tool
result's duration, error class and failure kind; the round's usage on ``STEP_FINISHED``;
the loop's exit reason and round count on ``RUN_FINISHED``. ``tool_started`` has no
AG-UI event (a tool call is announced once, when the model asked for it).
"""

from __future__ import annotations

from typing import Any, Final

from ostinato.events import (
    ApprovalRequired,
    LoopEnded,
    LoopEvent,
    RoundFinished,
    RoundStarted,
    TextDelta,
    ToolCallRequested,
    ToolFinished,
    ToolProgress,
)
from ostinato.model import Usage
from ostinato.tools import PendingToolCalls

__all__ = [
    "APPROVAL_REASON",
    "PROGRESS_EVENT",
    "AgUiRun",
    "interrupt_id",
    "split_interrupt_id",
    "token_usage",
]

#: The ``reason`` of an interrupt asking for an approval decision.
APPROVAL_REASON: Final = "tool_approval"
#: The name of the ``CUSTOM`` event carrying a tool's progress report.
PROGRESS_EVENT: Final = "ostinato.tool_progress"
#: The JSON schema of the ``payload`` that resolves an approval interrupt.
DECISION_SCHEMA: Final = {
    "type": "object",
    "properties": {
        "decision": {"enum": ["approve", "deny", "edit"]},
        "reason": {"type": "string"},
        "arguments": {"type": "object"},
    },
    "required": ["decision"],
}


def interrupt_id(pending_id: str, call_id: str) -> str:
    """The interrupt id of one waiting call: ``<pending id>/<call id>``."""
    return f"{pending_id}/{call_id}"


def split_interrupt_id(value: str) -> tuple[str, str]:
    """``(pending id, call id)`` of an interrupt id (``("", "")`` when malformed)."""
    pending_id, _, call_id = value.partition("/")
    return (pending_id, call_id) if pending_id and call_id else ("", "")


def token_usage(usage: Usage, model: str | None) -> dict[str, Any]:
    """An AG-UI ``TokenUsage``."""
    data: dict[str, Any] = {
        "inputTokens": usage.prompt_tokens,
        "outputTokens": usage.completion_tokens,
        "totalTokens": usage.total_tokens,
    }
    if model:
        data["model"] = model
    optional = {
        "reasoningTokens": usage.reasoning_tokens,
        "cachedInputTokens": usage.cache_read_input_tokens,
        "cacheWriteInputTokens": usage.cache_write_input_tokens,
    }
    data.update({k: v for k, v in optional.items() if v is not None})
    return data


class AgUiRun:
    """Translates one run's loop events into AG-UI events (see the module).

    Args:
        thread_id: the AG-UI thread (the conversation).
        run_id: the run.
        model: the model's name (for the usage).
    """

    def __init__(self, thread_id: str, run_id: str, model: str | None = None) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        self.model = model
        self._message: str | None = None
        self._pending: PendingToolCalls | None = None

    def started(self) -> dict[str, Any]:
        """``RUN_STARTED``."""
        return {"type": "RUN_STARTED", "threadId": self.thread_id, "runId": self.run_id}

    def error(self, message: str, code: str) -> list[dict[str, Any]]:
        """``RUN_ERROR`` (an open text message is closed first)."""
        return [*self._close_text(), {"type": "RUN_ERROR", "message": message, "code": code}]

    def _close_text(self) -> list[dict[str, Any]]:
        if self._message is None:
            return []
        message, self._message = self._message, None
        return [{"type": "TEXT_MESSAGE_END", "messageId": message}]

    def translate(self, event: LoopEvent, pending_id: str | None = None) -> list[dict[str, Any]]:
        """The AG-UI events for ``event`` (``pending_id``: under which the server keeps a
        turn that stopped for approval, for its ``loop_ended``)."""
        if isinstance(event, RoundStarted):
            return [{"type": "STEP_STARTED", "stepName": f"round {event.round}"}]
        if isinstance(event, TextDelta):
            if not event.text or self._pending is not None:
                return []  # a stopped turn's words: the interrupts say it
            out: list[dict[str, Any]] = []
            if self._message is None:
                self._message = f"{self.run_id}-round-{event.round}"
                out.append(
                    {"type": "TEXT_MESSAGE_START", "messageId": self._message, "role": "assistant"}
                )
            out.append(
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": self._message, "delta": event.text}
            )
            return out
        if isinstance(event, RoundFinished):
            usage = token_usage(event.usage, self.model)
            step = {"type": "STEP_FINISHED", "stepName": f"round {event.round}"}
            return [*self._close_text(), {**step, "metadata": {"ostinato": {"usage": usage}}}]
        if isinstance(event, ToolCallRequested):
            call = event.call
            parent = f"{self.run_id}-round-{event.round}"
            return [
                *self._close_text(),
                {
                    "type": "TOOL_CALL_START",
                    "toolCallId": call.id,
                    "toolCallName": call.name,
                    "parentMessageId": parent,
                },
                {"type": "TOOL_CALL_ARGS", "toolCallId": call.id, "delta": call.arguments or "{}"},
                {"type": "TOOL_CALL_END", "toolCallId": call.id},
            ]
        if isinstance(event, ToolFinished):
            carried: dict[str, Any] = {"duration": event.duration, "round": event.round}
            if event.error is not None:
                carried |= {"error": event.error, "failure": str(event.failure or "")}
            return [
                {
                    "type": "TOOL_CALL_RESULT",
                    "messageId": f"{self.run_id}-result-{event.call.id}",
                    "toolCallId": event.call.id,
                    "content": event.result,
                    "role": "tool",
                    "metadata": {"ostinato": carried},
                }
            ]
        if isinstance(event, ToolProgress):
            data = event.to_dict()["data"]  # JSON values again (the event keeps them frozen)
            value = {"toolCallId": event.call.id, "text": event.text, "data": data}
            return [
                {
                    "type": "CUSTOM",
                    "name": PROGRESS_EVENT,
                    "value": value | {"fraction": event.fraction},
                }
            ]
        if isinstance(event, ApprovalRequired) and event.pending is not None:
            self._pending = PendingToolCalls.from_dict(event.pending)
            return []
        if isinstance(event, LoopEnded):
            return [*self._close_text(), self._finished(event, pending_id)]
        return []

    @property
    def pending(self) -> PendingToolCalls | None:
        """The turn that stopped for approval in this run, if one did."""
        return self._pending

    def _finished(self, ended: LoopEnded, pending_id: str | None) -> dict[str, Any]:
        finished: dict[str, Any] = {
            "type": "RUN_FINISHED",
            "threadId": self.thread_id,
            "runId": self.run_id,
            "usage": [token_usage(ended.usage, self.model)],
            "metadata": {"ostinato": {"reason": ended.reason.value, "rounds": ended.rounds}},
        }
        if self._pending is not None and pending_id is not None:
            interrupts = [
                {
                    "id": interrupt_id(pending_id, call.id),
                    "reason": APPROVAL_REASON,
                    "message": f"approve the call {call.name}({call.arguments})?",
                    "toolCallId": call.id,
                    "responseSchema": DECISION_SCHEMA,
                }
                for call in self._pending.calls
            ]
            finished["outcome"] = {"type": "interrupt", "interrupts": interrupts}
            return finished
        if ended.response is not None and ended.response.text is not None:
            finished["result"] = ended.response.text
        finished["outcome"] = {"type": "success"}
        return finished
