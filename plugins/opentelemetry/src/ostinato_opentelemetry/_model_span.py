"""The ``chat {model}`` CLIENT span and the GenAI client metrics of one model call."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind

from ostinato.advisors import (
    AdvisorChain,
    CallAdvisor,
    ChatClientRequest,
    ChatClientResponse,
    Ordered,
    StreamAdvisor,
)
from ostinato.context_keys import CONVERSATION_ID
from ostinato.model import ChatResponse
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
)

__all__ = ["MODEL_CALL_KEY", "ModelCallSpanAdvisor"]

_OPERATION = "chat"
#: The context key under which a ``chat`` span keeps its model call (for the HTTP spans).
MODEL_CALL_KEY = otel_context.create_key("ostinato_opentelemetry.model_call")


def _request_attributes(telemetry: Telemetry, request: ChatClientRequest, stream: bool) -> Any:
    def compute() -> dict[str, Any]:
        options = request.prompt.options
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
        conversation = request.context.get(CONVERSATION_ID)
        if conversation is not None:
            attributes["gen_ai.conversation.id"] = str(conversation)
        if telemetry.settings.capture_content:
            mask, limit = telemetry.masked, telemetry.settings.max_attribute_length
            messages = request.prompt.messages
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

    def __init__(self, telemetry: Telemetry, request: ChatClientRequest, stream: bool) -> None:
        self.telemetry = telemetry
        self.attributes = dict(_request_attributes(telemetry, request, stream))
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


class ModelCallSpanAdvisor(CallAdvisor, StreamAdvisor):
    """Opens a ``chat {model}`` CLIENT span around each model call and records the GenAI
    client metrics. It sits innermost, just before the model, so the tool loop runs it
    once per round."""

    __slots__ = ("_telemetry",)

    def __init__(self, telemetry: Telemetry) -> None:
        self._telemetry = telemetry

    @property
    def order(self) -> int:
        """Just outside the model call advisor."""
        return Ordered.LOWEST_PRECEDENCE - 1

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """Call the model inside the span."""
        call = _ModelCall(self._telemetry, request, stream=False)
        response = _Response()
        token = otel_context.attach(call.context())
        try:
            result = await chain.next_call(request)
        except BaseException as error:
            call.end(response, error)
            raise
        finally:
            otel_context.detach(token)
        response.add(result.chat_response)
        call.end(response, None)
        return result

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """Stream the model's chunks inside the span; it ends with the stream."""
        call = _ModelCall(self._telemetry, request, stream=True)
        span_context = call.context()
        response = _Response()
        stream = chain.next_stream(request)
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
                response.add(chunk.chat_response)
                yield chunk
        except BaseException as failure:
            error = failure
            raise
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
            call.end(response, error)
