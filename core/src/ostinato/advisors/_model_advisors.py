"""The innermost advisors: they call the :class:`~ostinato.model.ChatModel` and never go further.

Both sit at ``LOWEST_PRECEDENCE``. Before calling, they add structured-output format
instructions found in the context to the last user message, or, for native structured
output, put the context's JSON schema on the options (``output_schema``) after checking
that the model declares it can enforce one. Each response's context is
the request's, plus the options actually sent (under :data:`SENT_OPTIONS`), which the
tool loop uses to run tools an inner advisor added (Spring AI cannot run those).

Each round is a unit (:class:`~ostinato.units.ModelCall`, :class:`~ostinato.units.ModelStream`)
run through the chain's unit stack when the stack has wrappers of its kind; without any,
the model is called directly and no unit is made.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from ostinato._aio import closing_stream
from ostinato._frozen import freeze
from ostinato.advisors._api import CallAdvisor, Ordered, StreamAdvisor
from ostinato.advisors._chain import AdvisorChain
from ostinato.advisors._exchange import (
    ChatClientRequest,
    ChatClientResponse,
    response_with_context,
)
from ostinato.context_keys import OUTPUT_FORMAT, OUTPUT_SCHEMA, SENT_OPTIONS
from ostinato.messages import UserMessage
from ostinato.model import ChatModel, check_native_structured_output
from ostinato.prompt import ChatOptions, Prompt

__all__ = ["ChatModelCallAdvisor", "ChatModelStreamAdvisor"]


def _augment(request: ChatClientRequest, model: ChatModel) -> Prompt:
    prompt = request.prompt
    schema = request.context.get(OUTPUT_SCHEMA)
    if isinstance(schema, str) and schema:
        check_native_structured_output(model)
        options = prompt.options if prompt.options is not None else ChatOptions()
        prompt = prompt.copy(options=options.copy(output_schema=schema))
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
        prompt = _augment(request, self._model)
        units = chain.units
        if not units.model_call:
            response = await self._model.call(prompt)
        else:  # the round is a unit, through the stack's wrappers
            from ostinato.units._values import ModelCall

            response = await units.run(ModelCall(prompt, self._model, chain.turn))
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
        prompt = _augment(request, self._model)
        context = freeze(request.context).merged({SENT_OPTIONS: prompt.options})
        units = chain.units
        if units.model_stream:  # the round is a unit, through the stack's wrappers
            from ostinato.units._values import ModelStream

            wrapped = units.stream(ModelStream(prompt, self._model, chain.turn))
            async with closing_stream(wrapped) as chunks:
                async for chunk in chunks:
                    yield response_with_context(chunk, context)
            return
        async with closing_stream(self._model.stream(prompt)) as chunks:
            async for chunk in chunks:
                yield response_with_context(chunk, context)
