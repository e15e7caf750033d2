"""The per-turn ``invoke_agent`` span: the parent of every model call and tool call of
one turn of the tool loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind

from ostinato.advisors import (
    AdvisorChain,
    CallAdvisor,
    ChatClientRequest,
    ChatClientResponse,
    Ordered,
    StreamAdvisor,
)
from ostinato.context_keys import CONVERSATION_ID
from ostinato_opentelemetry._telemetry import (
    CONVERSATION_KEY,
    TELEMETRY_KEY,
    Telemetry,
    end_span,
    guarded,
    report_once,
    start_span,
)

__all__ = ["TurnSpanAdvisor"]

_OPERATION = "invoke_agent"


def _conversation(request: ChatClientRequest) -> str | None:
    conversation = request.context.get(CONVERSATION_ID)
    return None if conversation is None else str(conversation)


def _start(telemetry: Telemetry, request: ChatClientRequest) -> Span:
    def compute() -> dict[str, Any]:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": _OPERATION,
            "gen_ai.provider.name": telemetry.provider_name,
        }
        options = request.prompt.options
        if options is not None and options.model:
            attributes["gen_ai.request.model"] = options.model
        conversation = _conversation(request)
        if conversation is not None:
            attributes["gen_ai.conversation.id"] = conversation
        return attributes

    attributes = guarded("recording a turn", compute)
    return start_span(telemetry.tracer, _OPERATION, SpanKind.INTERNAL, attributes)


def _context(telemetry: Telemetry, span: Span, request: ChatClientRequest) -> otel_context.Context:
    # The turn's telemetry travels with its span: the scopes read this client's settings;
    # and its conversation id, which the chat spans of its rounds record.
    context = otel_context.set_value(TELEMETRY_KEY, telemetry, trace.set_span_in_context(span))
    try:
        conversation = _conversation(request)
    except Exception as failure:
        report_once("recording a turn", failure)
        return context
    if conversation is None:
        return context
    return otel_context.set_value(CONVERSATION_KEY, conversation, context)


class TurnSpanAdvisor(CallAdvisor, StreamAdvisor):
    """Opens the turn's ``invoke_agent`` INTERNAL span, current for the whole turn, so
    each model call and tool call of the turn is its child. It sits outermost."""

    __slots__ = ("_telemetry",)

    def __init__(self, telemetry: Telemetry) -> None:
        self._telemetry = telemetry

    @property
    def order(self) -> int:
        """Outside every other advisor."""
        return Ordered.HIGHEST_PRECEDENCE

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """Run the turn inside the span."""
        span = _start(self._telemetry, request)
        token = otel_context.attach(_context(self._telemetry, span, request))
        try:
            response = await chain.next_call(request)
        except BaseException as error:
            end_span(self._telemetry, span, error, "ending a turn span")
            raise
        finally:
            otel_context.detach(token)
        end_span(self._telemetry, span, None, "ending a turn span")
        return response

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """Stream the turn with the span current while each chunk is made."""
        span = _start(self._telemetry, request)
        span_context = _context(self._telemetry, span, request)
        stream = chain.next_stream(request)
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
                yield chunk
        except BaseException as failure:
            error = failure
            raise
        finally:
            token = otel_context.attach(span_context)
            try:
                aclose = getattr(stream, "aclose", None)
                if aclose is not None:
                    await aclose()
            finally:
                otel_context.detach(token)
                end_span(self._telemetry, span, error, "ending a turn span")
