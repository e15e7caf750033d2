"""The stream loop's side of early starts (``ostinato.tools._eager``): whether a turn
starts read-only calls while their round streams, and the round's starts made current
while its tools run. Loads the early-start machinery only when it is on."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, TypeVar

from ostinato.units._unit import _TURN

if TYPE_CHECKING:
    from ostinato.prompt import ToolCallingChatOptions
    from ostinato.tools._eager import EagerStarts

__all__ = ["decide_with", "eager_starting", "early_starts"]

T = TypeVar("T")


def eager_starting(manager: object) -> bool:
    """Whether the turn starts calls early: its manager's ``EffectPolicy`` says so, and
    the turn is not a durable one (a replay streams a recorded round as one chunk)."""
    policy = getattr(manager, "_effects", None)  # the policy as given (None: defaults)
    if policy is None or not getattr(policy, "eager_start", False):
        return False
    turn = _TURN.get()
    return turn is None or turn.turn_id is None


def early_starts(options: ToolCallingChatOptions) -> EagerStarts:
    """The early starts of one round with ``options``' tools and tool context."""
    from ostinato._tool_contract import ToolContext
    from ostinato.tools._eager import EagerStarts

    return EagerStarts(options.tool_callbacks, ToolContext(options.tool_context))


async def decide_with(starts: EagerStarts, deciding: Awaitable[T]) -> T:
    """Await ``deciding`` (the round's decision, which runs its tools) with ``starts``
    current, so the tool calling manager takes the calls started early."""
    from ostinato.tools._execution import EAGER

    token = EAGER.set(starts)
    try:
        return await deciding
    finally:
        EAGER.reset(token)
