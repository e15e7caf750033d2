"""A running tool's progress, told to its turn: :func:`report_progress` (from any code a
tool runs, sync or async) and :func:`areport_progress` (awaited, from async code).

Each report becomes a :class:`~ostinato.events.ToolProgress` event of the calling turn,
between the call's ``ToolStarted`` and its ``ToolFinished``, in the order reported. When
nobody listens to the turn (no listener, no event stream, no turn log), or the code runs
outside a tool call of a turn, a report is one context variable read and nothing else.

core's ``tool-events`` unit wrapper opens a :class:`ProgressReporter` around each call it
tells of (it is current while the call runs, a context variable the tool thread copies)
and closes it before the call's ``ToolFinished``: a report made after that (a tool thread
still running after its call was abandoned) is dropped. A report from the tool thread is
handed to the turn's event loop and delivered there, in order; it does not wait for the
listeners.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from ostinato.events import EventSink
    from ostinato.messages import ToolCall

__all__ = ["ProgressReporter", "areport_progress", "report_progress"]

_CURRENT: ContextVar[ProgressReporter | None] = ContextVar("ostinato_tool_progress", default=None)


def _checked(text: str, data: Mapping[str, Any] | None, fraction: float | None) -> None:
    if not isinstance(text, str):
        raise TypeError(f"progress text must be a str, got {type(text).__name__}: {text!r}")
    if data is not None and not isinstance(data, Mapping):
        raise TypeError(
            f"progress data must be a mapping of JSON values (or None), got "
            f"{type(data).__name__}: {data!r}"
        )
    if fraction is not None and not 0.0 <= fraction <= 1.0:
        raise ValueError(f"progress fraction must be between 0 and 1 (or None), got {fraction!r}")


class ProgressReporter:
    """Delivers the progress reports of one running tool call into its turn's sink.

    Args:
        sink: the turn's event sink.
        call: the call whose progress is reported.
        loop: the event loop running the turn.
    """

    __slots__ = ("_drain", "_open", "_queue", "call", "loop", "sink")

    def __init__(self, sink: EventSink, call: ToolCall, loop: asyncio.AbstractEventLoop) -> None:
        self.sink = sink
        self.call = call
        self.loop = loop
        self._open = True
        self._queue: list[Any] = []
        self._drain: asyncio.Task[None] | None = None

    def _event(self, text: str, data: Mapping[str, Any] | None, fraction: float | None) -> Any:
        from ostinato.events._types import ToolProgress

        return ToolProgress(self.sink.round, self.call, text, data, fraction)

    def report(self, text: str, data: Mapping[str, Any] | None, fraction: float | None) -> None:
        """Queue one report for delivery on the turn's loop (from any thread)."""
        if not self._open:
            return
        event = self._event(text, data, fraction)
        import asyncio

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self._enqueue(event)
        else:
            # A closed loop (the turn is over): nobody is left to tell.
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self._enqueue, event)

    def _enqueue(self, event: Any) -> None:
        if not self._open:
            return
        self._queue.append(event)
        if self._drain is None or self._drain.done():
            self._drain = self.loop.create_task(self._deliver())

    async def _deliver(self) -> None:
        while self._queue:
            await self.sink.emit(self._queue.pop(0))

    async def areport(
        self, text: str, data: Mapping[str, Any] | None, fraction: float | None
    ) -> None:
        """Deliver one report now, after those queued before it (on the turn's loop)."""
        if not self._open:
            return
        if self._drain is not None and not self._drain.done():
            await self._drain
        await self.sink.emit(self._event(text, data, fraction))

    async def close(self) -> None:
        """The call ended: deliver what was reported, then drop later reports."""
        if self._drain is not None and not self._drain.done():
            await self._drain
        self._open = False

    def abandon(self) -> None:
        """The call was cancelled: drop what is queued and any later report."""
        self._open = False
        self._queue.clear()
        if self._drain is not None:
            self._drain.cancel()


def open_progress(reporter: ProgressReporter) -> Token[ProgressReporter | None]:
    """Make ``reporter`` current (core's ``tool-events`` wrapper, around one call)."""
    return _CURRENT.set(reporter)


def close_progress(token: Token[ProgressReporter | None]) -> None:
    """Undo :func:`open_progress`."""
    _CURRENT.reset(token)


def report_progress(
    text: str = "", *, data: Mapping[str, Any] | None = None, fraction: float | None = None
) -> None:
    """Tell the calling turn how the running tool call is getting on (see the module).

    Callable from a sync tool (in the tool thread) and from async code alike; it never
    waits for the turn's listeners. Outside a tool call of a turn somebody listens to, it
    does nothing.

    Args:
        text: a line for people (``"fetched 3 of 10 pages"``).
        data: JSON values for programs (kept in the event's JSON form).
        fraction: how much is done, from 0 to 1, when the tool knows.

    Raises:
        TypeError: ``text`` is not a string or ``data`` not a mapping.
        ValueError: ``fraction`` is outside 0..1.
    """
    reporter = _CURRENT.get()
    if reporter is None:
        return
    _checked(text, data, fraction)
    reporter.report(text, data, fraction)


async def areport_progress(
    text: str = "", *, data: Mapping[str, Any] | None = None, fraction: float | None = None
) -> None:
    """Async twin of :func:`report_progress`: returns once the turn's listeners heard it
    (when called on the turn's own event loop; elsewhere it queues it, as the sync one)."""
    reporter = _CURRENT.get()
    if reporter is None:
        return
    _checked(text, data, fraction)
    import asyncio

    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is reporter.loop:
        await reporter.areport(text, data, fraction)
    else:
        reporter.report(text, data, fraction)
