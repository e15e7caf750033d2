"""Where one run's loop events go: :class:`EventSink` and the listeners it calls.

A sink belongs to one run of a request (one ``call()`` result, one iteration of a
stream). The tool loop emits into it; it hands each event to every listener in order.
A listener is any callable taking one event: a plain function runs inline, on the event
loop running the turn (ostinato's private loop for the sync faces), so it should be
quick; a coroutine function (or any callable returning an awaitable) is awaited there
too, so slow work belongs in a task or queue of its own. A listener that raises never
breaks the turn: its first failure in a run is logged (logger ``ostinato.events``, with
the traceback) and its later ones in that run are not.

A turn's log (:class:`TurnLog`) is where its events get their positions and wait for
readers: ``place`` gives an event its position, calling the log appends the placed
event, ``read(after=N)`` / ``aread(after=N)`` return what is there after position ``N``
and then follow live until the turn ends (:meth:`TurnLog.end`). Backends: the bounded
in-memory :class:`~ostinato.events.MemoryTurnLog` (in process), and each durable
engine's (its store, readable from any process; see :mod:`ostinato.durable`).

Every event gets its place in the turn here (``turn_id`` and ``seq``, see
:class:`~ostinato.events.LoopEvent`): from the turn's log when one of the listeners is
a :class:`~ostinato.events.TurnLog` (which may owe its readers an event first: a
durable log's ``RoundAbandoned``), else from the sink's own count (``turn_id`` ``None``).

The tool calling manager finds the sink of the tools it runs through
:func:`current_event_sink` (a context variable the tool loop sets around tool execution),
so a custom :class:`~ostinato.tools.ToolCallingManager` can emit the same tool events.
This module must not import asyncio (``import ostinato`` stays light).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, TypeAlias, cast

if TYPE_CHECKING:
    from ostinato.events._failure import ToolFailureKind
    from ostinato.events._types import LoopEvent, ToolCallRequested, ToolFinished, ToolStarted
    from ostinato.messages import ToolCall

__all__ = [
    "EventListener",
    "EventSink",
    "ToolBatch",
    "TurnLog",
    "current_event_sink",
    "reset_event_sink",
    "set_event_sink",
    "stamp",
]

EventListener: TypeAlias = Callable[["LoopEvent"], Awaitable[Any] | None]
"""A listener: called with each event; a returned awaitable is awaited."""


def stamp(event: LoopEvent, turn_id: str | None, seq: int) -> LoopEvent:
    """Give ``event`` its place (the sink does, once, before anyone sees the event)."""
    object.__setattr__(event, "turn_id", turn_id)
    object.__setattr__(event, "seq", seq)
    return event


class TurnLog:
    """One turn's append-only log of events (a listener of the turn: give it to
    ``.listener(log)``, and the turn's sink numbers its events through it).

    Attributes:
        turn_id: the turn's id (stamped on every event the log places).
    """

    __slots__ = ("turn_id",)

    def __init__(self, turn_id: str | None) -> None:
        self.turn_id = turn_id

    def place(self, event: LoopEvent) -> Iterable[LoopEvent]:
        """Stamp ``event`` with its position; the events to hand to the turn's listeners
        in order: ``event`` itself, after any event the log owes its readers first (a
        durable log's :class:`~ostinato.events.RoundAbandoned`)."""
        raise NotImplementedError

    def __call__(self, event: LoopEvent) -> None:
        """Append a placed event (one the log placed before is not appended twice)."""
        raise NotImplementedError

    def end(self) -> None:
        """The turn ended: readers get what is left, then their iteration ends."""
        raise NotImplementedError

    def read(self, after: int = 0, timeout: float | None = None) -> Iterator[LoopEvent]:
        """The events after position ``after`` (0: from the first), in order, each once;
        then those appended later, as they come, until the turn ends.

        Raises:
            TurnLogError: ``after`` is past the log's end (``past_end``) or the events
                after it are no longer kept (``expired``), raised by the first ``next``.
            TimeoutError: no event came within ``timeout`` seconds of the previous one.
        """
        raise NotImplementedError

    def aread(self, after: int = 0) -> AsyncIterator[LoopEvent]:
        """Async twin of :meth:`read` (bound the wait with ``asyncio.timeout``)."""
        raise NotImplementedError


_CURRENT: ContextVar[EventSink | None] = ContextVar("ostinato_event_sink", default=None)


class EventSink:
    """Hands one run's events to its listeners, in emission order.

    Attributes:
        round: the model round in progress (the tool loop keeps it current, so the tool
            events of a round carry its number).
        seq: the position of the last event emitted, when no listener is a turn log.
    """

    __slots__ = ("_batch", "_failed", "_listeners", "_log", "round", "seq")

    def __init__(self, listeners: Iterable[EventListener]) -> None:
        self._listeners = tuple(listeners)
        for listener in self._listeners:
            if not callable(listener):
                raise TypeError(
                    f"a listener must be a callable taking one event, got "
                    f"{type(listener).__name__}: {listener!r}"
                )
        self._failed: set[int] = set()
        self._batch = ToolBatch()
        self.round = 0
        self.seq = 0
        self._log = next((x for x in self._listeners if isinstance(x, TurnLog)), None)

    @property
    def log(self) -> TurnLog | None:
        """The turn's log, when one of the listeners is one (it numbers the events)."""
        return self._log

    @property
    def listeners(self) -> tuple[EventListener, ...]:
        """The listeners, in the order they are called."""
        return self._listeners

    @property
    def batch(self) -> ToolBatch:
        """The tool calls of the current round as the emitted events tell them."""
        return self._batch

    async def emit(self, event: LoopEvent) -> None:
        """Place ``event`` in the turn and hand it to every listener (failures are
        reported, never raised)."""
        log = self._log
        if log is None:
            self.seq += 1
            await self._deliver(stamp(event, None, self.seq))
        else:
            for placed in log.place(event):
                await self._deliver(placed)

    async def _deliver(self, event: LoopEvent) -> None:
        self._batch.record(event)
        for listener in self._listeners:
            try:
                result = listener(event)
                if result is not None and hasattr(result, "__await__"):
                    await result
            except Exception as error:  # a listener must never break the turn
                self._report(listener, event, error)

    async def tool_started(self, call: ToolCall, effect: str | None = None) -> None:
        """Emit :class:`ToolStarted` for ``call`` in the current round."""
        from ostinato.events._types import ToolStarted

        await self.emit(ToolStarted(self.round, call, effect))

    async def tool_finished(
        self,
        call: ToolCall,
        result: str,
        duration: float,
        error: str | None = None,
        return_direct: bool = False,
        failure: ToolFailureKind | None = None,
        effect: str | None = None,
    ) -> None:
        """Emit :class:`ToolFinished` for ``call`` in the current round."""
        from ostinato.events._types import ToolFinished

        await self.emit(
            ToolFinished(self.round, call, result, duration, error, return_direct, failure, effect)
        )

    def _report(self, listener: EventListener, event: LoopEvent, error: Exception) -> None:
        key = id(listener)
        if key in self._failed:
            return
        self._failed.add(key)
        import logging

        logging.getLogger("ostinato.events").error(
            "event listener %r raised %s on a %r event; the turn goes on, and further "
            "failures of this listener in this run are not reported. Fix the listener "
            "(listeners must not raise).",
            listener,
            type(error).__name__,
            event.kind,
            exc_info=error,
        )


class ToolBatch:
    """The tool calls of the round in progress, as its events tell them: which were
    asked for, which started (and when), which finished (and what the model reads).

    The sink keeps it from what it emits (a ``RoundStarted`` begins a new one), so a
    manager that emits the tool events is followed whatever it is; the tool loop reads it
    when a turn is cancelled amid a batch, to keep the results of the calls that finished
    and to give each of the others its ``ToolFinished``.
    """

    __slots__ = ("_finished", "_open")

    def __init__(self) -> None:
        self._open: dict[str, tuple[ToolCall, float | None]] = {}
        self._finished: dict[str, str] = {}

    def record(self, event: LoopEvent) -> None:
        """Follow ``event`` (called by the sink for each event it emits)."""
        kind = event.kind
        if kind == "round_started":
            self._open.clear()
            self._finished.clear()
        elif kind == "tool_call_requested":
            call = cast("ToolCallRequested", event).call  # the kind names the class
            self._open[call.id] = (call, None)
        elif kind == "tool_started":
            from ostinato._aio import loop_time  # the loop's clock: see loop_time

            call = cast("ToolStarted", event).call
            self._open[call.id] = (call, loop_time())
        elif kind == "tool_finished":
            finished = cast("ToolFinished", event)
            self._open.pop(finished.call.id, None)
            self._finished[finished.call.id] = finished.result

    @property
    def finished(self) -> dict[str, str]:
        """The text the model reads for each call that finished, by call id."""
        return dict(self._finished)

    def unfinished(self) -> list[tuple[ToolCall, float]]:
        """Each call asked for or started that has not finished, in the order it was
        asked for, with the seconds it has run (0 for a call that never started)."""
        from ostinato._aio import loop_time

        now = loop_time()
        return [
            (call, 0.0 if began is None else now - began) for call, began in self._open.values()
        ]


def current_event_sink() -> EventSink | None:
    """The sink of the tool calls being executed now (``None``: nobody listens)."""
    return _CURRENT.get()


def set_event_sink(sink: EventSink | None) -> Token[EventSink | None]:
    """Make ``sink`` current (around tool execution); undo with :func:`reset_event_sink`."""
    return _CURRENT.set(sink)


def reset_event_sink(token: Token[EventSink | None]) -> None:
    """Undo :func:`set_event_sink`."""
    _CURRENT.reset(token)
