"""The ``chat {model}`` CLIENT span and the GenAI client metrics of one model call: a
unit wrapper of model rounds (call and stream), at
:attr:`~ostinato.units.UnitOrder.TRACING`. It sits just outside the model, so the tool
loop runs it once per round; inside a durable engine's recorder, so a replayed round
(which never reaches the model) has no span."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind

from ostinato.model import ChatResponse, MessageAggregator
from ostinato.units import UnitKind, UnitOrder, UnitWrapper
from ostinato_opentelemetry._content import (
    input_messages,
    output_messages,
    system_instructions,
    tool_definitions,
)
from ostinato_opentelemetry._telemetry import (
    Telemetry,
    end_span,
    guarded,
    report_once,
    start_span,
    turn_conversation,
)

if TYPE_CHECKING:
    from ostinato.prompt import Prompt
    from ostinato.units import ModelCall, ModelStream, Unit

__all__ = ["MODEL_CALL_KEY", "MODEL_WRAPPER_NAME", "model_call_wrapper"]

#: The name of the model round wrapper in a unit stack.
MODEL_WRAPPER_NAME: Final = "opentelemetry-model-call"

_OPERATION = "chat"
#: The context key under which a ``chat`` span keeps its model call (for the HTTP spans).
MODEL_CALL_KEY = otel_context.create_key("ostinato_opentelemetry.model_call")


def _request_attributes(telemetry: Telemetry, prompt: Prompt, stream: bool) -> Any:
    def compute() -> dict[str, Any]:
        options = prompt.options
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": _OPERATION,
            "gen_ai.provider.name": telemetry.provider_name,
        }
        if stream:
            attributes["gen_ai.request.stream"] = True
        if options is not None:
            for key, value in (
                ("gen_ai.request.model", options.model),
                ("gen_ai.request.max_tokens", options.max_tokens),
                ("gen_ai.request.temperature", options.temperature),
                ("gen_ai.request.top_p", options.top_p),
                ("gen_ai.request.top_k", options.top_k),
                ("gen_ai.request.frequency_penalty", options.frequency_penalty),
                ("gen_ai.request.presence_penalty", options.presence_penalty),
                ("gen_ai.request.stop_sequences", options.stop_sequences),
                ("gen_ai.request.seed", getattr(options, "seed", None)),
            ):
                if value is not None:
                    attributes[key] = list(value) if isinstance(value, tuple) else value
        conversation = turn_conversation()
        if conversation is not None:
            attributes["gen_ai.conversation.id"] = conversation
        if telemetry.settings.capture_content:
            mask, limit = telemetry.masked, telemetry.settings.max_attribute_length
            messages = prompt.messages
            attributes["gen_ai.input.messages"] = input_messages(messages, mask, limit)
            system = system_instructions(messages, mask, limit)
            if system is not None:
                attributes["gen_ai.system_instructions"] = system
            tools = tool_definitions(getattr(options, "tool_callbacks", ()), limit)
            if tools is not None:
                attributes["gen_ai.tool.definitions"] = tools
        return attributes

    return guarded("recording a model request", compute)


class _Response:
    """What the response told, gathered over a stream's chunks (or one response)."""

    __slots__ = ("finish_reasons", "id", "input_tokens", "model", "outputs", "usage")

    def __init__(self) -> None:
        self.id = ""
        self.model = ""
        self.finish_reasons: list[str] = []
        self.outputs: list[Any] = []
        self.usage: Any = None

    def add(self, response: ChatResponse | None) -> None:
        if response is None:
            return
        try:
            self._add(response)
        except Exception as error:
            report_once("recording a model response", error)

    def _add(self, response: ChatResponse) -> None:
        metadata = response.metadata
        self.id = metadata.id or self.id
        self.model = metadata.model or self.model
        if metadata.usage.total_tokens or metadata.usage.prompt_tokens:
            self.usage = metadata.usage
        for generation in response.generations:
            reason = generation.metadata.finish_reason
            if reason:
                self.finish_reasons.append(reason.lower())
                self.outputs.append((generation.output, reason))

    def attributes(self, telemetry: Telemetry) -> dict[str, Any]:
        attributes: dict[str, Any] = {}
        if self.id:
            attributes["gen_ai.response.id"] = self.id
        if self.model:
            attributes["gen_ai.response.model"] = self.model
        if self.finish_reasons:
            attributes["gen_ai.response.finish_reasons"] = self.finish_reasons
        usage = self.usage
        if usage is not None:
            attributes["gen_ai.usage.input_tokens"] = usage.prompt_tokens
            attributes["gen_ai.usage.output_tokens"] = usage.completion_tokens
            if usage.cache_read_input_tokens is not None:
                attributes["gen_ai.usage.cache_read.input_tokens"] = usage.cache_read_input_tokens
            if usage.cache_write_input_tokens is not None:
                attributes["gen_ai.usage.cache_creation.input_tokens"] = (
                    usage.cache_write_input_tokens
                )
            if usage.reasoning_tokens is not None:
                attributes["gen_ai.usage.reasoning.output_tokens"] = usage.reasoning_tokens
        if telemetry.settings.capture_content and self.outputs:
            attributes["gen_ai.output.messages"] = output_messages(
                self.outputs, telemetry.masked, telemetry.settings.max_attribute_length
            )
        return attributes


