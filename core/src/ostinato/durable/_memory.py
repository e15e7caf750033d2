"""Chat memory reads and writes as durable units.

A memory advisor calls :func:`read_memory` and :func:`write_memory` instead of
``memory.get`` / ``memory.add``: outside a durable turn they are exactly those calls;
inside one, a read is recorded (a replayed turn sees the history it saw the first time,
not one that already holds its own answer) and a completed write is not made twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ostinato.durable._units import UnitKind, run_unit, unit_interceptor

if TYPE_CHECKING:
    from ostinato.memory import ChatMemory
    from ostinato.messages import Message

__all__ = ["read_memory", "write_memory"]


async def read_memory(memory: ChatMemory, conversation_id: str) -> list[Message]:
    """``memory.get(conversation_id)``, as a :attr:`UnitKind.MEMORY_READ` unit in a
    durable turn."""
    interceptor = unit_interceptor()
    if interceptor is None:
        return await memory.get(conversation_id)
    from ostinato.durable._codecs import decode_messages, encode_messages

    return await run_unit(
        interceptor,
        UnitKind.MEMORY_READ,
        conversation_id,
        lambda: memory.get(conversation_id),
        encode_messages,
        decode_messages,
        lambda: {"conversation_id": conversation_id},
    )


async def write_memory(
    memory: ChatMemory, conversation_id: str, messages: Sequence[Message]
) -> None:
    """``memory.add(conversation_id, messages)``, as a :attr:`UnitKind.MEMORY_WRITE` unit
    in a durable turn."""
    interceptor = unit_interceptor()
    if interceptor is None:
        await memory.add(conversation_id, messages)
        return
    from ostinato.durable._codecs import decode_nothing, encode_messages, encode_nothing

    await run_unit(
        interceptor,
        UnitKind.MEMORY_WRITE,
        conversation_id,
        lambda: memory.add(conversation_id, messages),
        encode_nothing,
        decode_nothing,
        lambda: {"conversation_id": conversation_id, "messages": encode_messages(messages)},
    )
