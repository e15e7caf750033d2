"""How a tool call went wrong: :class:`ToolFailureKind`.

Kept apart from the event classes, like the loop's exit reasons, so that whoever names a
kind does not load them. This module must not import anything else.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ToolFailureKind"]


class ToolFailureKind(StrEnum):
    """The kind of failure a :class:`~ostinato.events.ToolFinished` reports (its
    ``failure``); what was raised is its ``error``, the class name."""

    RAISED = "raised"
    """The tool raised (``error`` names the class it raised: ``ValueError``...)."""
    TIMED_OUT = "timed_out"
    """The tool ran past its timeout and was stopped."""
    BAD_ARGUMENTS = "bad_arguments"
    """The arguments were not JSON or did not fit the tool's schema; the tool never ran."""
    UNKNOWN_TOOL = "unknown_tool"
    """The model named a tool the request does not have; nothing ran."""
    LIMIT = "limit"
    """A tool-call limit answered the call as text; the tool never ran."""
    CANCELLED = "cancelled"
    """The turn was cancelled before the call finished (``error``: ``CancelledError``)."""
    DENIED = "denied"
    """A person or an approver denied the call; the tool never ran (``error``: ``None``,
    nothing was raised; ``result``: the denial the model reads)."""
