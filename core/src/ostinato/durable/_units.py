"""The units of work a durable engine records, and the one interceptor that wraps them.

A durable turn is replayed after a crash: everything in the advisor chain runs again,
except the *units* — model rounds, tool calls, memory reads and writes — whose recorded
results are returned instead of running them a second time. Core names the units and
calls :func:`run_unit` around each; an engine plugin installs one
:data:`UnitInterceptor` (:func:`set_unit_interceptor`) that either runs the unit and
records its result, or returns the recorded result without running it (which a context
manager, such as a tool scope, cannot do: it cannot skip its body).

With no interceptor installed a unit costs one module-global check. This module must not
import anything heavy, nor know any engine.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeAlias, TypeVar

from ostinato.errors import ConfigurationError

__all__ = [
    "DurableTurnScope",
    "Unit",
    "UnitInterceptor",
    "UnitKind",
    "current_turn",
    "durable_turn",
    "idempotency_key",
    "run_unit",
    "set_unit_interceptor",
    "unit_interceptor",
]

T = TypeVar("T")


class UnitKind(StrEnum):
    """What a unit of work is (its value names the unit in an engine's records)."""

    TURN = "turn"
    """The turn as a whole (an engine's workflow)."""
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


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit of work about to run, as the interceptor sees it.

    Attributes:
        kind: what it is.
        name: the model, the tool or the conversation it is about.
        sequence: its place in the turn (1, 2, ...), drawn when the unit starts; units of
            one turn start in the same order on every replay (see the determinism rules).
        encode: its result to a JSON value (the project's JSON forms: ``to_dict``).
        decode: a recorded JSON value back to its result.
        describe: its input as a JSON object, computed when called: for a model round
            ``{"messages", "options", "tools"}`` (plain options; tool definitions), for
            a tool call ``{"call"}``, for memory ``{"conversation_id"}`` (and
            ``"messages"`` for a write). An engine that runs units elsewhere (an
            activity worker) rebuilds the unit from it; an engine that records only
            results never calls it.
    """

    kind: UnitKind
    name: str
    sequence: int
    encode: Callable[[Any], Any] = field(repr=False, compare=False)
    decode: Callable[[Any], Any] = field(repr=False, compare=False)
    describe: Callable[[], dict[str, Any]] = field(repr=False, compare=False, default=dict)


#: ``(unit, run) -> result``: await ``run()`` (and record what it returns, encoded with
#: ``unit.encode``) or return ``unit.decode(recorded)`` without running it.
UnitInterceptor: TypeAlias = Callable[[Unit, Callable[[], Awaitable[Any]]], Awaitable[Any]]


@dataclass(slots=True)
class DurableTurnScope:
    """The durable turn the current code runs in: its id and its unit counter.

    Attributes:
        turn_id: the engine's id of the turn (a workflow id).
        units: how many units of the turn have started.
    """

    turn_id: str
    units: int = 0


_interceptor: UnitInterceptor | None = None
_turn: ContextVar[DurableTurnScope | None] = ContextVar("ostinato_durable_turn", default=None)
_unit: ContextVar[Unit | None] = ContextVar("ostinato_durable_unit", default=None)


def set_unit_interceptor(interceptor: UnitInterceptor | None) -> Callable[[], None]:
    """Install ``interceptor`` around every unit of every durable turn of the process.

    One engine per process: installing a second one while another is installed raises.
    ``None`` uninstalls. Returns a function that uninstalls this one again.

    Raises:
        ConfigurationError: another interceptor is installed.
    """
    # Installed at boot, from one thread: a plain global (no lock) keeps the check cheap.
    global _interceptor
    if interceptor is not None and _interceptor not in (None, interceptor):
        raise ConfigurationError(
            f"a durable unit interceptor is installed already: {_interceptor!r}\n"
            f"  and {interceptor!r} was installed too\n"
            "fix: run one durable engine per process (uninstall the first one)"
        )
    _interceptor = interceptor

    def remove() -> None:
        global _interceptor
        if _interceptor is interceptor:
            _interceptor = None

    return remove


def unit_interceptor() -> UnitInterceptor | None:
    """The installed interceptor, when the current code runs in a durable turn and not
    inside another unit (a tool that runs a turn of its own is recorded as one unit)."""
    interceptor = _interceptor
    if interceptor is None or _turn.get() is None or _unit.get() is not None:
        return None
    return interceptor


@contextlib.contextmanager
def durable_turn(turn_id: str) -> Iterator[DurableTurnScope]:
    """Run the code inside as the durable turn ``turn_id`` (an engine enters it in its
    workflow, around the whole turn): its units are numbered and intercepted."""
    scope = DurableTurnScope(turn_id)
    token = _turn.set(scope)
    try:
        yield scope
    finally:
        _turn.reset(token)


def current_turn() -> DurableTurnScope | None:
    """The durable turn the current code runs in, or ``None``."""
    return _turn.get()


def idempotency_key() -> str | None:
    """A key that is the same each time this unit runs again after a crash
    (``"<turn id>/<unit sequence>"``), or ``None`` outside a durable unit.

    A tool with side effects passes it on (an HTTP ``Idempotency-Key`` header, a unique
    column) so that the at-least-once re-run of a call in flight at a crash has no
    second effect.
    """
    unit = _unit.get()
    turn = _turn.get()
    if unit is None or turn is None:
        return None
    return f"{turn.turn_id}/{unit.sequence}"


async def run_unit(
    interceptor: UnitInterceptor,
    kind: UnitKind,
    name: str,
    run: Callable[[], Awaitable[T]],
    encode: Callable[[T], Any],
    decode: Callable[[Any], T],
    describe: Callable[[], dict[str, Any]] = dict,
) -> T:
    """Run ``run`` as a unit of the current durable turn, through ``interceptor``.

    Callers check :func:`unit_interceptor` first (``None``: just ``await run()``), so a
    process without a durable engine pays one check per unit. The unit's sequence
    number is drawn here, before the first ``await``.
    """
    turn = _turn.get()
    assert turn is not None  # unit_interceptor() returned one: a turn is current
    turn.units += 1
    unit = Unit(kind, name, turn.units, encode, decode, describe)

    async def running() -> T:
        token = _unit.set(unit)
        try:
            return await run()
        finally:
            _unit.reset(token)

    result: T = await interceptor(unit, running)
    return result
