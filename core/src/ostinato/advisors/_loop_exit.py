"""Telling advisors inside the tool loop how a turn ended when no model round followed.

An advisor inside the loop sees every model round, so it sees a turn end when the model
answers. It does not see the other endings: the tools were return-direct, a tool-call
limit was breached, or the iteration cap was reached — the tool advisor builds the
turn's answer itself, without another round. An advisor that must know (a memory
advisor storing the turn round by round) mixes in :class:`ToolLoopExitListener`; the
:class:`~ostinato.advisors.ToolCallingAdvisor` calls it with a :class:`ToolLoopExit`
before it returns (or streams) that answer. This goes beyond Spring AI, whose
inner advisors never learn of these endings.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass

from ostinato.advisors._api import Advisor
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.events import LoopExitReason
from ostinato.messages import ToolResponseMessage
from ostinato.model import ChatResponse

__all__ = [
    "LoopExitReason",
    "ToolLoopExit",
    "ToolLoopExitListener",
    "ToolLoopExitReason",
    "notify_loop_exit",
]


ToolLoopExitReason = LoopExitReason
"""The former name of :class:`LoopExitReason` (listeners are never told ``ANSWERED``)."""


@dataclass(frozen=True, slots=True)
class ToolLoopExit:
    """How a turn's tool loop ended without another model round.

    Attributes:
        reason: why.
        request: the last round's request (its context names the conversation).
        asked: the model's last response, which asked for tools.
        tool_responses: the responses of the tools that ran, when they are the answer
            (``RETURN_DIRECT``); otherwise ``None``.
        response: the turn's answer, as the tool advisor returns it.
    """

    reason: LoopExitReason
    request: ChatClientRequest
    asked: ChatResponse
    tool_responses: ToolResponseMessage | None
    response: ChatClientResponse


class ToolLoopExitListener(Advisor, ABC):
    """Mixin for an advisor inside the tool loop that wants to know of the endings it
    cannot see (every :class:`LoopExitReason` but ``ANSWERED``). Advisors outside the
    loop are not told."""

    __slots__ = ()

    @abstractmethod
    async def on_tool_loop_exit(self, ending: ToolLoopExit) -> None:
        """Called once per ending, before the tool advisor returns or streams
        ``ending.response``; with ``final_answer_on_limit``, at the limit, before the last
        round (``ending.response`` then holds the limit's text). An exception raised here
        fails the turn."""


async def notify_loop_exit(advisors: Iterable[Advisor], ending: ToolLoopExit) -> None:
    """Tell every :class:`ToolLoopExitListener` among ``advisors``, in chain order."""
    for advisor in advisors:
        if isinstance(advisor, ToolLoopExitListener):
            await advisor.on_tool_loop_exit(ending)
