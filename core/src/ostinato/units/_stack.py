"""Wrappers around units, and the one stack of them a client runs every unit through.

A :class:`UnitWrapper` wraps the units of the kinds it names: ``around(unit, next)``
for the call-like kinds (``await next(unit)`` runs the rest of the stack and the unit;
a wrapper may also return a result without calling it, as a recorder replaying a unit
does), and ``around_stream(unit, next)`` for a streamed model round (it iterates
``next(unit)`` and yields the chunks on). Wrappers are ordered by :attr:`UnitWrapper.order`
(smaller: outer; equal orders keep the order they were given in); :class:`UnitOrder`
names core's places.

A :class:`UnitStack` is composed once (per client): for each kind, the chain of its
wrappers ending at the unit's own ``run()`` (or ``stream()``) is built when the stack is,
so running a unit builds no closure. A call site with no wrapper for a kind does not even
make the unit value: :attr:`UnitStack.model_call` and its siblings are empty then.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from ostinato.errors import ConfigurationError
from ostinato.units._unit import _BOUND, _TURN, TurnScope, Unit, UnitKind, _new_scope

if TYPE_CHECKING:
    from contextvars import Token

    from ostinato.model import ChatResponse
    from ostinato.units._values import ModelStream

__all__ = [
    "Around",
    "AroundStream",
    "UnitOrder",
    "UnitStack",
    "UnitWrapper",
    "bind_unit_stack",
    "current_unit_stack",
    "unbind_unit_stack",
]

#: ``(unit) -> awaitable result``: the rest of the stack, then the unit.
Next: TypeAlias = Callable[[Unit[Any]], Awaitable[Any]]
#: ``(unit) -> chunks``: the rest of the stack, then the streamed round.
NextStream: TypeAlias = "Callable[[ModelStream], AsyncIterator[ChatResponse]]"
#: ``async (unit, next) -> result``: a wrapper around a call-like unit.
Around: TypeAlias = Callable[[Any, Next], Awaitable[Any]]
#: ``(unit, next) -> chunks``: a wrapper around a streamed model round.
AroundStream: TypeAlias = "Callable[[ModelStream, NextStream], AsyncIterator[ChatResponse]]"

_CALL_KINDS: Final = (
    UnitKind.MODEL_CALL,
    UnitKind.TOOL_CALL,
    UnitKind.MEMORY_READ,
    UnitKind.MEMORY_WRITE,
    UnitKind.RETRIEVAL,
)
_ALL_KINDS: Final = frozenset(UnitKind) - {UnitKind.TURN}


class UnitOrder:
    """Core's places in the stack, outer to inner (a wrapper picks one, or a number
    between two)."""

    TOOL_CONCURRENCY: Final = 1000
    """Core's concurrency cap of a tool batch: a call waits here for its turn."""
    TOOL_EVENTS: Final = 2000
    """Core's tool loop events (``ToolStarted`` / ``ToolFinished``), told after the wait."""
    DURABLE: Final = 3000
    """A durable engine's recorder (one per stack): a replayed unit stops here."""
    TOOL_RETRY: Final = 3500
    """Core's retries of a read-only or idempotent call's retryable failures: inside the
    recorder (a call and its retries are one recorded unit), outside tracing (each try
    has its span)."""
    TRACING: Final = 4000
    """Tracing: spans of the units that run."""
    TOOL_TIMEOUT: Final = 5000
    """Core's tool timeout: the deadline around the tool itself."""


