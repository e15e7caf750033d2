"""Typed events of the tool loop: what a turn does, as it does it.

``client.prompt(...).stream().events()`` (``aevents()``) yields them; listeners given to
``ChatClient.builder(...).listener(fn)`` or a request's ``.listener(fn)`` receive them on
the call and the stream path. Every event is a frozen value with a versioned JSON form
(:data:`EVENT_SCHEMA_VERSION`, :meth:`LoopEvent.to_dict`, :func:`event_from_dict`).
"""

from __future__ import annotations

from ostinato.events._schema import (
    EVENT_KINDS,
    EVENT_SCHEMA_VERSION,
    event_from_dict,
    event_to_dict,
)
from ostinato.events._sink import (
    EventListener,
    EventSink,
    current_event_sink,
    reset_event_sink,
    set_event_sink,
)
from ostinato.events._types import (
    ApprovalRequired,
    LoopEnded,
    LoopEvent,
    LoopExitReason,
    RoundFinished,
    RoundStarted,
    TextDelta,
    ToolCallDelta,
    ToolCallRequested,
    ToolFinished,
    ToolStarted,
)

__all__ = [
    "EVENT_KINDS",
    "EVENT_SCHEMA_VERSION",
    "ApprovalRequired",
    "EventListener",
    "EventSink",
    "LoopEnded",
    "LoopEvent",
    "LoopExitReason",
    "RoundFinished",
    "RoundStarted",
    "TextDelta",
    "ToolCallDelta",
    "ToolCallRequested",
    "ToolFinished",
    "ToolStarted",
    "current_event_sink",
    "event_from_dict",
    "event_to_dict",
    "reset_event_sink",
    "set_event_sink",
]
