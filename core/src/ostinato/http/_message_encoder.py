"""``MessageEncoder``: a conversation as a provider's ``messages`` array, one kind at a time.

Every chat wire format turns the four message kinds into payloads of its own; the walk over
the conversation and the choice of the kind are the same for all, so they live here. An
adapter subclasses :class:`MessageEncoder` and writes one method per kind, each returning
the payloads that message becomes (none, one, or one per tool response). A conversation
holding another kind of message is refused with a :class:`TypeError` naming the four.

:class:`PayloadCache` keeps what an encoder made of each message, so a tool loop that sends
the whole history every round encodes each message once. This module knows no wire format.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any

from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)

__all__ = ["MessageEncoder", "Payload", "PayloadCache"]

#: One JSON object of a ``messages`` array.
Payload = dict[str, Any]


class MessageEncoder:
    """Turns messages into a provider's payloads; a subclass writes one method per kind.

    :meth:`encode` walks a conversation in order and :meth:`encode_message` calls
    :meth:`user`, :meth:`assistant`, :meth:`tool_responses` or :meth:`system` for each
    message. Each returns a new list the caller may change.
    """

    __slots__ = ()

    def encode(self, messages: Iterable[Message]) -> list[Payload]:
        """The payloads of ``messages``, in order.

        Raises:
            TypeError: a message is none of the four kinds.
        """
        payloads: list[Payload] = []
        for message in messages:
            payloads += self.encode_message(message)
        return payloads

    def encode_message(self, message: Message) -> list[Payload]:
        """The payloads of one message, from the method of its kind.

        Raises:
            TypeError: ``message`` is none of the four kinds.
        """
        # The common kinds first: a history is mostly user and assistant turns.
        if isinstance(message, UserMessage):
            return self.user(message)
        if isinstance(message, AssistantMessage):
            return self.assistant(message)
        if isinstance(message, ToolResponseMessage):
            return self.tool_responses(message)
        if isinstance(message, SystemMessage):
            return self.system(message)
        raise TypeError(
            f"{type(self).__name__} cannot send a {type(message).__name__}: expected a "
            "UserMessage, AssistantMessage, ToolResponseMessage or SystemMessage"
        )

    def user(self, message: UserMessage) -> list[Payload]:
        """The payloads of a user message (its text and media)."""
        raise NotImplementedError

    def assistant(self, message: AssistantMessage) -> list[Payload]:
        """The payloads of an assistant message (its text, reasoning and tool calls)."""
        raise NotImplementedError

    def tool_responses(self, message: ToolResponseMessage) -> list[Payload]:
        """The payloads of the tool responses ``message`` carries."""
        raise NotImplementedError

    def system(self, message: SystemMessage) -> list[Payload]:
        """The payloads of a system message (none where the API takes it elsewhere)."""
        raise NotImplementedError


_Entry = tuple[weakref.ref[Message], MessageEncoder, list[Payload]]
_Last = tuple[MessageEncoder, tuple[int, ...], list[Payload], list[int]]


def _common_prefix(ids: tuple[int, ...], known: tuple[int, ...]) -> int:
    """How many leading ids the two share, by slice comparisons (each a C-level pass):
    an earlier message then costs no Python step per request."""
    high = min(len(ids), len(known))
    if ids[:high] == known[:high]:
        return high
    low = 0  # ids[:low] == known[:low]; ids[:high] != known[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if ids[:middle] == known[:middle]:
            low = middle
        else:
            high = middle
    return low


class PayloadCache:
    """The payloads of messages being sent, by message identity and encoder.

    A tool loop sends the whole history every round, and an application often sends the
    same earlier turns again: messages are immutable, so each is encoded once per encoder.
    The last request's payloads are kept too: a request that starts with the same messages
    (the next round of a turn: the same history plus the round's new messages) takes them
    whole, and only its new messages are looked up, so an earlier message costs next to
    nothing per round. Entries hold the message only weakly and go away with it (and the
    last request's payloads with any of its messages), so the cache never keeps a
    conversation alive. The payloads are shared between requests, so a caller only ever
    serialises them.
    """

    __slots__ = ("__weakref__", "_entries", "_last")

    def __init__(self) -> None:
        self._entries: dict[int, _Entry] = {}
        # The last request: its encoder, its messages' ids, its payloads and where each
        # message's payloads end. Every one of those messages is alive while this is set
        # (a message's death cuts it short before that message), so an equal id is the same message.
        self._last: _Last | None = None

    def payloads(self, messages: Iterable[Message], encoder: MessageEncoder) -> list[Payload]:
        """What ``encoder`` makes of ``messages`` (as its :meth:`~MessageEncoder.encode`)."""
        if not isinstance(messages, tuple):
            messages = tuple(messages)
        ids = tuple(map(id, messages))
        last = self._last
        if last is None or last[0] is not encoder:
            payloads, ends = self._encode(messages, encoder, [], [])
        else:
            count = _common_prefix(ids, last[1])
            if count == len(ids) == len(last[1]):
                return last[2][:]
            kept = last[3][count - 1] if count else 0
            payloads, ends = self._encode(
                messages[count:], encoder, last[2][:kept], last[3][:count]
            )
        self._last = (encoder, ids, payloads, ends)
        return payloads[:]

    def _encode(
        self,
        messages: tuple[Message, ...],
        encoder: MessageEncoder,
        payloads: list[Payload],
        ends: list[int],
    ) -> tuple[list[Payload], list[int]]:
        # Appends the payloads of ``messages`` (each looked up, or encoded and kept).
        entries = self._entries
        for message in messages:
            entry = entries.get(id(message))
            if entry is None or entry[0]() is not message or entry[1] is not encoder:
                entry = (
                    weakref.ref(message, self._forget(id(message))),
                    encoder,
                    encoder.encode_message(message),
                )
                entries[id(message)] = entry
            payloads += entry[2]
            ends.append(len(payloads))
        return payloads, ends

    def __len__(self) -> int:
        return len(self._entries)

    def _forget(self, key: int) -> Callable[[weakref.ref[Message]], None]:
        # The callback must not hold the cache: a model that is dropped drops its cache.
        cache = weakref.ref(self)

        def forget(ref: weakref.ref[Message]) -> None:
            owner = cache()
            if owner is not None:
                last = owner._last
                if last is not None and key in last[1]:
                    # Keep the payloads of the messages before it (a history still sent).
                    count = last[1].index(key)
                    owner._last = (
                        (last[0], last[1][:count], last[2][: last[3][count - 1]], last[3][:count])
                        if count
                        else None
                    )
                entry = owner._entries.get(key)
                if entry is not None and entry[0] is ref:
                    del owner._entries[key]

        return forget
