"""The tool events of one batch: what the default tool calling manager tells the sink.

A call that runs gets a :class:`~ostinato.events.ToolStarted` when it starts (after
waiting for the concurrency cap) and a :class:`~ostinato.events.ToolFinished` as soon as
it ends, with the seconds it ran; a call answered without running a tool (an unknown
tool, a limit answered as text) gets only a ``ToolFinished``, at once, with duration 0
and its error class. A failure's ``error`` is what was raised (the tool's own exception
class, see ``ToolError.error_type``) and its ``failure`` the kind (:func:`failure_kind`).
The text of a failure is what the exception processor makes of it; the processor runs
once per failure, here, and the manager reuses its text (or re-raises what it raised) in
call order afterwards, as it would without events. Imported by the manager only when
somebody listens; core's ``tool-events`` unit wrapper tells it of each call that runs.
Must not decide anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato.errors import (
    ToolArgumentsError,
    ToolCallLimitExceeded,
    ToolError,
    ToolNotFoundError,
    ToolTimeoutError,
)
from ostinato.events import EventSink, ToolFailureKind
from ostinato.messages import ToolCall
from ostinato.tools._exceptions import ToolExecutionExceptionProcessor, tool_error_text
from ostinato.tools._progress import ProgressReporter

if TYPE_CHECKING:
    from ostinato.units._tool_unit import ToolInvocation

__all__ = ["ToolEvents", "failure_kind"]


class ToolEvents:
    """Emits the tool events of one batch into ``sink``."""

    __slots__ = ("_processed", "_processor", "_sink")

    def __init__(self, sink: EventSink, processor: ToolExecutionExceptionProcessor) -> None:
        self._sink = sink
        self._processor = processor
        self._processed: dict[int, str | Exception] = {}

    async def answered(self, call: ToolCall, text: str, error: ToolError | str) -> None:
        """A call answered without running a tool (``error``: why; the class name of a
        limit, which has no error object)."""
        if isinstance(error, str):
            await self._sink.tool_finished(call, text, 0.0, error, False, ToolFailureKind.LIMIT)
            return
        await self._sink.tool_finished(
            call, text, 0.0, error.error_type, False, failure_kind(error)
        )

    def processed(self, index: int, error: ToolError) -> str:
        """The text for the failure of call ``index``: the processor's, from when the
        call ended (raising what it raised then), else processed now."""
        done = self._processed.pop(index, None)
        if done is None:
            return self._processor.process(error)
        if isinstance(done, Exception):
            raise done
        return done

    async def started(self, job: ToolInvocation) -> None:
        """The call ``job`` starts running (told by core's ``tool-events`` wrapper)."""
        effect = job.effect
        await self._sink.tool_started(job.call, None if effect is None else effect.value)

    def progress(self, job: ToolInvocation) -> ProgressReporter:
        """What delivers the progress reports of the call ``job`` while it runs."""
        import asyncio  # loaded by then: the tool loop runs on it

        return ProgressReporter(self._sink, job.call, asyncio.get_running_loop())

    async def finished(self, job: ToolInvocation, outcome: str | ToolError, seconds: float) -> None:
        """The call ``job`` ended with ``outcome`` after ``seconds``."""
        effect = None if job.effect is None else job.effect.value
        if isinstance(outcome, str):
            await self._sink.tool_finished(
                job.call, outcome, seconds, None, job.return_direct, None, effect
            )
            return
        try:
            text = self._processor.process(outcome)
        except Exception as raised:  # re-raised by processed(), in call order
            self._processed[job.index] = raised
            text = tool_error_text(outcome)
        else:
            self._processed[job.index] = text
        await self._sink.tool_finished(
            job.call,
            text,
            seconds,
            outcome.error_type,
            job.return_direct,
            failure_kind(outcome),
            effect,
        )


def failure_kind(error: ToolError) -> ToolFailureKind:
    """The kind of failure ``error`` reports (a tool's own error of an unknown kind, and
    any error it raised, is ``raised``)."""
    if isinstance(error, ToolTimeoutError):
        return ToolFailureKind.TIMED_OUT
    if isinstance(error, ToolArgumentsError):
        return ToolFailureKind.BAD_ARGUMENTS
    if isinstance(error, ToolNotFoundError):
        return ToolFailureKind.UNKNOWN_TOOL
    if isinstance(error, ToolCallLimitExceeded):
        return ToolFailureKind.LIMIT
    return ToolFailureKind.RAISED
