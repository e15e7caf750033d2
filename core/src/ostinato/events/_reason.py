"""Why a turn's tool loop ends: :class:`LoopExitReason`.

Kept apart from the event classes so that the loop can name its endings without loading
them (``import ostinato`` stays light). This module must not import anything else.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["LoopExitReason"]


class LoopExitReason(StrEnum):
    """Why a turn's tool loop ended.

    Every ending of the loop is one member, decided in the one place the loop decides
    (``ToolLoopTurn``). Advisors inside the loop are told of every reason but
    ``ANSWERED`` (:class:`~ostinato.advisors.ToolLoopExitListener`): that one they saw.
    """

    ANSWERED = "answered"
    """The model answered without asking for tools (its round is the turn's answer)."""
    RETURN_DIRECT = "return_direct"
    """The tools ran and their results are the answer (``return_direct=True``)."""
    TOOL_CALL_LIMIT = "tool_call_limit"
    """A tool-call limit was breached; the calls did not all run."""
    MAX_ITERATIONS = "max_iterations"
    """The iteration cap was reached; the last calls did not run."""
    APPROVAL_REQUIRED = "approval_required"
    """Calls wait for an approval nobody gave inline; the turn can be resumed."""
    CANCELLED = "cancelled"
    """The turn was cancelled; calls that did not finish are answered as cancelled."""
    BUDGET = "budget"
    """A usage limit (model requests, tokens, tool calls) of the turn was reached."""
    NO_PROGRESS = "no_progress"
    """The model asked for the same tool with the same arguments too many times in a row."""
