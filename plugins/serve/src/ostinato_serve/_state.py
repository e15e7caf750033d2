"""What a served client holds between requests: the client, its tools, the turns waiting
for approval, the conversations it keeps itself, and the count of turns running.

Everything here lives in one process and one event loop (the server's); nothing is
shared between workers; the turns it runs are
:class:`~ostinato_serve._running.ServedTurns`. This module runs no turn and answers no
request.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ostinato.advisors import MemoryAdvisor
from ostinato.client import ChatClient
from ostinato.memory import ChatMemoryRepository
from ostinato.messages import Message
from ostinato.tools import PendingToolCalls, ToolCallback
from ostinato_serve._durable_turns import DurableTurns
from ostinato_serve._problems import ApiError
from ostinato_serve._running import Disconnect, ServedTurns
from ostinato_serve._settings import ServeSettings

__all__ = ["ConversationHistories", "PendingTurn", "PendingTurns", "ServeState", "TurnSlots"]

_KEPT_CONVERSATIONS = 1000


class TurnSlots:
    """How many turns may run at once; one more is refused with ``503`` (not queued, so
    a client learns at once that the server is full and may retry later)."""

    __slots__ = ("_limit", "_running")

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._running = 0

    @property
    def running(self) -> int:
        """The turns running now."""
        return self._running

    def acquire(self) -> None:
        """Take a slot.

        Raises:
            ApiError: ``503 server_busy`` when every slot is taken.
        """
        if self._running >= self._limit:
            raise ApiError(
                503,
                "server_busy",
                f"{self._running} turns are running, the most this server runs at once "
                f"(OSTINATO_SERVE_MAX_CONCURRENT_TURNS={self._limit}); retry shortly",
                {"Retry-After": "1"},
            )
        self._running += 1

    def release(self) -> None:
        """Give a slot back."""
        self._running -= 1


@dataclass(frozen=True, slots=True)
class PendingTurn:
    """A turn stopped for approval: what resumes it, and what its conversation needs.

    Attributes:
        pending: the stopped turn.
        conversation_id: the conversation it belongs to.
        question: the user text that started it (kept for the server's own history).
    """

    pending: PendingToolCalls
    conversation_id: str
    question: str


class PendingTurns:
    """The turns waiting for a decision, by pending id; each is taken once. When more
    than ``limit`` wait, the oldest is forgotten."""

    __slots__ = ("_decided", "_items", "_limit")

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._items: OrderedDict[str, PendingTurn] = OrderedDict()
        self._decided: OrderedDict[str, None] = OrderedDict()

    def add(self, turn: PendingTurn) -> str:
        """Keep ``turn``; its new pending id."""
        pending_id = f"pending-{uuid.uuid4().hex}"
        self._items[pending_id] = turn
        while len(self._items) > self._limit:
            self._items.popitem(last=False)
        return pending_id

    def peek(self, pending_id: str) -> PendingTurn:
        """The turn waiting under ``pending_id`` (still kept).

        Raises:
            ApiError: ``404 unknown_pending`` when none waits under that id, ``409
                already_decided`` when it was decided already.
        """
        turn = self._items.get(pending_id)
        if turn is None and pending_id in self._decided:
            raise ApiError(
                409,
                "already_decided",
                f"the calls waiting under {pending_id!r} were decided already (by another "
                "request); a second decision is refused — follow the resumed turn instead",
            )
        if turn is None:
            raise ApiError(
                404,
                "unknown_pending",
                f"no turn waits for approval under {pending_id!r} (unknown, already decided, "
                "or forgotten); expected the pending_id of a 'pending' event",
            )
        return turn

    def take(self, pending_id: str) -> PendingTurn:
        """Remove and return the turn waiting under ``pending_id`` (see :meth:`peek`)."""
        turn = self.peek(pending_id)
        del self._items[pending_id]
        self._decided[pending_id] = None
        while len(self._decided) > self._limit:
            self._decided.popitem(last=False)
        return turn


class ConversationHistories:
    """The conversations the server keeps itself when the client has no memory advisor:
    each user text with its final answer, in process, the latest ``limit`` conversations.
    """

    __slots__ = ("_items", "_limit")

    def __init__(self, limit: int = _KEPT_CONVERSATIONS) -> None:
        self._limit = limit
        self._items: OrderedDict[str, list[Message]] = OrderedDict()

    def get(self, conversation_id: str) -> list[Message]:
        """The messages of ``conversation_id`` so far (empty when new)."""
        return list(self._items.get(conversation_id, ()))

    def extend(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Add ``messages`` to ``conversation_id``, which becomes the most recent."""
        kept = self._items.pop(conversation_id, [])
        self._items[conversation_id] = [*kept, *messages]
        while len(self._items) > self._limit:
            self._items.popitem(last=False)


def _repository_of(advisors: Sequence[Any]) -> tuple[bool, ChatMemoryRepository | None]:
    for advisor in advisors:
        if isinstance(advisor, MemoryAdvisor):
            memory = getattr(advisor, "chat_memory", None)
            repository = getattr(memory, "repository", None)
            listable = isinstance(repository, ChatMemoryRepository)
            return True, repository if listable else None
    return False, None


@dataclass
class ServeState:
    """The served client and what the server keeps for it.

    Attributes:
        client: the client turns run on.
        tools: tools every turn offers, besides the client's own defaults.
        settings: the server's settings.
        model_name: the model's name as ``/api/info`` and ``/v1/models`` show it.
        has_memory: whether the client remembers conversations (a memory advisor).
        repository: where those conversations are kept, when it can list them.
        stateless_client: the client without its memory advisors, for requests that
            carry their whole conversation (``/v1/chat/completions``).
        turns: the turns this process runs.
        durable: the durable engine ``/api/turns`` submits to (``turns=durable``), or
            ``None`` (turns run in this process).
    """

    client: ChatClient
    tools: tuple[ToolCallback, ...]
    settings: ServeSettings
    model_name: str
    has_memory: bool = False
    repository: ChatMemoryRepository | None = None
    durable: DurableTurns | None = None
    stateless_client: ChatClient = field(init=False)
    slots: TurnSlots = field(init=False)
    pending: PendingTurns = field(init=False)
    histories: ConversationHistories = field(init=False)
    turns: ServedTurns = field(init=False)

    def __post_init__(self) -> None:
        self.slots = TurnSlots(self.settings.max_concurrent_turns)
        self.turns = ServedTurns(
            self.settings.reattach_seconds,
            self.settings.turn_log_seconds,
            self.settings.keep_turns,
            Disconnect(self.settings.on_disconnect),
        )
        self.pending = PendingTurns(self.settings.max_pending)
        self.histories = ConversationHistories()
        advisors = self.client.prompt().effective_advisors()
        found, repository = _repository_of(advisors)
        self.has_memory = self.has_memory or found
        self.repository = self.repository if self.repository is not None else repository
        self.stateless_client = (
            self.client.mutate().remove_default_advisors(MemoryAdvisor).build()
            if found
            else self.client
        )

    async def tool_callbacks(self) -> list[ToolCallback]:
        """Every tool a turn offers: the client's defaults, then :attr:`tools` (a provider
        that fetches its tools, such as the MCP servers, fetches them now)."""
        request = await self.client.prompt().tools(*self.tools).abuild_request()
        options = request.prompt.options
        return list(getattr(options, "tool_callbacks", ()) or ())
