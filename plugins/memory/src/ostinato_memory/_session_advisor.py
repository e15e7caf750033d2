"""``SessionMemoryAdvisor``: the message memory advisor on a session, compacting after turns.

What is read and stored, and when, is :class:`~ostinato_memory.ChatMemoryAdvisor`'s:
outside the tool loop (the default order) the turn is appended as one entry once it
succeeded; ordered after the tool advisor, each whole tool round is appended as it
completes and the answer after it. The history is the session's compacted view.

Once a turn is stored, compaction runs (:meth:`~ostinato_memory.SessionMemory.compact`),
never before the answer: in the background by default (a task on the caller's loop; the
answer is returned at once), or awaited after the turn with ``background_compaction=False``
— and always awaited inside a durable turn, so its read and its summary are units of that
turn. A failed compaction is logged and changes nothing; the turn is stored already.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence
from typing import Any, ClassVar

from ostinato.advisors import AdvisorChain, ChatClientRequest, ToolLoopExit
from ostinato.durable import current_turn
from ostinato.memory import CONVERSATION_ID
from ostinato.messages import AssistantMessage, Message, SystemMessage
from ostinato.model import Usage
from ostinato.prompt import ToolCallingChatOptions
from ostinato_memory._advisor import _Run
from ostinato_memory._history import merge_history
from ostinato_memory._message_advisor import MessageChatMemoryAdvisor
from ostinato_memory._resumed import is_pending
from ostinato_memory._session_memory import SessionMemory

__all__ = ["SessionMemoryAdvisor"]

_log = logging.getLogger("ostinato_memory.session")


class SessionMemoryAdvisor(MessageChatMemoryAdvisor):
    """Remembers each conversation in a :class:`~ostinato_memory.SessionMemory`, replays
    its compacted view as messages, and compacts it after each turn.

    Args:
        chat_memory: the session memory (its log and strategies).
        order: as :class:`~ostinato_memory.MessageChatMemoryAdvisor` (outside the tool
            loop by default; ``ToolCallingAdvisor.DEFAULT_ORDER + 1`` logs each tool round).
        default_conversation_id: the session used when the advisor context names none.
        background_compaction: run compaction as a background task (default) rather than
            awaiting it after the turn is stored.
    """

    WAIT_TIMEOUT: ClassVar[float] = 60.0

    __slots__ = ("_background", "_compacting", "_tasks")

    def __init__(
        self,
        chat_memory: SessionMemory,
        *,
        order: int = MessageChatMemoryAdvisor.DEFAULT_ORDER,
        default_conversation_id: str | None = None,
        background_compaction: bool = True,
    ) -> None:
        if not isinstance(chat_memory, SessionMemory):
            raise TypeError(
                f"SessionMemoryAdvisor needs a SessionMemory, got {type(chat_memory).__name__}"
                "; fix: SessionMemoryAdvisor(SessionMemory(log, strategies=[...])), or use "
                "MessageChatMemoryAdvisor for another ChatMemory"
            )
        super().__init__(chat_memory, order=order, default_conversation_id=default_conversation_id)
        self._background = bool(background_compaction)
        self._compacting: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def session_memory(self) -> SessionMemory:
        """The session memory."""
        memory = self.chat_memory
        assert isinstance(memory, SessionMemory)
        return memory

    def apply_history(
        self,
        request: ChatClientRequest,
        history: Sequence[Message],
        current: Sequence[Message],
    ) -> ChatClientRequest:
        """The request's system messages first, then ``history`` (summaries, which are
        system messages, in their place) and ``current``, then the request's other
        messages (not repeated)."""
        original = request.prompt.messages
        systems = [m for m in original if isinstance(m, SystemMessage)]
        others = [m for m in original if not isinstance(m, SystemMessage)]
        messages = [*systems, *merge_history([*history, *current], others)]
        if tuple(messages) == original:
            return request
        return request.copy(prompt=request.prompt.copy(messages=messages))

    async def _begin(self, request: ChatClientRequest, chain: AdvisorChain) -> _Run:
        run = await super()._begin(request, chain)
        # The recall tools find the session in the tool context.
        options = run.request.prompt.options
        if (
            isinstance(options, ToolCallingChatOptions)
            and CONVERSATION_ID not in options.tool_context
        ):
            options = options.with_tool_context({CONVERSATION_ID: run.conversation_id})
            prompt = run.request.prompt.copy(options=options)
            run = dataclasses.replace(run, request=run.request.copy(prompt=prompt))
        return run

    async def _end(
        self, run: _Run, outputs: list[AssistantMessage], usage: Usage | None = None
    ) -> None:
        await super()._end(run, outputs, usage)
        if outputs and (run.outside or not any(o.has_tool_calls for o in outputs)):
            await self._after_turn(run.conversation_id, run.chain)

    async def on_tool_loop_exit(self, ending: ToolLoopExit) -> None:
        """Store the open round with the answer (inside the loop), then compact."""
        before = len(self._open_rounds)
        await super().on_tool_loop_exit(ending)
        if len(self._open_rounds) < before and not is_pending(ending.response.context):
            await self._after_turn(self.conversation_id(ending.request.context))

    async def _after_turn(self, conversation_id: str, chain: AdvisorChain | None = None) -> None:
        # Without a chain (at the tool loop's exit) the stack the loop made current runs
        # the memory units; a background compaction runs outside the turn, unrecorded.
        if not self.session_memory.summarizes or conversation_id in self._compacting:
            return
        if not self._background or current_turn() is not None:
            await self._compact(conversation_id, chain)
            return
        task = asyncio.get_running_loop().create_task(self._compact(conversation_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _compact(self, conversation_id: str, chain: AdvisorChain | None = None) -> None:
        self._compacting.add(conversation_id)
        try:
            if chain is None:
                await self.session_memory.compact(conversation_id)
            else:
                await self.session_memory.compact(
                    conversation_id, units=chain.units, turn=chain.turn
                )
        except Exception:
            _log.warning("compaction of session %r failed", conversation_id, exc_info=True)
        finally:
            self._compacting.discard(conversation_id)

    async def wait_for_compaction(self) -> None:
        """Wait until the background compactions started on this loop have ended."""
        while tasks := [t for t in self._tasks if t.get_loop() is asyncio.get_running_loop()]:
            await asyncio.wait(tasks, timeout=self.WAIT_TIMEOUT)
            if any(not t.done() for t in tasks):
                return