@dataclass(frozen=True, slots=True)
class UnitWrapper:
    """One wrapper of the stack.

    Attributes:
        name: its name (unique in a stack; shown by :meth:`UnitStack.describe`).
        order: its place: smaller is outer (see :class:`UnitOrder`).
        kinds: the kinds of unit it wraps.
        around: ``async (unit, next) -> result``, for every call-like kind of ``kinds``.
        around_stream: ``(unit, next) -> AsyncIterator[ChatResponse]``, for
            :attr:`UnitKind.MODEL_STREAM` (see :func:`~ostinato.units.recorded_stream`
            to wrap a stream with a call-like ``around``).
        acts_on: the attribute of the unit the wrapper acts on, if any: where the unit's
            value is ``None`` the wrapper passes it on untouched, so a caller that knows
            it is ``None`` may leave the wrapper out (``UnitStack.step(kind, skipping)``).
            Core's tool wrappers act on ``semaphore``, ``events`` and ``timeout``.

    Raises:
        ConfigurationError: ``kinds`` is empty or holds :attr:`UnitKind.TURN`, or the
            function a kind needs is missing.
    """

    name: str
    order: int
    kinds: frozenset[UnitKind]
    around: Around | None = None
    around_stream: AroundStream | None = None
    acts_on: str | None = None

    def __post_init__(self) -> None:
        kinds = frozenset(UnitKind(k) for k in self.kinds)
        object.__setattr__(self, "kinds", kinds)
        if not kinds or UnitKind.TURN in kinds:
            raise ConfigurationError(
                f"the unit wrapper {self.name!r} wraps {sorted(kinds)}\n"
                f"  expected: one or more of {', '.join(sorted(_ALL_KINDS))}\n"
                "fix: name the kinds of unit it wraps"
            )
        if self.around is None and kinds - {UnitKind.MODEL_STREAM}:
            raise ConfigurationError(
                f"the unit wrapper {self.name!r} wraps {', '.join(sorted(kinds))} without "
                "around\nfix: pass around=async (unit, next) -> result"
            )
        if self.around_stream is None and UnitKind.MODEL_STREAM in kinds:
            raise ConfigurationError(
                f"the unit wrapper {self.name!r} wraps model_stream without around_stream\n"
                "fix: pass around_stream=(unit, next) -> AsyncIterator[ChatResponse] "
                "(recorded_stream makes one of a call-like around)"
            )

    @classmethod
    def of_all(cls, name: str, order: int, around: Around, *, stream: bool = True) -> UnitWrapper:
        """A wrapper of every kind with one call-like ``around``; the streamed round
        (``stream``) is wrapped as one call whose result is its aggregate
        (:func:`~ostinato.units.recorded_stream`), as a recorder needs."""
        from ostinato.units._streams import recorded_stream

        def around_stream(unit: ModelStream, next: NextStream) -> AsyncIterator[ChatResponse]:
            return recorded_stream(unit, next, around)

        kinds = _ALL_KINDS if stream else _ALL_KINDS - {UnitKind.MODEL_STREAM}
        return cls(name, order, kinds, around, around_stream if stream else None)


async def _innermost(unit: Unit[Any]) -> Any:
    # The unit runs, and is current for the code inside it (numbered in a child scope).
    child: TurnScope = _new_scope(TurnScope)
    parent = unit.turn
    child.turn_id = (
        None if parent is None or parent.turn_id is None else f"{parent.turn_id}/{unit.sequence}"
    )
    child.units = 0
    child.unit = unit
    token = _TURN.set(child)
    try:
        return await unit.run()
    finally:
        _TURN.reset(token)


def _stream_innermost(unit: ModelStream) -> AsyncIterator[ChatResponse]:
    # A stream's steps run in its consumer's context: nothing is made current across them.
    return unit.stream()


