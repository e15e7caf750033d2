"""The engine-neutral face of durable turns: what is submitted, and the handle it returns.

A :class:`TurnRequest` is data (JSON), so any worker can run it: the user text, the
conversation and the *names* of its tools. A :class:`DurableEngine` (a plugin's, found
with :func:`~ostinato.durable.durable_engine`) queues it and returns a
:class:`TurnHandle` whose id any process can use later to wait for the answer, read its
status, follow its loop events, and decide the tool calls the turn waits for. This
module holds values and protocols only; it must not know any engine.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ostinato.events import LoopEvent
    from ostinato.messages import Message
    from ostinato.model import ChatResponse
    from ostinato.tools import ApprovalDecision, PendingToolCalls

__all__ = [
    "DurableEngine",
    "SteerableTurn",
    "TurnHandle",
    "TurnRequest",
    "TurnStatus",
    "steer_turn",
]

_SCHEMA: Final = "ostinato.turn_request"


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """One turn to run durably: data only, so that any worker can run it.

    Attributes:
        user: the user's message.
        system: a system message, if any.
        conversation_id: the conversation (for memory advisors), if any.
        tools: each a tool set a plugin registered (``register_tools``), or an importable
            source: ``module:attribute``, a module, or a ``.py`` path (as ``ostinato chat
            --tools`` reads them). Every worker must resolve every name the same way.
        history: messages that come before the user's message (a caller that holds its
            conversation itself, as an OpenAI client does), in order.
        remember: whether the worker's memory advisors take part (``False``: the
            conversation is the caller's; nothing is read from or written to memory).
        follows: the id of the turn whose late steered messages this turn runs (its
            *follow-up*, :func:`~ostinato.durable.follow_up_request`), else ``None``.
    """

    user: str
    system: str | None = None
    conversation_id: str | None = None
    tools: tuple[str, ...] = field(default=())
    history: tuple[Message, ...] = field(default=())
    remember: bool = True
    follows: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.user, str):
            raise TypeError(f"TurnRequest.user must be a str, got {type(self.user).__name__}")
        object.__setattr__(self, "tools", tuple(self.tools))
        object.__setattr__(self, "history", tuple(self.history))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``"schema": "ostinato.turn_request"``, version 1; ``history``,
        ``remember`` and ``follows`` only when set, so that a request without them reads
        the same everywhere)."""
        data: dict[str, Any] = {
            "schema": _SCHEMA,
            "version": 1,
            "user": self.user,
            "system": self.system,
            "conversation_id": self.conversation_id,
            "tools": list(self.tools),
        }
        if self.history:
            data["history"] = [message.to_dict() for message in self.history]
        if not self.remember:
            data["remember"] = False
        if self.follows is not None:
            data["follows"] = self.follows
        return data

    def to_json(self) -> str:
        """The JSON form as text."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TurnRequest:
        """Read the JSON form back.

        Raises:
            ValueError: it is not a turn request of version 1.
        """
        if data.get("schema") != _SCHEMA or data.get("version") != 1:
            raise ValueError(
                f"not a turn request of version 1 (schema {data.get('schema')!r}, "
                f"version {data.get('version')!r}); expected schema {_SCHEMA!r}, version 1"
            )
        history: tuple[Message, ...] = ()
        if data.get("history"):
            from ostinato.messages import message_from_dict

            history = tuple(message_from_dict(m) for m in data["history"])
        return cls(
            str(data["user"]),
            data.get("system"),
            data.get("conversation_id"),
            tuple(str(t) for t in data.get("tools", ())),
            history,
            bool(data.get("remember", True)),
            None if data.get("follows") is None else str(data["follows"]),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> TurnRequest:
        """Read the JSON text back."""
        return cls.from_dict(json.loads(text))


class TurnStatus(StrEnum):
    """Where a durable turn stands."""

    QUEUED = "queued"
    """Waiting for a worker."""
    RUNNING = "running"
    """A worker runs it (or it waits for recovery after its worker died)."""
    WAITING_FOR_APPROVAL = "waiting_for_approval"
    """Stopped for tool calls that need a decision; no process holds it."""
    SUCCEEDED = "succeeded"
    """Answered."""
    FAILED = "failed"
    """Ended with an error."""
    CANCELLED = "cancelled"
    """Cancelled."""


@runtime_checkable
class TurnHandle(Protocol):
    """A submitted durable turn, from any process that knows its id."""

    @property
    def id(self) -> str:
        """The turn's id (the engine's workflow id)."""
        ...

    @property
    def status(self) -> TurnStatus:
        """Its status now (read from the engine each time)."""
        ...

    def result(self, timeout: float | None = None) -> ChatResponse:
        """Wait for the answer: the final round's, as ``.call()`` returns it in process
        (the text of earlier rounds reaches :meth:`events`, not the answer).

        Raises:
            DurableTurnError: the turn failed or was cancelled.
            TimeoutError: no answer within ``timeout`` seconds.
        """
        ...

    async def aresult(self) -> ChatResponse:
        """Async twin of :meth:`result` (bound the wait with ``asyncio.timeout``)."""
        ...

    def events(self, after: int = 0, timeout: float | None = None) -> Iterator[LoopEvent]:
        """The turn's loop events (:mod:`ostinato.events`) after position ``after`` (0:
        from its first), from its log in the engine's store: each once, in order, with
        the position (``seq``) it has in the log whoever reads it and however often its
        turn was replayed; they come as the worker emits them, and the iteration ends
        when the turn ends. To reattach (a dropped connection, another process), read
        again after the last position read. The log may hold a
        :class:`~ostinato.events.RoundAbandoned`: a streamed round that a dead worker
        left unfinished, run again by another (:func:`~ostinato.events.withdrawn`).

        Raises:
            DurableTurnError: no turn has this id.
            TurnLogError: ``after`` is past the end of the log (``past_end``), or the
                events after it are no longer kept (``expired``).
            TimeoutError: no event arrived within ``timeout`` seconds of the previous one.
        """
        ...

    def aevents(self, after: int = 0) -> AsyncIterator[LoopEvent]:
        """Async twin of :meth:`events` (bound the wait with ``asyncio.timeout``)."""
        ...

    def pending(self) -> PendingToolCalls | None:
        """The calls the turn waits for a decision on, or ``None``."""
        ...

    def decide(self, decisions: Mapping[str, ApprovalDecision | bool]) -> None:
        """Send the decisions (one per waiting call id); the turn resumes on a worker.
        Each waiting round is decided once, from whichever process decides first.

        Raises:
            DurableTurnError: the turn does not wait for decisions, or its waiting calls
                were decided already (``status`` ``"already_decided"``).
            ResumeError: the decisions do not match the waiting calls.
        """
        ...


@runtime_checkable
class SteerableTurn(Protocol):
    """A turn handle that takes input while its turn runs (an optional capability of an
    engine's :class:`TurnHandle`; :func:`steer_turn` checks for it)."""

    def steer(self, message: str) -> None:
        """Add a user message to the running turn, joining its conversation at the next
        round boundary (recorded: a replay takes it at the same round). A message that
        comes after the turn's last round boundary runs in the turn's follow-up, a turn
        of its own after it (:func:`~ostinato.durable.follow_up_id`): once this returns,
        the message is the turn's or its follow-up's.

        Raises:
            DurableTurnError: the turn ended before it could read the message (``status``
                the turn's: submit the message as a turn of its own), or it is ending and
                did not say within a while whether it read it (``status`` ``"closing"``:
                look again shortly).
        """
        ...


def steer_turn(handle: TurnHandle, message: str) -> None:
    """Add ``message`` to the turn of ``handle`` at its next round boundary.

    Raises:
        DurableTurnError: the turn has ended, or its engine cannot steer a running turn
            (``status`` ``"unsupported"``: send the message as a new turn after it).
    """
    if not isinstance(handle, SteerableTurn):
        from ostinato.errors import DurableTurnError

        raise DurableTurnError(
            f"the durable turn {handle.id!r} cannot be steered: its engine's handle "
            f"({type(handle).__name__}) has no steer(); expected an engine that steers "
            "running turns (ostinato-dbos does) — send the message as a new turn once "
            "this one ends instead",
            turn_id=handle.id,
            status="unsupported",
        )
    handle.steer(message)


@runtime_checkable
class DurableEngine(Protocol):
    """A durable execution engine, as a plugin registers it (``register_durable_engines``)."""

    def submit(self, request: TurnRequest, *, turn_id: str | None = None) -> TurnHandle:
        """Queue ``request`` for a worker (``turn_id``: an id of your own; submitting the
        same id twice returns the first turn)."""
        ...

    def turn(self, turn_id: str) -> TurnHandle:
        """The handle of a turn submitted earlier, by any process."""
        ...

    def waiting(self) -> Sequence[str]:
        """The ids of the turns waiting for decisions."""
        ...

    def close(self) -> None:
        """Release the engine's connections."""
        ...
