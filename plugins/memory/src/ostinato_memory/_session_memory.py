"""``SessionMemory``: a ``ChatMemory`` on a session log, with compaction strategies.

``add`` appends one entry (a turn, or one tool round of it), ``get`` returns the
compacted view — summaries in place of what they cover, then what the strategies'
``select`` keep — and :meth:`SessionMemory.compact` appends a summary when a strategy's
``plan`` asks for one. So every memory advisor works on it; the session advisor
(:class:`~ostinato_memory.SessionMemoryAdvisor`) adds compaction after each turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ostinato.memory import ChatMemorySyncFaces, SessionEntry, SessionLog, SessionSearchHit
from ostinato.messages import Message
from ostinato_memory._compaction import CompactionStrategy
from ostinato_memory._session_base import InMemorySessionLog
from ostinato_memory._session_io import EntriesMemory, append_entries, read_entries
from ostinato_memory._session_view import Block, session_blocks, summary_message
from ostinato_memory._validation import check_conversation_id, check_messages

if TYPE_CHECKING:
    from ostinato.units import TurnScope, UnitStack

__all__ = ["SessionMemory"]


class SessionMemory(ChatMemorySyncFaces):
    """A :class:`~ostinato.memory.ChatMemory` keeping each conversation in a
    :class:`~ostinato.memory.SessionLog`, shown to the model through ``strategies``.

    Args:
        log: the session log (default: a new :class:`~ostinato_memory.InMemorySessionLog`).
        strategies: compaction strategies, in order (default none: the whole log).

    Nothing is ever removed from the log: a conversation's every turn stays searchable
    (:meth:`search`) and readable (``log.read``) after compaction.
    """

    __slots__ = ("_entries", "_log", "_strategies")

    def __init__(
        self,
        log: SessionLog | None = None,
        *,
        strategies: Sequence[CompactionStrategy] = (),
    ) -> None:
        if log is None:
            log = InMemorySessionLog()
        elif not isinstance(log, SessionLog):
            raise TypeError(
                f"log must be a SessionLog, got {type(log).__name__} (e.g. InMemorySessionLog() "
                "or SQLiteSessionLog(path)); a ChatMemoryRepository keeps whole conversations, "
                "not a log"
            )
        strategies = tuple(strategies)
        for strategy in strategies:
            if not isinstance(strategy, CompactionStrategy):
                raise TypeError(
                    f"strategies holds {strategy!r}, not a CompactionStrategy (LastTurns, "
                    "TokenBudget, SummarizeOlderTurns)"
                )
        self._log = log
        self._strategies = strategies
        self._entries = EntriesMemory(log)

    @property
    def log(self) -> SessionLog:
        """The session log."""
        return self._log

    @property
    def strategies(self) -> tuple[CompactionStrategy, ...]:
        """The compaction strategies, in order."""
        return self._strategies

    @property
    def entries(self) -> EntriesMemory:
        """The log as a ``ChatMemory`` of entry envelopes (what compaction reads and
        writes through the durable memory units)."""
        return self._entries

    @property
    def summarizes(self) -> bool:
        """Whether a strategy may append summaries (:meth:`compact` has work to do)."""
        return any(s.summarizer is not None for s in self._strategies)

    def blocks(self, entries: Sequence[SessionEntry]) -> list[Block]:
        """The blocks the model sees of ``entries``: summaries in place, whole turns,
        then each strategy's ``select``."""
        blocks = session_blocks(entries)
        for strategy in self._strategies:
            blocks = strategy.select(blocks)
        return blocks

    def view(self, entries: Sequence[SessionEntry]) -> list[Message]:
        """The messages the model sees of ``entries``."""
        return [m for block in self.blocks(entries) for m in block.messages]

    async def add(self, conversation_id: str, messages: Sequence[Message] | Message) -> None:
        """Append ``messages`` (one or several) as one entry, atomically."""
        check_conversation_id(conversation_id)
        new = check_messages(messages)
        if new:
            await self._log.append(conversation_id, [SessionEntry.turn(new)])

    async def get(self, conversation_id: str) -> list[Message]:
        """The compacted view of ``conversation_id``, oldest first."""
        check_conversation_id(conversation_id)
        return self.view(await self._log.read(conversation_id))

    async def clear(self, conversation_id: str) -> None:
        """Delete ``conversation_id``'s own entries."""
        check_conversation_id(conversation_id)
        await self._log.delete(conversation_id)

    async def compact(
        self,
        conversation_id: str,
        *,
        units: UnitStack | None = None,
        turn: TurnScope | None = None,
    ) -> SessionEntry | None:
        """Append a summary if a strategy's ``plan`` asks for one; return it (else
        ``None``). The read and the append are memory units of ``units`` (a chain's
        stack and turn; by default the stack the tool loop made current, if any), so a
        durable turn records them (:mod:`ostinato_memory._session_io`); the summarizer
        runs in between, with that stack current (a :class:`ChatModelSummarizer`'s model
        call is a unit of it too: a replay gets the recorded summary)."""
        check_conversation_id(conversation_id)
        if not self.summarizes:
            return None
        entries = await read_entries(self._entries, conversation_id, units=units, turn=turn)
        blocks = session_blocks(entries)
        for strategy in self._strategies:
            summarizer = strategy.summarizer
            fold = strategy.plan(blocks) if summarizer is not None else None
            if summarizer is None or not fold:
                continue
            folded = [m for block in fold for m in block.messages]
            if units is None:
                text = await summarizer.summarize(folded)
            else:  # a summarizer's model call is a unit of the same stack
                from ostinato.units import using_unit_stack

                with using_unit_stack(units, turn):
                    text = await summarizer.summarize(folded)
            start, end = fold[0].start, fold[-1].end
            entry = SessionEntry.summary(summary_message(text, start, end), start, end)
            await append_entries(self._entries, conversation_id, [entry], units=units, turn=turn)
            return entry
        return None

    async def fork(self, conversation_id: str, position: int, branch_id: str) -> SessionEntry:
        """Start ``branch_id`` as a branch of ``conversation_id`` at ``position``."""
        return await self._log.fork(conversation_id, position, branch_id)

    async def search(
        self, conversation_id: str, query: str, *, limit: int = 10
    ) -> list[SessionSearchHit]:
        """Entries of ``conversation_id`` (summarized ones too) holding every word of
        ``query``, best first."""
        return await self._log.search(conversation_id, query, limit=limit)

    def compact_sync(self, conversation_id: str) -> SessionEntry | None:
        """Blocking :meth:`compact`."""
        from ostinato.runtime import run_sync

        return run_sync(self.compact(conversation_id), async_name="compact")

    def fork_sync(self, conversation_id: str, position: int, branch_id: str) -> SessionEntry:
        """Blocking :meth:`fork`."""
        from ostinato.runtime import run_sync

        return run_sync(self.fork(conversation_id, position, branch_id), async_name="fork")

    def search_sync(
        self, conversation_id: str, query: str, *, limit: int = 10
    ) -> list[SessionSearchHit]:
        """Blocking :meth:`search`."""
        from ostinato.runtime import run_sync

        return run_sync(self.search(conversation_id, query, limit=limit), async_name="search")

    def __repr__(self) -> str:
        return f"SessionMemory({self._log!r}, strategies={list(self._strategies)!r})"
