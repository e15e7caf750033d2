"""The ``execute_tool {name}`` INTERNAL span, current while the tool runs: a unit wrapper
of tool calls, at :attr:`~ostinato.units.UnitOrder.TRACING` (inside a durable engine's
recorder, so a replayed call has no span; outside the tool's timeout)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind

from ostinato.errors import ToolError
from ostinato.units import ToolInvocation, Unit, UnitKind, UnitOrder, UnitWrapper
from ostinato_opentelemetry._telemetry import (
    Telemetry,
    guarded,
    mark_failed,
    report_once,
    start_span,
)

__all__ = ["TOOL_WRAPPER_NAME", "tool_call_wrapper"]

_OPERATION = "execute_tool"
#: The name of the tool call wrapper in a unit stack.
TOOL_WRAPPER_NAME: Final = "opentelemetry-tool-call"


def _attributes(telemetry: Telemetry, unit: ToolInvocation) -> dict[str, Any]:
    call = unit.call
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": _OPERATION,
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.id,
        "gen_ai.tool.type": "function",
    }
    effect = unit.effect
    if effect is not None:
        attributes["ostinato.tool.effect"] = effect.value
    description = unit.callback.tool_definition.description
    if description:
        attributes["gen_ai.tool.description"] = description
    if telemetry.settings.capture_content:
        attributes["gen_ai.tool.call.arguments"] = telemetry.captured(call.arguments)
    return attributes


def _report(telemetry: Telemetry, span: Span, outcome: str | ToolError) -> None:
    try:
        if isinstance(outcome, ToolError):
            # The class the tool raised, as its ToolFinished event names it.
            mark_failed(telemetry, span, outcome, outcome.error_type)
        elif telemetry.settings.capture_content:
            span.set_attribute("gen_ai.tool.call.result", telemetry.captured(outcome))
    except Exception as failure:
        report_once("recording a tool outcome", failure)


def _end(span: Span) -> None:
    try:
        span.end()
    except Exception as failure:
        report_once("ending a tool span", failure)


def tool_call_wrapper(telemetry: Telemetry) -> UnitWrapper:
    """The unit wrapper opening each tool call's ``execute_tool`` span, current while
    the tool runs (spans the tool makes nest under it)."""

    async def around(
        unit: ToolInvocation, next: Callable[[Unit[Any]], Awaitable[Any]]
    ) -> str | ToolError:
        attributes = guarded("recording a tool call", lambda: _attributes(telemetry, unit))
        span = start_span(
            telemetry.tracer, f"{_OPERATION} {unit.call.name}", SpanKind.INTERNAL, attributes
        )
        token = otel_context.attach(trace.set_span_in_context(span))
        try:
            outcome: str | ToolError = await next(unit)
        except BaseException as error:
            mark_failed(telemetry, span, error, type(error).__qualname__)
            raise
        else:
            _report(telemetry, span, outcome)
            return outcome
        finally:
            otel_context.detach(token)
            _end(span)

    return UnitWrapper(
        TOOL_WRAPPER_NAME, UnitOrder.TRACING, frozenset({UnitKind.TOOL_CALL}), around
    )
