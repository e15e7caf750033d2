"""The :class:`ChatModel` protocol every provider adapter implements."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from ostinato.model._response import ChatResponse
from ostinato.prompt import ChatOptions, Prompt

__all__ = ["ChatModel"]


@runtime_checkable
class ChatModel(Protocol):
    """A model that answers prompts. It never runs tools: it returns tool calls as-is.

    ``call`` answers in one piece; ``stream`` is an async generator function yielding
    partial responses (text deltas, tool-call fragments carrying an ``index``, usage).
    :class:`~ostinato.model.MessageAggregator` folds a stream into what ``call`` would
    have returned. ``default_options`` decides what a request can carry: only
    :class:`~ostinato.prompt.ToolCallingChatOptions` let the tool loop run.
    """

    @property
    def default_options(self) -> ChatOptions:
        """The options requests start from."""
        ...

    async def call(self, prompt: Prompt) -> ChatResponse:
        """Answer ``prompt`` in one response."""
        ...

    def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        """Answer ``prompt`` as a stream of partial responses."""
        ...
