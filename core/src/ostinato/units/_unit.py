"""What a unit is, and the turn scope its sequence number is drawn from.

A *unit* is one step of a turn that a wrapper may observe, steer, record or replay: a
model round (call or stream), a tool call, a chat memory read or write, a retrieval. It
is a value:
its kind, its name, its place in the turn (``sequence``), a JSON description of its input
(:meth:`Unit.describe`), a codec for its result (:attr:`Unit.codec`) and :meth:`Unit.run`,
which runs the unit itself, without any wrapper.

Sequence numbers come from the current :class:`TurnScope`: an engine enters
:func:`durable_turn` around a durable turn; a client numbers the units of each
``call()``/``stream()`` in a scope of its own when none is current (carried by the advisor
chain, since a context variable cannot be held across a stream's ``yield``). While a unit
runs, code inside it (a tool that runs a turn of its own) numbers its units in a child
scope (``"<turn>/<sequence>"``), so a unit replayed instead of run cannot shift the numbers
of later units. This module must not import anything heavy, nor know any engine.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

if TYPE_CHECKING:
    from ostinato.units._stack import UnitStack

__all__ = [
    "TurnScope",
    "Unit",
    "UnitCodec",
    "UnitKind",
    "current_turn",
    "current_unit",
    "durable_turn",
    "idempotency_key",
]

R = TypeVar("R")


class UnitKind(StrEnum):
    """What a unit of work is (its value names the unit in an engine's records)."""

    TURN = "turn"
    """The turn as a whole (an engine's workflow; never a unit value of core)."""
    MODEL_CALL = "model_call"
    """One model round on the call path."""
    MODEL_STREAM = "model_stream"
    """One streamed model round, recorded as its aggregate once the stream is complete."""
    TOOL_CALL = "tool_call"
    """One tool call (its outcome: the text the model reads, or the tool's failure)."""
    MEMORY_READ = "memory_read"
    """A chat memory read (the conversation's messages)."""
    MEMORY_WRITE = "memory_write"
    """A chat memory write."""
    RETRIEVAL = "retrieval"
    """A vector store similarity search (the documents found)."""


@dataclass(frozen=True, slots=True)
class UnitCodec(Generic[R]):
    """A unit's result to and from JSON (the project's JSON forms: ``to_dict``).

    Attributes:
        encode: the result as a JSON value.
        decode: a JSON value (as ``encode`` made it) back to the result.
    """

    encode: Callable[[R], Any]
    decode: Callable[[Any], R]


class TurnScope:
    """The turn the current code runs in: its id and its unit counter.

    Attributes:
        turn_id: the engine's id of a durable turn (a workflow id), ``"<turn>/<sequence>"``
            inside a unit of one; ``None`` for a turn no engine records.
        units: how many units of the turn have been numbered.
        unit: the unit whose code runs in this scope (a child scope), or ``None`` for
            the turn itself.
    """

    __slots__ = ("turn_id", "unit", "units")

    def __init__(self, turn_id: str | None = None, unit: Unit[Any] | None = None) -> None:
        self.turn_id = turn_id
        self.units = 0
        self.unit = unit

    @property
    def durable(self) -> bool:
        """Whether an engine records this turn (it has an id)."""
        return self.turn_id is not None

    def __repr__(self) -> str:
        return f"TurnScope(turn_id={self.turn_id!r}, units={self.units})"


# The scope entered by durable_turn() or by a running unit; the stack and scope the tool
# loop makes current around tool execution (see ostinato.units._stack).
_TURN: ContextVar[TurnScope | None] = ContextVar("ostinato_turn", default=None)
_BOUND: ContextVar[tuple[UnitStack, TurnScope] | None] = ContextVar(
    "ostinato_unit_stack", default=None
)


class Unit(Generic[R]):
    """One unit of work: a value a wrapper sees (see the module's docstring).

    Subclasses set :attr:`kind` and :attr:`codec`, and implement :meth:`describe` and
    :meth:`run`; their constructor draws the sequence number (:meth:`_numbered`).

    Attributes:
        name: the model, the tool or the conversation it is about.
        sequence: its place in its turn (1, 2, ...; ``0`` outside any turn), drawn when
            the unit is made, before its first ``await``; the units of one turn are made
            in the same order on every replay (see the determinism rules).
        turn: the scope its number was drawn from (``None`` outside any turn).
    """

    __slots__ = ("name", "sequence", "turn")

    kind: ClassVar[UnitKind]
    """What it is."""
    codec: ClassVar[UnitCodec[Any]]
    """Its result to and from JSON."""

    name: str
    sequence: int
    turn: TurnScope | None

    def _numbered(self, name: str, scope: TurnScope | None) -> None:
        """Name the unit and draw its number: from the current scope, else ``scope`` (the
        caller's turn), else the scope bound with the current stack; ``0`` (and no scope)
        when there is none."""
        self.name = name
        turn = _TURN.get()
        if turn is None:
            turn = scope
            if turn is None:
                bound = _BOUND.get()
                if bound is None:
                    self.sequence = 0
                    self.turn = None
                    return
                turn = bound[1]
        turn.units += 1
        self.sequence = turn.units
        self.turn = turn

    @property
    def durable(self) -> bool:
        """Whether an engine records this unit: it is a unit of a durable turn itself,
        not of code running inside another unit (a tool that runs a turn of its own is
        recorded as one unit)."""
        turn = self.turn
        return turn is not None and turn.unit is None and turn.turn_id is not None

    def describe(self) -> dict[str, Any]:
        """Its input as a JSON object, computed when called (see each kind)."""
        raise NotImplementedError

    def run(self) -> Awaitable[R]:
        """Run the unit itself, without any wrapper (the innermost step)."""
        raise NotImplementedError

    def encode(self, result: R) -> Any:
        """``result`` as JSON (``codec.encode``)."""
        return self.codec.encode(result)

    def decode(self, data: Any) -> R:
        """A recorded JSON value back to a result (``codec.decode``)."""
        decoded: R = self.codec.decode(data)
        return decoded

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, sequence={self.sequence})"


#: Makes a :class:`TurnScope` without calling ``__init__`` (the stack's child scopes).
_new_scope = object.__new__


@contextlib.contextmanager
def durable_turn(turn_id: str) -> Iterator[TurnScope]:
    """Run the code inside as the durable turn ``turn_id`` (an engine enters it in its
    workflow, around the whole turn): its units are numbered in it, and the engine's
    wrapper records them."""
    scope = TurnScope(turn_id)
    token = _TURN.set(scope)
    try:
        yield scope
    finally:
        _TURN.reset(token)


def current_turn() -> TurnScope | None:
    """The turn scope the current code runs in (a durable turn, or the scope of the unit
    running now), or ``None``."""
    return _TURN.get()


def current_unit() -> Unit[Any] | None:
    """The unit whose code runs now (a tool running inside its tool call), or ``None``."""
    turn = _TURN.get()
    return None if turn is None else turn.unit


def idempotency_key() -> str | None:
    """A key that is the same each time this unit runs again after a crash
    (``"<turn id>/<unit sequence>"``), or ``None`` outside a unit of a durable turn.

    A tool with side effects passes it on (an HTTP ``Idempotency-Key`` header, a unique
    column) so that the at-least-once re-run of a call in flight at a crash has no
    second effect.
    """
    turn = _TURN.get()
    if turn is None or turn.unit is None:
        return None
    return turn.turn_id
