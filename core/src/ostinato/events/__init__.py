"""Typed events of the tool loop: what a turn does, as it does it.

``client.prompt(...).stream().events()`` (``aevents()``) yields them; listeners given to
``ChatClient.builder(...).listener(fn)`` or a request's ``.listener(fn)`` receive them on
the call and the stream path. Every event is a frozen value with a versioned JSON form
(:data:`EVENT_SCHEMA_VERSION`, :meth:`LoopEvent.to_dict`, :func:`event_from_dict`) and
its place in its turn (``turn_id``, ``seq``). A :class:`TurnLog` given as a listener
numbers a turn's events and lets readers follow it by position (``read(after=N)``): in
process, :class:`MemoryTurnLog`; a durable engine's, from any process.

The reason enum and the sink are imported eagerly (the loop needs them on every turn);
the event classes, the failure kinds and the JSON form lazily (PEP 562), on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ostinato.events._reason import LoopExitReason
from ostinato.events._sink import (
    EventListener,
    EventSink,
    ToolBatch,
    TurnLog,
    current_event_sink,
    reset_event_sink,
    set_event_sink,
)

if TYPE_CHECKING:
    from ostinato.events._failure import ToolFailureKind
    from ostinato.events._guard import GuardActed
    from ostinato.events._log import withdrawn
    from ostinato.events._memory_log import MemoryTurnLog, MemoryTurnLogs
    from ostinato.events._schema import (
        EVENT_KINDS,
        EVENT_SCHEMA_VERSION,
        event_from_dict,
        event_to_dict,
    )
    from ostinato.events._types import (
        ApprovalRequired,
        LoopEnded,
        LoopEvent,
        RoundAbandoned,
        RoundFinished,
        RoundStarted,
        TextDelta,
        ToolCallDelta,
        ToolCallRequested,
        ToolFinished,
        ToolInDoubt,
        ToolProgress,
        ToolStarted,
    )

__all__ = [
    "EVENT_KINDS",
    "EVENT_SCHEMA_VERSION",
    "ApprovalRequired",
    "EventListener",
    "EventSink",
    "GuardActed",
    "LoopEnded",
    "LoopEvent",
    "LoopExitReason",
    "MemoryTurnLog",
    "MemoryTurnLogs",
    "RoundAbandoned",
    "RoundFinished",
    "RoundStarted",
    "TextDelta",
    "ToolBatch",
    "ToolCallDelta",
    "ToolCallRequested",
    "ToolFailureKind",
    "ToolFinished",
    "ToolInDoubt",
    "ToolProgress",
    "ToolStarted",
    "TurnLog",
    "current_event_sink",
    "event_from_dict",
    "event_to_dict",
    "reset_event_sink",
    "set_event_sink",
    "withdrawn",
]

_LAZY = {
    "EVENT_KINDS": "ostinato.events._schema",
    "EVENT_SCHEMA_VERSION": "ostinato.events._schema",
    "event_from_dict": "ostinato.events._schema",
    "event_to_dict": "ostinato.events._schema",
    "ToolFailureKind": "ostinato.events._failure",
    "GuardActed": "ostinato.events._guard",
    "withdrawn": "ostinato.events._log",
    "MemoryTurnLog": "ostinato.events._memory_log",
    "MemoryTurnLogs": "ostinato.events._memory_log",
    **dict.fromkeys(
        (
            "ApprovalRequired",
            "LoopEnded",
            "LoopEvent",
            "RoundAbandoned",
            "RoundFinished",
            "RoundStarted",
            "TextDelta",
            "ToolCallDelta",
            "ToolCallRequested",
            "ToolFinished",
            "ToolInDoubt",
            "ToolProgress",
            "ToolStarted",
        ),
        "ostinato.events._types",
    ),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ostinato.events' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
