"""What flows through the advisor chain: requests down, responses up.

Both carry the *advisor context*: a read-only mapping seeded with the advisor params of
the call (e.g. the conversation id) that advisors extend on the way down and up by making
new requests/responses with :meth:`with_context`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ostinato._frozen import EMPTY, FrozenDict, freeze
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt

__all__ = ["ChatClientRequest", "ChatClientResponse", "response_with_context"]


@dataclass(frozen=True, slots=True)
class ChatClientRequest:
    """A prompt on its way to the model, with the advisor context."""

    prompt: Prompt
    context: Mapping[str, Any] = field(default=EMPTY)

    def __post_init__(self) -> None:
        if not isinstance(self.prompt, Prompt):
            raise TypeError(f"prompt must be a Prompt, got {type(self.prompt).__name__}")
        if type(self.context) is not FrozenDict:  # passed on from another request: kept
            object.__setattr__(self, "context", freeze(self.context))

    def copy(
        self, *, prompt: Prompt | None = None, context: Mapping[str, Any] | None = None
    ) -> ChatClientRequest:
        """A request with the prompt and/or the whole context replaced."""
        return ChatClientRequest(
            self.prompt if prompt is None else prompt,
            self.context if context is None else context,
        )

    def with_context(
        self, values: Mapping[str, Any] | None = None, /, **more: Any
    ) -> ChatClientRequest:
        """A request whose context has ``values`` (and keyword ``more``) added."""
        return ChatClientRequest(
            self.prompt, freeze(self.context).merged({**(values or {}), **more})
        )


@dataclass(frozen=True, slots=True)
class ChatClientResponse:
    """A model answer on its way back to the caller, with the advisor context.

    ``chat_response`` is ``None`` only when an advisor short-circuits without an answer.
    """

    chat_response: ChatResponse | None
    context: Mapping[str, Any] = field(default=EMPTY)

    def __post_init__(self) -> None:
        if type(self.context) is not FrozenDict:  # one response per chunk: a frozen one kept
            object.__setattr__(self, "context", freeze(self.context))

    def copy(
        self,
        *,
        chat_response: ChatResponse | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> ChatClientResponse:
        """A response with the chat response and/or the whole context replaced."""
        return ChatClientResponse(
            self.chat_response if chat_response is None else chat_response,
            self.context if context is None else context,
        )

    def with_context(
        self, values: Mapping[str, Any] | None = None, /, **more: Any
    ) -> ChatClientResponse:
        """A response whose context has ``values`` (and keyword ``more``) added."""
        return ChatClientResponse(
            self.chat_response, freeze(self.context).merged({**(values or {}), **more})
        )

    def without_context_keys(self, *keys: str) -> ChatClientResponse:
        """A response whose context lacks ``keys`` (the same object when none is present)."""
        if not any(k in self.context for k in keys):
            return self
        return ChatClientResponse(
            self.chat_response, {k: v for k, v in self.context.items() if k not in keys}
        )


_new = object.__new__
_set = object.__setattr__


def response_with_context(
    chat_response: ChatResponse | None, context: FrozenDict
) -> ChatClientResponse:
    """``ChatClientResponse(chat_response, context)`` for a context frozen already, made
    without the dataclass's ``__init__`` and check (the stream path makes one per chunk)."""
    response: ChatClientResponse = _new(ChatClientResponse)
    _set(response, "chat_response", chat_response)
    _set(response, "context", context)
    return response
