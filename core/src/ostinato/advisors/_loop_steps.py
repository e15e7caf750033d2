"""What the tool loop's decision after a round says: go on, or how the turn ends.

:class:`~ostinato.advisors._tool_loop.ToolLoopTurn` makes the decision; the drivers of
:class:`~ostinato.advisors.ToolCallingAdvisor` act on it. This module only holds values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.events import LoopExitReason
from ostinato.messages import Message, ToolResponseMessage
from ostinato.model import ChatResponse

__all__ = ["LoopExit", "NextRound"]


@dataclass(frozen=True, slots=True)
class NextRound:
    """The loop goes on: the next round forwards ``instructions``."""

    instructions: Sequence[Message]


@dataclass(frozen=True, slots=True)
class LoopExit:
    """The loop ends.

    Attributes:
        reason: why.
        request: the last round's request.
        response: the turn's answer, usage of every round included (on the stream path,
            stamped with a round of its own unless the reason is ``ANSWERED``, whose
            chunks were streamed already).
        asked: the last round's model response (after ``do_after_call``/``_stream``).
        tool_responses: the responses of the tools that ran, when they are the answer
            (``RETURN_DIRECT``); otherwise ``None``.
        model_answered: the answer is the last round's response as the model gave it
            (``ANSWERED``, or a last round without tools at a limit): on the stream path
            its chunks were streamed already.
    """

    reason: LoopExitReason
    request: ChatClientRequest
    response: ChatClientResponse
    asked: ChatResponse | None
    tool_responses: ToolResponseMessage | None = None
    model_answered: bool = False
