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


class PayloadCache:
    """The payloads of messages being sent, by message identity and encoder.

    A tool loop sends the whole history every round, and an application often sends the
    same earlier turns again: messages are immutable, so each is encoded once per encoder.
    Entries hold the message only weakly and go away with it, so the cache never keeps a
    conversation alive. The payloads are shared between requests, so a caller only ever
    serialises them.
    """

    __slots__ = ("__weakref__", "_entries")

    def __init__(self) -> None:
        self._entries: dict[int, _Entry] = {}

    def payloads(self, messages: Iterable[Message], encoder: MessageEncoder) -> list[Payload]:
        """What ``encoder`` makes of ``messages`` (as its :meth:`~MessageEncoder.encode`)."""
        entries = self._entries
        result: list[Payload] = []
        for message in messages:
            entry = entries.get(id(message))
            if entry is None or entry[0]() is not message or entry[1] is not encoder:
                entry = (
                    weakref.ref(message, self._forget(id(message))),
                    encoder,
                    encoder.encode_message(message),
                )
                entries[id(message)] = entry
            result += entry[2]
        return result

    def __len__(self) -> int:
        return len(self._entries)

    def _forget(self, key: int) -> Callable[[weakref.ref[Message]], None]:
        # The callback must not hold the cache: a model that is dropped drops its cache.
        cache = weakref.ref(self)

        def forget(ref: weakref.ref[Message]) -> None:
            owner = cache()
            if owner is not None:
                entry = owner._entries.get(key)
                if entry is not None and entry[0] is ref:
                    del owner._entries[key]

        return forget
