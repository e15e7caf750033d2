"""``ToolCallListener``: how ``ostinato chat`` sees the tool loop as it runs.

A loop-event listener (:mod:`ostinato.events`) given to the request: it says when each
model round starts and reports every tool call — name, arguments, duration, result or
error — as it happens. A call answered without running a tool (an unknown tool name) is
reported with no duration; a call answered by a tool-call limit is not reported (the
turn's answer says it). It changes nothing the model is sent or the tools do; it must not
print (it hands what it sees to a :class:`ChatEvents`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final, Protocol

from ostinato.events import (
    LoopEnded,
    LoopEvent,
    LoopExitReason,
    RoundStarted,
    ToolCallRequested,
    ToolFailureKind,
    ToolFinished,
    ToolProgress,
    ToolStarted,
)
from ostinato.messages import ToolCall

__all__ = ["ChatEvents", "ToolCallEvent", "ToolCallListener"]

_ERROR_PREFIX: Final = "Error: "


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    """One finished tool call.

    Attributes:
        name: the tool's name.
        arguments: the arguments as the model wrote them (JSON text).
        duration: seconds the tool ran; ``None`` when no tool of the request ran (the
            model asked for an unknown tool).
        result: the text the model reads, when the call succeeded.
        error: what went wrong (without the ``Error:`` prefix the model reads), or
            ``None``.
    """

    name: str
    arguments: str
    duration: float | None
    result: str | None = None
    error: str | None = None


class ChatEvents(Protocol):
    """What the observer reports; the chat command's renderer implements it. A renderer
    may also have ``tool_progress(name, text, fraction)`` (a running tool's progress)
    and ``denied(name, arguments, reason)`` (a call denied before it ran; without it, a
    denial is reported by ``tool_finished`` with the error ``denied: <reason>``)."""

    def model_started(self, round_number: int) -> None:
        """A model round (from 1) is about to be sent."""

    def tool_started(self, name: str, arguments: str, effect: str | None = None) -> None:
        """A tool starts running with ``arguments`` (JSON text); ``effect``: its effect
        class, when it declares one."""

    def tool_finished(self, event: ToolCallEvent) -> None:
        """A tool call ended (or was answered without running a tool)."""


def denial_reason(event: ToolFinished) -> str | None:
    """The reason of a denied call's ``ToolFinished`` as a person gave it, if any (the
    result reads ``Tool call 'x' was not run: denied (<reason>).``)."""
    from ostinato.cli._approval_prompt import DECLINED

    reason = event.result.partition(": denied (")[2].removesuffix(").")
    return reason.removeprefix(DECLINED).removeprefix(": ") or None


def _error_text(event: ToolFinished) -> str:
    if event.failure is ToolFailureKind.CANCELLED:
        return "cancelled"
    if event.failure is ToolFailureKind.DENIED:
        reason = denial_reason(event)
        return f"denied: {reason}" if reason else "denied"
    text = event.result.removeprefix(_ERROR_PREFIX)
    if event.failure is ToolFailureKind.TIMED_OUT:  # "tool 'x' timed out ..." -> "timed out ..."
        return text.removeprefix(f"tool '{event.call.name}' ")
    return text


class ToolCallListener:
    """Reports model rounds and tool calls to ``events`` (called with each loop event).

    Args:
        events: receives the reports (on the event loop running the turn).

    Use one listener per turn: :attr:`rounds` counts that turn's model rounds.
    """

    __slots__ = ("_events", "_rounds", "_running", "ended", "limit", "not_run")

    def __init__(self, events: ChatEvents) -> None:
        self._events = events
        self._rounds = 0
        self._running: dict[str, tuple[ToolCall, float]] = {}
        #: Why the turn's tool loop ended (``None`` until it did, or when no loop ran).
        self.ended: LoopExitReason | None = None
        #: With ``ended`` at a usage limit, which one (``model_requests``...).
        self.limit: str | None = None
        #: The calls the model asked for that have not started (by id, in order).
        self.not_run: dict[str, ToolCall] = {}

    @property
    def rounds(self) -> int:
        """Model rounds started so far."""
        return self._rounds

    def __call__(self, event: LoopEvent) -> None:
        """Report ``event`` when it is one the chat command shows."""
        if isinstance(event, RoundStarted):
            self._rounds = event.round
            self._events.model_started(event.round)
        elif isinstance(event, ToolCallRequested):
            self.not_run[event.call.id] = event.call
        elif isinstance(event, ToolStarted):
            self.not_run.pop(event.call.id, None)
            self._running[event.call.id] = (event.call, time.perf_counter())
            if event.effect is None:
                self._events.tool_started(event.call.name, event.call.arguments)
            else:
                self._events.tool_started(event.call.name, event.call.arguments, event.effect)
        elif isinstance(event, ToolProgress):
            told = getattr(self._events, "tool_progress", None)  # optional for a renderer
            if told is not None:
                told(event.call.name, event.text, event.fraction)
        elif isinstance(event, ToolFinished):
            self.not_run.pop(event.call.id, None)  # answered without running (denied...)
            self._finished(event)
        elif isinstance(event, LoopEnded):
            self.ended = event.reason
            self.limit = event.limit

    def _finished(self, event: ToolFinished) -> None:
        call = event.call
        ran = self._running.pop(call.id, None) is not None
        if not ran and event.failure is ToolFailureKind.LIMIT:
            return
        told = getattr(self._events, "denied", None)  # optional for a renderer
        if event.failure is ToolFailureKind.DENIED and told is not None:
            told(call.name, call.arguments, denial_reason(event))
            return
        duration = event.duration if ran else None
        if event.error is None and event.failure is None:
            report = ToolCallEvent(call.name, call.arguments, duration, result=event.result)
        else:
            report = ToolCallEvent(call.name, call.arguments, duration, error=_error_text(event))
        self._events.tool_finished(report)

    def cancel_running(self) -> None:
        """Report the tools still running as cancelled (the turn was cancelled); the loop
        tells of each with a cancelled ``ToolFinished``, so this reports only what a tool
        advisor that does not left running."""
        running, self._running = self._running, {}
        for call, started in running.values():
            elapsed = time.perf_counter() - started
            self._events.tool_finished(
                ToolCallEvent(call.name, call.arguments, elapsed, error="cancelled")
            )
