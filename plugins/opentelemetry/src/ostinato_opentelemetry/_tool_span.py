"""The ``execute_tool {name}`` INTERNAL span, current while the tool runs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind

from ostinato.errors import ToolError
from ostinato.messages import ToolCall
from ostinato.tools import ToolCallback
from ostinato_opentelemetry._telemetry import (
    Telemetry,
    guarded,
    mark_failed,
    report_once,
    start_span,
    turn_telemetry,
)

__all__ = ["tool_scope"]

_OPERATION = "execute_tool"


def tool_scope(
    default: Telemetry,
) -> Callable[[ToolCall, ToolCallback], Any]:
    """The tool scope (see :mod:`ostinato.instrumentation`) opening a tool call's span,
    with the settings of the instrumented turn running it (``default`` outside one)."""

    @contextmanager
    def scope(
        call: ToolCall, callback: ToolCallback
    ) -> Iterator[Callable[[str | ToolError], None]]:
        telemetry = turn_telemetry() or default

        def compute() -> dict[str, Any]:
            attributes: dict[str, Any] = {
                "gen_ai.operation.name": _OPERATION,
                "gen_ai.tool.name": call.name,
                "gen_ai.tool.call.id": call.id,
                "gen_ai.tool.type": "function",
            }
            description = callback.tool_definition.description
            if description:
                attributes["gen_ai.tool.description"] = description
            if telemetry.settings.capture_content:
                attributes["gen_ai.tool.call.arguments"] = telemetry.captured(call.arguments)
            return attributes

        attributes = guarded("recording a tool call", compute)
        span = start_span(
            telemetry.tracer, f"{_OPERATION} {call.name}", SpanKind.INTERNAL, attributes
        )
        token = otel_context.attach(trace.set_span_in_context(span))

        def report(outcome: str | ToolError) -> None:
            try:
                if isinstance(outcome, ToolError):
                    # The class the tool raised, as its ToolFinished event names it.
                    mark_failed(telemetry, span, outcome, outcome.error_type)
                elif telemetry.settings.capture_content:
                    span.set_attribute("gen_ai.tool.call.result", telemetry.captured(outcome))
            except Exception as failure:
                report_once("recording a tool outcome", failure)

        try:
            yield report
        except BaseException as error:
            mark_failed(telemetry, span, error, type(error).__qualname__)
            raise
        finally:
            otel_context.detach(token)
            _end(span)

    return scope


def _end(span: Span) -> None:
    try:
        span.end()
    except Exception as failure:
        report_once("ending a tool span", failure)
