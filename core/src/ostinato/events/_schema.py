"""The JSON form of loop events: one schema, versioned.

Every event becomes one JSON object::

    {"schema_version": 1, "kind": "tool_finished", "turn_id": "t-1", "seq": 9,
     "round": 2, "call": {...}, ...}

``kind`` names the event class (``round_started``, ``text_delta``, ``tool_call_delta``,
``tool_call_requested``, ``tool_started``, ``tool_progress``, ``tool_finished``,
``in_doubt``, ``round_finished``, ``round_abandoned``, ``approval_required``,
``loop_ended``, ``guard_acted``);
``turn_id`` and ``seq`` are the event's place in its turn (see
:class:`~ostinato.events.LoopEvent`); the other keys are the event's fields. Messages,
tool calls, responses and usage take their own JSON forms (``to_dict``); the reason of
``loop_ended`` and the failure of ``tool_finished`` are their string values. In-process
objects (``RoundStarted.prompt``) are left out. A reader refuses another
``schema_version``: a new field with a default keeps the version, anything else raises
it (``tool_finished``'s ``failure`` and the tool events' ``effect`` came that way, in
version 1: a reader of older events gets ``None`` for it). ``turn_id`` and ``seq`` came
the same way, additively: a reader of events written before them gets ``None`` and
``0``, and a reader older than them ignores the keys it does not know, so events go both
ways between versions; the ``round_abandoned`` kind is new, and only a durable turn's
log holds one; the ``tool_progress`` kind is new too (a reader older than it refuses
that event with an ``unknown event kind`` error, and may skip it).

This module must not emit events nor know the loop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from ostinato.errors import EventSchemaError
from ostinato.events._guard import GuardActed
from ostinato.events._types import (
    ApprovalRequired,
    LoopEnded,
    LoopEvent,
    LoopExitReason,
    RoundAbandoned,
    RoundFinished,
    RoundStarted,
    TextDelta,
    ToolCallDelta,
    ToolCallRequested,
    ToolFailureKind,
    ToolFinished,
    ToolInDoubt,
    ToolProgress,
    ToolStarted,
)
from ostinato.messages import ToolCall, message_from_dict
from ostinato.model import ChatResponse, Usage

__all__ = ["EVENT_KINDS", "EVENT_SCHEMA_VERSION", "event_from_dict", "event_to_dict"]

EVENT_SCHEMA_VERSION: Final = 1
"""The version of the events' JSON form (the ``schema_version`` key)."""

EVENT_KINDS: Final[Mapping[str, type[LoopEvent]]] = {
    cls.kind: cls
    for cls in (
        RoundStarted,
        TextDelta,
        ToolCallDelta,
        ToolCallRequested,
        ToolStarted,
        ToolProgress,
        ToolFinished,
        ToolInDoubt,
        RoundFinished,
        RoundAbandoned,
        ApprovalRequired,
        LoopEnded,
        GuardActed,
    )
}
"""Every event class by its ``kind``."""

_IN_PROCESS: Final = frozenset({"prompt"})


def _encode(value: Any) -> Any:
    if isinstance(value, LoopExitReason | ToolFailureKind):
        return value.value
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _encode(v) for k, v in value.items()}
    to_dict = getattr(value, "to_dict", None)
    if to_dict is not None:
        return to_dict()
    return value


def event_to_dict(event: LoopEvent) -> dict[str, Any]:
    """The JSON form of ``event`` (see the module docstring)."""
    data: dict[str, Any] = {"schema_version": EVENT_SCHEMA_VERSION, "kind": event.kind}
    for f in dataclasses.fields(event):
        if f.name not in _IN_PROCESS:
            data[f.name] = _encode(getattr(event, f.name))
    return data


def _usage(data: Mapping[str, Any]) -> Usage:
    return Usage(**data)


_DECODERS: Final[Mapping[str, Any]] = {
    "messages": lambda items: tuple(message_from_dict(m) for m in items),
    "tool_names": tuple,
    "call": ToolCall.from_dict,
    "calls": lambda items: tuple(ToolCall.from_dict(c) for c in items),
    "response": lambda d: None if d is None else ChatResponse.from_dict(d),
    "usage": _usage,
    "reason": LoopExitReason,
    "failure": lambda value: None if value is None else ToolFailureKind(value),
}


def event_from_dict(
    data: Mapping[str, Any], *, expected: type[LoopEvent] | None = None
) -> LoopEvent:
    """Rebuild an event from :func:`event_to_dict`'s output.

    Raises:
        EventSchemaError: ``data`` is not a mapping, has another ``schema_version``, an
            unknown ``kind``, a missing or malformed field, or (with ``expected``) is an
            event of another class. The message names what was found and what was
            expected.
    """
    if not isinstance(data, Mapping):
        raise EventSchemaError(f"an event's JSON form is an object, got {type(data).__name__}")
    version = data.get("schema_version")
    if version != EVENT_SCHEMA_VERSION:
        raise EventSchemaError(
            f"event schema_version {version!r} is not supported; this version of ostinato "
            f"reads schema_version {EVENT_SCHEMA_VERSION} (upgrade the reader, or write "
            "the events with the same version)"
        )
    kind = data.get("kind")
    cls = EVENT_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventSchemaError(
            f"unknown event kind {kind!r}; known kinds: {', '.join(EVENT_KINDS)}"
        )
    if expected is not None and cls is not expected:
        raise EventSchemaError(f"expected a {expected.kind!r} event, got kind {kind!r}")
    values: dict[str, Any] = {}
    try:
        for f in dataclasses.fields(cls):
            if f.name in _IN_PROCESS or f.name not in data:
                continue
            decode = _DECODERS.get(f.name)
            raw = data[f.name]
            values[f.name] = decode(raw) if decode is not None else raw
        return cls(**values)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise EventSchemaError(
            f"malformed {kind!r} event: {type(error).__name__}: {error} "
            f"(fields expected: {', '.join(f.name for f in dataclasses.fields(cls))})"
        ) from error
