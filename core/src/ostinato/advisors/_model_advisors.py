"""The innermost advisors: they call the :class:`~ostinato.model.ChatModel` and never go further.

Both sit at ``LOWEST_PRECEDENCE``. Before calling, they add structured-output format
instructions found in the context to the last user message. Each response's context is
the request's, plus the options actually sent (under :data:`SENT_OPTIONS`), which the
tool loop uses to run tools an inner advisor added (DESIGN.md §4.8).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Final

from ostinato._aio import closing_stream
from ostinato._frozen import freeze
from ostinato.advisors._api import CallAdvisor, Ordered, StreamAdvisor
from ostinato.advisors._chain import AdvisorChain
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.messages import UserMessage
from ostinato.model import ChatModel
from ostinato.prompt import Prompt

__all__ = [
    "OUTPUT_FORMAT",
    "SENT_OPTIONS",
    "TOOL_LOOP_ROUND",
    "ChatModelCallAdvisor",
    "ChatModelStreamAdvisor",
]

#: Context key: format instructions to append to the last user message (structured output).
OUTPUT_FORMAT: Final = "ostinato.chat_client.output_format"
#: Context key set on model responses: the options the model actually received.
SENT_OPTIONS: Final = "ostinato.model.sent_options"
#: Context key the tool loop sets on each streamed chunk: the model round (from 1) it
#: belongs to, so that stream aggregators can keep the final round's answer only.
TOOL_LOOP_ROUND: Final = "ostinato.tool_loop.round"


def _augment(request: ChatClientRequest) -> Prompt:
    prompt = request.prompt
    fmt = request.context.get(OUTPUT_FORMAT)
    if isinstance(fmt, str) and fmt:
        prompt = prompt.augment_user_message(
            lambda m: UserMessage(f"{m.text}\n{fmt}", m.media, m.metadata)
        )
    return prompt


class ChatModelCallAdvisor(CallAdvisor):
    """Calls the model once; the end of every call chain."""

    __slots__ = ("_model",)

    def __init__(self, model: ChatModel) -> None:
        self._model = model

    @property
    def name(self) -> str:
        """``"call"``."""
        return "call"

    @property
    def order(self) -> int:
        """``LOWEST_PRECEDENCE``: always innermost."""
        return Ordered.LOWEST_PRECEDENCE

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """Send the prompt to the model and wrap its answer with the request's context."""
        prompt = _augment(request)
        response = await self._model.call(prompt)
        return ChatClientResponse(
            response, freeze(request.context).merged({SENT_OPTIONS: prompt.options})
        )


class ChatModelStreamAdvisor(StreamAdvisor):
    """Streams from the model; the end of every stream chain."""

    __slots__ = ("_model",)

    def __init__(self, model: ChatModel) -> None:
        self._model = model

    @property
    def name(self) -> str:
        """``"stream"``."""
        return "stream"

    @property
    def order(self) -> int:
        """``LOWEST_PRECEDENCE``: always innermost."""
        return Ordered.LOWEST_PRECEDENCE

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """Stream the model's chunks, each wrapped with the request's context."""
        prompt = _augment(request)
        context = freeze(request.context).merged({SENT_OPTIONS: prompt.options})
        async with closing_stream(self._model.stream(prompt)) as chunks:
            async for chunk in chunks:
                yield ChatClientResponse(chunk, context)