_METRIC_KEYS = (
    "gen_ai.operation.name",
    "gen_ai.provider.name",
    "gen_ai.request.model",
    "gen_ai.response.model",
    "server.address",
    "server.port",
    "error.type",
)


class _ModelCall:
    """One model call's span and measurements."""

    __slots__ = ("attributes", "began", "span", "telemetry")

    def __init__(self, telemetry: Telemetry, prompt: Prompt, stream: bool) -> None:
        self.telemetry = telemetry
        self.attributes = dict(_request_attributes(telemetry, prompt, stream))
        model = self.attributes.get("gen_ai.request.model")
        name = f"{_OPERATION} {model}" if model else _OPERATION
        self.span = start_span(telemetry.tracer, name, SpanKind.CLIENT, self.attributes)
        self.began = time.perf_counter()

    def context(self) -> otel_context.Context:
        """The context making this call's span current (and the call findable)."""
        return otel_context.set_value(MODEL_CALL_KEY, self, trace.set_span_in_context(self.span))

    def server(self, address: str, port: int | None) -> None:
        """Record where the model is served (told by the first HTTP attempt)."""
        if "server.address" in self.attributes:
            return
        found: dict[str, Any] = {"server.address": address}
        if port is not None:
            found["server.port"] = port
        self.attributes.update(found)
        self.span.set_attributes(found)

    def end(self, response: _Response, error: BaseException | None) -> None:
        try:
            seconds = time.perf_counter() - self.began
            recorded = response.attributes(self.telemetry)
            self.span.set_attributes(recorded)
            end_span(self.telemetry, self.span, error, "ending a model call span")
            measured = {**self.attributes, **recorded}
            if error is not None:
                measured["error.type"] = type(error).__qualname__
            keys = {k: measured[k] for k in _METRIC_KEYS if k in measured}
            self.telemetry.duration.record(seconds, keys)
            if response.usage is not None:
                usage = response.usage
                self.telemetry.token_usage.record(
                    usage.prompt_tokens, {**keys, "gen_ai.token.type": "input"}
                )
                self.telemetry.token_usage.record(
                    usage.completion_tokens, {**keys, "gen_ai.token.type": "output"}
                )
        except Exception as failure:
            report_once("recording a model call", failure)


_Next = Callable[["Unit[Any]"], Awaitable[Any]]
_NextStream = Callable[["ModelStream"], AsyncIterator[ChatResponse]]


def model_call_wrapper(telemetry: Telemetry) -> UnitWrapper:
    """The unit wrapper opening a ``chat {model}`` CLIENT span around each model round
    and recording the GenAI client metrics. On the stream path it sees every chunk (the
    first one's arrival is ``gen_ai.response.time_to_first_chunk``) and ends the span
    with what the aggregate of the chunks tells: usage, finish reasons, output."""

    async def around(unit: ModelCall, next: _Next) -> ChatResponse:
        call = _ModelCall(telemetry, unit.prompt, stream=False)
        response = _Response()
        token = otel_context.attach(call.context())
        try:
            result: ChatResponse = await next(unit)
        except BaseException as error:
            call.end(response, error)
            raise
        finally:
            otel_context.detach(token)
        response.add(result)
        call.end(response, None)
        return result

    async def around_stream(unit: ModelStream, next: _NextStream) -> AsyncIterator[ChatResponse]:
        call = _ModelCall(telemetry, unit.prompt, stream=True)
        span_context = call.context()
        aggregator: MessageAggregator | None = MessageAggregator()
        token = otel_context.attach(span_context)
        try:
            stream = next(unit)  # an adapter may start its request here
        finally:
            otel_context.detach(token)
        first = True
        error: BaseException | None = None
        try:
            while True:
                token = otel_context.attach(span_context)
                try:
                    chunk = await anext(stream)
                except StopAsyncIteration:
                    break
                finally:
                    otel_context.detach(token)
                if first:
                    first = False
                    call.span.set_attribute(
                        "gen_ai.response.time_to_first_chunk", time.perf_counter() - call.began
                    )
                aggregator = _added(aggregator, chunk)
                yield chunk
        except BaseException as failure:
            error = failure
            raise
        finally:
            try:
                aclose = getattr(stream, "aclose", None)
                if aclose is not None:
                    await aclose()
            finally:
                response = _Response()
                response.add(_aggregate(aggregator))
                call.end(response, error)

    kinds = frozenset({UnitKind.MODEL_CALL, UnitKind.MODEL_STREAM})
    return UnitWrapper(MODEL_WRAPPER_NAME, UnitOrder.TRACING, kinds, around, around_stream)


def _added(aggregator: MessageAggregator | None, chunk: ChatResponse) -> MessageAggregator | None:
    # The aggregator with ``chunk`` added; None once a chunk could not be (reported once:
    # the span then records no response, and the stream goes on).
    if aggregator is None:
        return None
    try:
        aggregator.add(chunk)
    except Exception as failure:
        report_once("aggregating a streamed model response", failure)
        return None
    return aggregator


def _aggregate(aggregator: MessageAggregator | None) -> ChatResponse | None:
    if aggregator is None:
        return None
    try:
        return aggregator.result()
    except Exception as failure:
        report_once("aggregating a streamed model response", failure)
        return None
