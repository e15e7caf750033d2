"""The :class:`ChatModel` protocol every provider adapter implements."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from ostinato.errors import StructuredOutputNotSupportedError
from ostinato.model._response import ChatResponse
from ostinato.prompt import ChatOptions, Prompt

__all__ = ["ChatModel", "check_native_structured_output"]


@runtime_checkable
class ChatModel(Protocol):
    """A model that answers prompts. It never runs tools: it returns tool calls as-is.

    ``call`` answers in one piece; ``stream`` is an async generator function yielding
    partial responses (text deltas, tool-call fragments carrying an ``index``, usage).
    :class:`~ostinato.model.MessageAggregator` folds a stream into what ``call`` would
    have returned. ``default_options`` decides what a request can carry: only
    :class:`~ostinato.prompt.ToolCallingChatOptions` let the tool loop run.

    A model that can make the provider enforce a JSON schema (``output_schema`` in its
    options) says so with a class attribute ``native_structured_output = True``; the
    attribute is optional, and a model without it is asked for JSON by instructions only.
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


def check_native_structured_output(model: object) -> None:
    """Raise unless ``model`` declares ``native_structured_output = True``.

    Raises:
        StructuredOutputNotSupportedError: naming the model and what to do instead.
    """
    if getattr(model, "native_structured_output", False) is not True:
        raise StructuredOutputNotSupportedError(
            f"{model!r} cannot make its provider enforce a JSON schema "
            "(it does not declare native_structured_output = True)\n"
            "use entity(type) without native=True (the schema goes into the prompt as "
            "format instructions), optionally with validate_schema=True to re-ask until "
            "the answer fits",
            model=repr(model),
        )
