"""Recall: the ``conversation_search`` tool set, full-text search over a conversation's log.

Compaction never removes anything from the log, so a turn the model no longer sees (cut
by a window, folded into a summary) is still found here. The tools search the session
of the current request: the conversation id the session advisor puts into the tool
context (:data:`~ostinato.memory.CONVERSATION_ID`), else the one given when the tools
were made.
"""

from __future__ import annotations

from typing import Annotated, Final

from ostinato.memory import CONVERSATION_ID, SessionEntry, SessionLog
from ostinato.tools import ToolCallback, ToolContext, tool, tool_callbacks
from ostinato_memory._compaction import transcript
from ostinato_memory._session_memory import SessionMemory

__all__ = ["EXCERPT_CHARS", "conversation_search_tools"]

#: The most characters of an entry's text a search result shows.
EXCERPT_CHARS: Final = 600

_NO_SESSION: Final = (
    "error: no conversation to search: this request names none (the session memory "
    "advisor passes it on; or make the tools with conversation_id=...)"
)


def _excerpt(entry: SessionEntry, limit: int) -> str:
    text = transcript(entry.messages) or entry.text()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def conversation_search_tools(
    memory: SessionMemory | SessionLog,
    *,
    limit: int = 5,
    conversation_id: str | None = None,
) -> list[ToolCallback]:
    """``conversation_search(query)`` and ``conversation_read(position, count)`` over the
    current conversation's session log (summarized entries included).

    Args:
        memory: the session memory (or its log).
        limit: the most entries one search returns (default 5).
        conversation_id: the conversation searched when the request names none.
    """
    log = memory.log if isinstance(memory, SessionMemory) else memory
    if not isinstance(log, SessionLog):
        raise TypeError(f"memory must be a SessionMemory or a SessionLog, got {memory!r}")

    def session_of(context: ToolContext) -> str | None:
        value = context.get(CONVERSATION_ID) or conversation_id
        return str(value) if value else None

    @tool(name="conversation_search")
    async def conversation_search(
        query: Annotated[str, "the words to look for (every one must occur)"],
        context: ToolContext,
    ) -> str:
        """Search everything said earlier in this conversation, including what is no
        longer in view; returns matching entries with their positions."""
        session = session_of(context)
        if session is None:
            return _NO_SESSION
        hits = await log.search(session, query, limit=limit)
        if not hits:
            return f"nothing in this conversation matches {query!r}"
        return "\n\n".join(
            f"[position {h.entry.position}, {h.entry.kind.value}]\n"
            f"{_excerpt(h.entry, EXCERPT_CHARS)}"
            for h in hits
        )

    @tool(name="conversation_read")
    async def conversation_read(
        position: Annotated[int, "the first position to read (from a search result)"],
        context: ToolContext,
        count: Annotated[int, "how many entries to read"] = 3,
    ) -> str:
        """Read entries of this conversation in full, from a position."""
        session = session_of(context)
        if session is None:
            return _NO_SESSION
        entries = [e for e in await log.read(session, start=max(position, 0)) if e.messages]
        chosen = entries[: max(min(count, 20), 1)]
        if not chosen:
            return f"this conversation has no entry at position {position} or after"
        return "\n\n".join(
            f"[position {e.position}, {e.kind.value}]\n{transcript(e.messages)}" for e in chosen
        )

    return tool_callbacks(conversation_search, conversation_read)
