"""The tool contract: what a tool looks like to the model and to the tool calling manager.

It imports nothing of ostinato, so that prompt options can carry tool callbacks; the names
are public from :mod:`ostinato.tools`."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "InDoubtRule",
    "Reconcile",
    "ToolCallback",
    "ToolCallbackProvider",
    "ToolContext",
    "ToolDefinition",
    "ToolEffect",
    "ToolMetadata",
]

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|_+")


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """What the model is told about a tool.

    Attributes:
        name: the name the model calls it by.
        description: what it does, for the model.
        input_schema: the JSON schema of its arguments, as JSON text.
    """

    name: str
    description: str
    input_schema: str

    def __post_init__(self) -> None:
        for attr in ("name", "description", "input_schema"):
            value = getattr(self, attr)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"ToolDefinition.{attr} must be a non-blank string, got {value!r}")

    @staticmethod
    def default_description(name: str) -> str:
        """The description used when none is given: the name split into words."""
        return " ".join(w.lower() for w in _CAMEL_BOUNDARY.split(name) if w) or name


class ToolEffect(StrEnum):
    """What calling a tool does to the world: its effect class.

    The tool loop orders, approves, retries, starts early and recovers calls by it (see
    the tools guide). A tool that declares none keeps the behaviour of a tool before
    effect classes existed.
    """

    READ_ONLY = "read_only"
    """Changes nothing: safe to run again, concurrently, early or after a crash."""
    IDEMPOTENT = "idempotent"
    """Changes something, but a second call with the same arguments changes nothing more."""
    SIDE_EFFECTING = "side_effecting"
    """Changes something each time it runs (sends, appends, charges)."""
    DESTRUCTIVE = "destructive"
    """Changes something that cannot be undone (deletes, pays, overwrites)."""

    @property
    def repeatable(self) -> bool:
        """Whether a second call is harmless (read-only or idempotent)."""
        return self is ToolEffect.READ_ONLY or self is ToolEffect.IDEMPOTENT


class InDoubtRule(StrEnum):
    """How a durable turn resolves a side-effecting or destructive call that was in
    flight when its worker died (whether it took effect is unknown)."""

    APPROVE = "approve"
    """Ask for a decision: approved, the call runs again; denied, the model reads that
    it did not run again."""
    RECONCILE = "reconcile"
    """Ask the tool's ``reconcile`` hook whether the effect happened for the call's
    idempotency key."""
    FAIL = "fail"
    """Fail the turn with :class:`~ostinato.errors.ToolInDoubtError`."""


class Reconcile(Protocol):
    """``reconcile(arguments, key)``: did the call with these arguments (JSON text) and
    this idempotency key take effect? Return the text the model reads for it when it
    did, or ``None`` when it did not (the call then runs); raise when it cannot tell
    (the turn fails). Sync or async."""

    def __call__(self, arguments: str, key: str, /) -> str | Awaitable[str | None] | None:
        """The result text of the call when it took effect, else ``None``."""


@dataclass(frozen=True, slots=True)
class ToolMetadata:
    """How a tool is run.

    Attributes:
        return_direct: hand the tool's result straight to the caller instead of back to
            the model (only when every call of the batch is return-direct).
        sequential: run alone, never concurrently with other calls of the batch.
        timeout: seconds after which a call is abandoned and reported to the model.
        requires_approval: a person (or an approver) decides before each call runs.
        effect: what a call does (:class:`ToolEffect`); ``None``: undeclared, run as
            before effect classes existed.
        reconcile: the hook a durable turn asks, after a crash, whether a call in
            flight took effect (:data:`Reconcile`); ``None``: none.
        in_doubt: how such a call is resolved (:class:`InDoubtRule`); ``None``: the
            default (:meth:`in_doubt_rule`).
    """

    return_direct: bool = False
    sequential: bool = False
    timeout: float | None = None
    requires_approval: bool = False
    effect: ToolEffect | None = None
    reconcile: Reconcile | None = None
    in_doubt: InDoubtRule | None = None

    def in_doubt_rule(self) -> InDoubtRule | None:
        """The rule resolving a call of this tool left in doubt by a crash: ``None`` for
        a tool whose calls may simply run again (read-only, idempotent, undeclared);
        else the declared rule, by default ``reconcile`` when the tool has a hook and
        ``approve`` when it has none."""
        effect = self.effect
        if effect is None or effect.repeatable:
            return None
        if self.in_doubt is not None:
            return self.in_doubt
        return InDoubtRule.RECONCILE if self.reconcile is not None else InDoubtRule.APPROVE


class ToolContext(Mapping[str, Any]):
    """A read-only view of the values the application handed to its tools.

    A tool parameter annotated ``ToolContext`` receives it; it is never sent to the model.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data: dict[str, Any] = dict(data or {})

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"ToolContext({self._data!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a mapping view is not hashable


@runtime_checkable
class ToolCallback(Protocol):
    """A tool the model can call. Implement it to plug in tools from anywhere.

    ``call`` receives the raw JSON arguments the model wrote and returns the text the
    model will read. It raises :class:`~ostinato.errors.ToolArgumentsError` for arguments
    it cannot use and :class:`~ostinato.errors.ToolExecutionError` (with the original
    exception as ``__cause__``) when the tool itself fails.
    """

    @property
    def tool_definition(self) -> ToolDefinition:
        """Name, description and argument schema."""
        ...

    @property
    def tool_metadata(self) -> ToolMetadata:
        """Return-direct, sequential and timeout settings."""
        ...

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        """Run the tool with ``arguments`` (JSON text) and return its result as text."""
        ...


@runtime_checkable
class ToolCallbackProvider(Protocol):
    """A source of tools evaluated lazily, at each ``call()``/``stream()``.

    A provider whose tools must be fetched (servers to start, a catalogue to read) may
    also define ``async def aget_tool_callbacks(self)``: a client awaits it, on the
    request's event loop, before it builds each request, and then reads
    :meth:`get_tool_callbacks`. Nothing is fetched when the client is built.
    """

    def get_tool_callbacks(self) -> Sequence[ToolCallback]:
        """The tools to attach now."""
        ...
