"""Steering at the tool loop's round boundaries: where messages added to a running turn
(:class:`~ostinato.runtime.Steering`) join its conversation.

A round boundary is the moment between two model rounds when the conversation is whole:
after a round's tool calls have all been answered (the messages follow the tool
responses), or after a round that answered without tools (the messages follow that
answer, and the turn goes on with one more round). Either way the next round's request
ends with user messages after a complete exchange — valid for every provider. The
:class:`~ostinato.advisors._tool_loop.ToolLoopTurn` calls these two functions; they only
build message sequences.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ostinato.messages import Message, SystemMessage

if TYPE_CHECKING:
    from ostinato.advisors._turn_state import TurnState
    from ostinato.model import ChatResponse
    from ostinato.runtime._steering import Steering

__all__ = ["steer_after_answer", "steer_after_tools"]


async def steer_after_tools(steering: Steering, turn: TurnState) -> None:
    """Append the waiting messages (if any) to ``turn``'s history and next instructions,
    after the tool responses."""
    taken = await steering.take()
    if taken:
        turn.history = (*turn.history, *taken)
        turn.instructions = (*turn.instructions, *taken)


async def steer_after_answer(
    steering: Steering, turn: TurnState, asked: ChatResponse | None
) -> tuple[Sequence[Message], Sequence[Message]] | None:
    """``(history, instructions)`` of one more round after the answer ``asked``, with the
    waiting messages after it; ``None`` when none wait (the turn ends with the answer) or
    the turn is at its iteration cap (they stay waiting). Without the whole history (a
    memory advisor inside the loop supplies it) the round forwards the system message
    and the new messages only."""
    generation = asked.result if asked is not None else None
    if generation is None or turn.rounds >= turn.max_iterations:
        return None
    answer = generation.output
    taken = await steering.take(before=(answer,))
    if not taken:
        return None
    history = (*turn.history, answer, *taken)
    if turn.whole_history:
        return history, history
    system = [m for m in history if isinstance(m, SystemMessage)][:1]
    return history, (*system, *taken)