def _hop(around: Callable[..., Any], rest: Callable[..., Any]) -> Any:
    """``unit -> around(unit, rest)``, composed once: a ``partial`` passing ``rest`` by the
    name of ``around``'s second parameter when it has one (no Python frame per hop)."""
    try:
        parameters = list(inspect.signature(around).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    if len(parameters) >= 2 and parameters[1].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
        return functools.partial(around, **{parameters[1].name: rest})
    return lambda unit: around(unit, rest)


class UnitStack:
    """The wrappers every unit of a client runs through, composed once.

    Args:
        wrappers: in any order; they are sorted by order (stable).

    Attributes:
        wrappers: every wrapper, outer to inner.
        model_call: the wrappers of :attr:`UnitKind.MODEL_CALL`, outer to inner (empty:
            the call site runs the round itself, without making a unit); likewise
            ``model_stream``, ``tool_call``, ``memory_read``, ``memory_write`` and ``retrieval``.

    Raises:
        ConfigurationError: two wrappers share a name, or two sit at
            :attr:`UnitOrder.DURABLE` (one durable engine records a stack's units).
    """

    __slots__ = (
        "_lean",
        "_steps",
        "_stream",
        "memory_read",
        "memory_write",
        "model_call",
        "model_stream",
        "retrieval",
        "tool_call",
        "wrappers",
    )

    def __init__(self, wrappers: Iterable[UnitWrapper] = ()) -> None:
        ordered = tuple(sorted(wrappers, key=lambda w: w.order))
        for wrapper in ordered:
            if not isinstance(wrapper, UnitWrapper):
                raise ConfigurationError(
                    f"a unit stack holds UnitWrapper values, got {wrapper!r}\n"
                    "fix: wrap the function in UnitWrapper(name, order, kinds, around)"
                )
        _check_unique(ordered)
        self.wrappers = ordered
        of = {kind: tuple(w for w in ordered if kind in w.kinds) for kind in _ALL_KINDS}
        self.model_call = of[UnitKind.MODEL_CALL]
        self.model_stream = of[UnitKind.MODEL_STREAM]
        self.tool_call = of[UnitKind.TOOL_CALL]
        self.memory_read = of[UnitKind.MEMORY_READ]
        self.memory_write = of[UnitKind.MEMORY_WRITE]
        self.retrieval = of[UnitKind.RETRIEVAL]
        steps: dict[UnitKind, Next] = {}
        for kind in _CALL_KINDS:
            step: Next = _innermost
            for wrapper in reversed(of[kind]):
                assert wrapper.around is not None
                step = _hop(wrapper.around, step)
            steps[kind] = step
        self._steps = steps
        self._lean: dict[tuple[UnitKind, frozenset[str]], Next] = {}
        stream: NextStream = _stream_innermost
        for wrapper in reversed(self.model_stream):
            assert wrapper.around_stream is not None
            stream = _hop(wrapper.around_stream, stream)
        self._stream = stream

    def step(self, kind: UnitKind, skipping: frozenset[str] = frozenset()) -> Next:
        """The composed step of a call-like ``kind``: ``step(unit)`` is ``run(unit)`` for
        a unit of that kind (a caller running many units of one kind takes it once).

        ``skipping``: attributes the caller knows are ``None`` on the units it will run;
        the wrappers acting on them (:attr:`UnitWrapper.acts_on`), which would pass those
        units on untouched, are left out of the step (composed once, then kept).
        """
        if not skipping:
            return self._steps[kind]
        key = (kind, skipping)
        step = self._lean.get(key)
        if step is None:
            step = _innermost
            for wrapper in reversed(getattr(self, kind.value)):
                if wrapper.acts_on not in skipping:
                    assert wrapper.around is not None
                    step = _hop(wrapper.around, step)
            self._lean[key] = step
        return step

    def for_kind(self, kind: UnitKind) -> tuple[UnitWrapper, ...]:
        """The wrappers of ``kind``, outer to inner."""
        kind = UnitKind(kind)
        if kind is UnitKind.TURN:
            return ()
        found: tuple[UnitWrapper, ...] = getattr(self, kind.value)
        return found

    def run(self, unit: Unit[Any]) -> Awaitable[Any]:
        """Run ``unit`` through its kind's wrappers (await the result). A streamed round
        is run to its end: the result is its aggregate."""
        if unit.kind is UnitKind.MODEL_STREAM:
            from ostinato.units._streams import aggregate

            return aggregate(self._stream(unit))  # type: ignore[arg-type]
        return self._steps[unit.kind](unit)

    def stream(self, unit: ModelStream) -> AsyncIterator[ChatResponse]:
        """The chunks of the streamed round ``unit``, through the stream wrappers."""
        return self._stream(unit)

    def with_wrappers(self, *more: UnitWrapper) -> UnitStack:
        """A stack of these wrappers and ``more``."""
        return UnitStack((*self.wrappers, *more))

    def describe(self) -> str:
        """A readable rendering: each wrapper's order, name and kinds, outer to inner."""
        lines = ["unit stack, outer to inner:"]
        width = max((len(str(w.order)) for w in self.wrappers), default=0)
        for wrapper in self.wrappers:
            kinds = "/".join(k.value for k in UnitKind if k in wrapper.kinds)
            lines.append(f"  {wrapper.order:>{width}}  {wrapper.name} <{kinds}>")
        if not self.wrappers:
            lines.append("  (no wrappers: every unit runs as is)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        names = ", ".join(f"{w.name}({w.order})" for w in self.wrappers)
        return f"UnitStack([{names}])"


def _check_unique(ordered: tuple[UnitWrapper, ...]) -> None:
    seen: set[str] = set()
    for wrapper in ordered:
        if wrapper.name in seen:
            raise ConfigurationError(
                f"two unit wrappers are named {wrapper.name!r}\n"
                "fix: give each wrapper of a stack its own name (add each once)"
            )
        seen.add(wrapper.name)
    durable = [w.name for w in ordered if w.order == UnitOrder.DURABLE]
    if len(durable) > 1:
        raise ConfigurationError(
            f"two durable engines would record the units of one stack: {', '.join(durable)}\n"
            "fix: run one durable engine per process (uninstall or disable the others)"
        )


def current_unit_stack() -> UnitStack | None:
    """The stack the tool loop made current around tool execution (a custom tool
    calling manager runs its calls through it), or ``None``."""
    bound = _BOUND.get()
    return None if bound is None else bound[0]


def bind_unit_stack(
    stack: UnitStack, scope: TurnScope
) -> Token[tuple[UnitStack, TurnScope] | None]:
    """Make ``stack`` current, with ``scope`` numbering units made while no turn scope
    is current; undo with :func:`unbind_unit_stack` (within the same step)."""
    return _BOUND.set((stack, scope))


def unbind_unit_stack(token: Token[tuple[UnitStack, TurnScope] | None]) -> None:
    """Undo :func:`bind_unit_stack`."""
    _BOUND.reset(token)
