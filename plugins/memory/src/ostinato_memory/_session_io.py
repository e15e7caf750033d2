"""The one place session memory reads and writes its log inside a turn.

Every read and write of the session advisor — the compacted history, the turn's
messages, the entries compaction plans from, the summary it appends — goes through
:func:`~ostinato.units.read_memory` and :func:`~ostinato.units.write_memory`, so each
is a unit of the chain's stack: recorded in a durable turn (a replay sees what the first
run read, and a summary already appended is not appended twice). The history and the turn go through
:class:`~ostinato_memory.SessionMemory` itself (a ``ChatMemory``); the raw entries go
through :class:`EntriesMemory`, a ``ChatMemory`` over the same log whose messages are
*envelopes*: one system message per entry, the entry's JSON form in its metadata, so a
recorded unit carries the entries (and a summary's range) whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ostinato.memory import SessionEntry, SessionLog
from ostinato.messages import Message, SystemMessage
from ostinato.units import TurnScope, UnitStack, read_memory, write_memory

__all__ = ["ENTRY_METADATA", "EntriesMemory", "append_entries", "read_entries"]

#: Metadata key of an envelope: the entry's JSON form and its position.
ENTRY_METADATA: Final = "ostinato.session.entry"


def envelope(entry: SessionEntry) -> SystemMessage:
    """``entry`` as one message (its JSON form and position in the metadata)."""
    return SystemMessage(
        "", metadata={ENTRY_METADATA: {**entry.to_dict(), "position": entry.position}}
    )


def opened(message: Message) -> SessionEntry:
    """The entry an :func:`envelope` holds."""
    data = message.metadata.get(ENTRY_METADATA)
    if not isinstance(data, dict):
        raise ValueError(f"not a session entry envelope: {message!r}")
    return SessionEntry.from_dict(data, int(data.get("position", -1)))


class EntriesMemory:
    """A ``ChatMemory`` over a :class:`~ostinato.memory.SessionLog` whose messages are
    entry envelopes: ``get`` reads the log, ``add`` appends the entries, ``clear``
    deletes the session."""

    __slots__ = ("_log",)

    def __init__(self, log: SessionLog) -> None:
        self._log = log

    async def add(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Append the entries ``messages`` hold, atomically."""
        await self._log.append(conversation_id, [opened(m) for m in messages])

    async def get(self, conversation_id: str) -> list[Message]:
        """The session's entries, as envelopes."""
        return [envelope(e) for e in await self._log.read(conversation_id)]

    async def clear(self, conversation_id: str) -> None:
        """Delete the session's own entries."""
        await self._log.delete(conversation_id)


async def read_entries(
    memory: EntriesMemory,
    session_id: str,
    *,
    units: UnitStack | None = None,
    turn: TurnScope | None = None,
) -> list[SessionEntry]:
    """The session's entries, read as a memory unit of ``units``."""
    return [opened(m) for m in await read_memory(memory, session_id, units=units, turn=turn)]


async def append_entries(
    memory: EntriesMemory,
    session_id: str,
    entries: Sequence[SessionEntry],
    *,
    units: UnitStack | None = None,
    turn: TurnScope | None = None,
) -> None:
    """Append ``entries`` as a memory unit of ``units`` (a summary, in compaction)."""
    messages = [envelope(e) for e in entries]
    await write_memory(memory, session_id, messages, units=units, turn=turn)
