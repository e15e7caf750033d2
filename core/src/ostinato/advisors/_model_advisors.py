"""The innermost advisors: they call the :class:`~ostinato.model.ChatModel` and never go further.

Both sit at ``LOWEST_PRECEDENCE``. Before calling, they add structured-output format
instructions found in the context to the last user message, or, for native structured
output, put the context's JSON schema on the options (``output_schema``) after checking
that the model declares it can enforce one. Each response's context is
the request's, plus the options actually sent (under :data:`SENT_OPTIONS`), which the
tool loop uses to run tools an inner advisor added (Spring AI cannot run those).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from ostinato._aio import closing_stream
from ostinato._frozen import freeze
from ostinato.advisors._api import CallAdvisor, Ordered, StreamAdvisor
from ostinato.advisors._chain import AdvisorChain
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.context_keys import OUTPUT_FORMAT, OUTPUT_SCHEMA, SENT_OPTIONS
from ostinato.durable._units import UnitKind, run_unit, unit_interceptor
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


def _model_name(model: ChatModel) -> str:
    options = model.default_options
    name = getattr(options, "model", None) if options is not None else None
    return name if isinstance(name, str) and name else type(model).__name__


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
        interceptor = unit_interceptor()
        if interceptor is None:
            response = await self._model.call(prompt)
        else:  # a durable turn: the round is a unit (recorded, or replayed)
            from ostinato.durable._codecs import decode_response, describe_prompt, encode_response

            response = await run_unit(
                interceptor,
                UnitKind.MODEL_CALL,
                _model_name(self._model),
                lambda: self._model.call(prompt),
                encode_response,
                decode_response,
                lambda: describe_prompt(prompt),
            )
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
        interceptor = unit_interceptor()
        if interceptor is not None:  # a durable turn: the round is a unit
            from ostinato.durable._streams import recorded_stream

            model = self._model
            name = _model_name(model)
            recorded = recorded_stream(interceptor, name, prompt, lambda: model.stream(prompt))
            async with closing_stream(recorded) as chunks:
                async for chunk in chunks:
                    yield ChatClientResponse(chunk, context)
            return
        async with closing_stream(self._model.stream(prompt)) as chunks:
            async for chunk in chunks:
                yield ChatClientResponse(chunk, context)
