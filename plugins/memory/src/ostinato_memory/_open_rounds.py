"""Tool rounds waiting for their tool responses, for a memory advisor inside the tool loop.

Inside the loop, the model's tool-call message arrives in one round and the tool
responses answering it only in the next one. Memory stores the two together (a stored
tool response always follows the message that asked for it, and a failed turn stores
nothing), so in between the round is *open*: held here and sent to the model as if stored.
A round is found again by its conversation and the ids of its tool calls, which the tool
responses repeat, so concurrent turns of one conversation do not mix. A round whose turn
ends without another model round (return-direct tools, a limit, the iteration cap) is
closed by the advisor when the tool advisor says so; one whose turn failed is never
stored, and the oldest are forgotten beyond ``capacity``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from ostinato.messages import Message, SystemMessage, ToolResponseMessage, UserMessage

__all__ = ["OpenRounds"]

_Key = tuple[str, frozenset[str]]


class OpenRounds:
    """Open tool rounds by conversation and tool-call ids, at most ``capacity`` of them.
    Safe to share between threads."""

    __slots__ = ("_capacity", "_lock", "_rounds")

    def __init__(self, capacity: int = 10_000) -> None:
        self._capacity = capacity
        self._lock = threading.Lock()
        self._rounds: OrderedDict[_Key, tuple[Message, ...]] = OrderedDict()

    def open(
        self, conversation_id: str, messages: Sequence[Message], call_ids: Iterable[str]
    ) -> None:
        """Hold ``messages`` (ending with a tool-call message) until tool responses to
        ``call_ids`` come."""
        key = (conversation_id, frozenset(call_ids))
        with self._lock:
            self._rounds.pop(key, None)
            self._rounds[key] = tuple(messages)
            while len(self._rounds) > self._capacity:
                self._rounds.popitem(last=False)

    def take(self, conversation_id: str, request: Sequence[Message]) -> tuple[Message, ...] | None:
        """The open round of ``conversation_id`` that ``request``'s last tool response
        message answers (its messages, then that tool response message, then the user
        messages steered into the turn after it, if any), removed; else ``None``."""
        steered: list[Message] = []
        last: Message | None = None
        for message in reversed(request):
            if isinstance(message, SystemMessage):
                continue
            if not isinstance(message, UserMessage):
                last = message
                break
            steered.insert(0, message)
        if not isinstance(last, ToolResponseMessage) or not last.responses:
            return None
        key = (conversation_id, frozenset(r.id for r in last.responses))
        with self._lock:
            held = self._rounds.pop(key, None)
        return None if held is None else (*held, last, *steered)

    def close(self, conversation_id: str, call_ids: Iterable[str]) -> tuple[Message, ...] | None:
        """The open round of ``conversation_id`` asking for ``call_ids``, removed (its turn
        ended without another model round); else ``None``."""
        with self._lock:
            return self._rounds.pop((conversation_id, frozenset(call_ids)), None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._rounds)
