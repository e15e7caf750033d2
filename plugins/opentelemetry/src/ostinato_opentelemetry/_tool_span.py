"""The ``execute_tool {name}`` INTERNAL span, current while the tool runs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from ostinato.errors import ToolError
from ostinato.messages import ToolCall
from ostinato.tools import ToolCallback
from ostinato_opentelemetry._content import bounded
from ostinato_opentelemetry._telemetry import Telemetry, guarded, report_once, start_span

__all__ = ["tool_scope"]

_OPERATION = "execute_tool"


def tool_scope(
    telemetry: Telemetry,
) -> Callable[[ToolCall, ToolCallback], Any]:
    """The tool scope (see :mod:`ostinato.instrumentation`) opening a tool call's span."""

    @contextmanager
    def scope(
        call: ToolCall, callback: ToolCallback
    ) -> Iterator[Callable[[str | ToolError], None]]:
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
                attributes["gen_ai.tool.call.arguments"] = bounded(
                    call.arguments, telemetry.settings.max_attribute_length
                )
            return attributes

        attributes = guarded("recording a tool call", compute)
        span = start_span(
            telemetry.tracer, f"{_OPERATION} {call.name}", SpanKind.INTERNAL, attributes
        )
        token = otel_context.attach(trace.set_span_in_context(span))

        def report(outcome: str | ToolError) -> None:
            try:
                if isinstance(outcome, ToolError):
                    cause = outcome.__cause__ or outcome
                    span.set_attribute("error.type", type(cause).__qualname__)
                    span.set_status(Status(StatusCode.ERROR, str(outcome)))
                elif telemetry.settings.capture_content:
                    span.set_attribute(
                        "gen_ai.tool.call.result",
                        bounded(outcome, telemetry.settings.max_attribute_length),
                    )
            except Exception as failure:
                report_once("recording a tool outcome", failure)

        try:
            yield report
        except BaseException as error:
            _fail(span, error)
            raise
        finally:
            otel_context.detach(token)
            _end(span)

    return scope


def _fail(span: Span, error: BaseException) -> None:
    try:
        span.set_attribute("error.type", type(error).__qualname__)
        span.set_status(Status(StatusCode.ERROR, str(error) or type(error).__qualname__))
    except Exception as failure:
        report_once("recording a tool failure", failure)


def _end(span: Span) -> None:
    try:
        span.end()
    except Exception as failure:
        report_once("ending a tool span", failure)
