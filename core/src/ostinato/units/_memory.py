"""Chat memory reads and writes as units.

A memory advisor calls :func:`read_memory` and :func:`write_memory` instead of
``memory.get`` / ``memory.add``, passing its chain's stack and turn
(``units=chain.units, turn=chain.turn``): with no wrapper of the kind they are exactly
those calls; otherwise the read or write is a unit that runs through the stack (in a
durable turn a read is recorded, so a replayed turn sees the history it saw the first
time, not one that already holds its own answer, and a completed write is not made
twice). Without ``units``, the stack the tool loop made current is used, if any.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ostinato.units._unit import _BOUND, TurnScope

if TYPE_CHECKING:
    from ostinato.memory import ChatMemory
    from ostinato.messages import Message
    from ostinato.units._stack import UnitStack

__all__ = ["read_memory", "write_memory"]


def _stack_of(
    units: UnitStack | None, turn: TurnScope | None
) -> tuple[UnitStack | None, TurnScope | None]:
    if units is not None:
        return units, turn
    bound = _BOUND.get()
    return (None, None) if bound is None else bound


async def read_memory(
    memory: ChatMemory,
    conversation_id: str,
    *,
    units: UnitStack | None = None,
    turn: TurnScope | None = None,
) -> list[Message]:
    """``memory.get(conversation_id)``, as a :attr:`~ostinato.units.UnitKind.MEMORY_READ`
    unit of ``units`` (``turn``: the caller's turn scope)."""
    stack, scope = _stack_of(units, turn)
    if stack is None or not stack.memory_read:
        return await memory.get(conversation_id)
    from ostinato.units._values import MemoryRead

    messages: list[Message] = await stack.run(MemoryRead(memory, conversation_id, scope))
    return messages


async def write_memory(
    memory: ChatMemory,
    conversation_id: str,
    messages: Sequence[Message],
    *,
    units: UnitStack | None = None,
    turn: TurnScope | None = None,
) -> None:
    """``memory.add(conversation_id, messages)``, as a
    :attr:`~ostinato.units.UnitKind.MEMORY_WRITE` unit of ``units``."""
    stack, scope = _stack_of(units, turn)
    if stack is None or not stack.memory_write:
        await memory.add(conversation_id, messages)
        return
    from ostinato.units._values import MemoryWrite

    await stack.run(MemoryWrite(memory, conversation_id, messages, scope))
