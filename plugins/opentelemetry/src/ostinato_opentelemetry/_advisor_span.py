"""The ``advisor {name}`` INTERNAL span of each advisor invocation (off by default).

Opened through an advisor scope (:mod:`ostinato.instrumentation`), only inside turns of
a client whose settings turn advisor spans on. For a stream the span covers the whole
stream and is current in each of its steps, so the model calls of every round nest
under the tool calling advisor's span. The plugin's own advisors and the model advisors
at the end of the chain get none: the turn and ``chat`` spans already stand for them
(a ``chat`` span comes from the model call wrapper of the client's unit stack).
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import INVALID_SPAN, Span, SpanKind

from ostinato.advisors import (
    Advisor,
    ChatClientRequest,
    ChatModelCallAdvisor,
    ChatModelStreamAdvisor,
)
from ostinato.instrumentation import AdvisorScope, AdvisorScopeActivation
from ostinato_opentelemetry._telemetry import (
    Telemetry,
    guarded,
    mark_failed,
    report_once,
    start_span,
    turn_telemetry,
)
from ostinato_opentelemetry._turn_span import TurnSpanAdvisor

__all__ = ["advisor_scope"]

_UNTRACED_ADVISORS = (
    TurnSpanAdvisor,
    ChatModelCallAdvisor,
    ChatModelStreamAdvisor,
)
_NOTHING: AbstractContextManager[object] = nullcontext()
_UNTRACED: AbstractContextManager[AdvisorScopeActivation] = nullcontext(lambda: _NOTHING)


class _Attached:
    """Makes a context current for one step."""

    __slots__ = ("_context", "_token")

    def __init__(self, context: otel_context.Context) -> None:
        self._context = context
        self._token: object = None

    def __enter__(self) -> None:
        self._token = otel_context.attach(self._context)

    def __exit__(self, *exc_info: object) -> None:
        otel_context.detach(self._token)  # type: ignore[arg-type]


class _AdvisorSpan:
    """One advisor invocation's span."""

    __slots__ = ("_advisor", "_context", "_span", "_stream", "_telemetry")

    def __init__(self, telemetry: Telemetry, advisor: Advisor, stream: bool) -> None:
        self._telemetry = telemetry
        self._advisor = advisor
        self._stream = stream
        self._span: Span = INVALID_SPAN
        self._context: otel_context.Context | None = None

    def __enter__(self) -> AdvisorScopeActivation:
        advisor = self._advisor

        def compute() -> dict[str, Any]:
            return {
                "ostinato.advisor.name": advisor.name,
                "ostinato.advisor.order": advisor.order,
                "ostinato.advisor.stream": self._stream,
            }

        attributes = guarded("recording an advisor", compute)
        name = f"advisor {attributes.get('ostinato.advisor.name', type(advisor).__name__)}"
        self._span = start_span(self._telemetry.tracer, name, SpanKind.INTERNAL, attributes)
        self._context = trace.set_span_in_context(self._span)
        return self._activate

    def _activate(self) -> AbstractContextManager[object]:
        context = self._context
        return _NOTHING if context is None else _Attached(context)

    def __exit__(self, kind: object, error: BaseException | None, tb: object) -> None:
        if error is not None and not isinstance(error, GeneratorExit):
            mark_failed(self._telemetry, self._span, error, type(error).__qualname__)
        try:
            self._span.end()
        except Exception as failure:
            report_once("ending an advisor span", failure)


def advisor_scope() -> AdvisorScope:
    """The advisor scope opening advisor spans in turns whose settings ask for them."""

    def scope(
        advisor: Advisor, request: ChatClientRequest, stream: bool
    ) -> AbstractContextManager[AdvisorScopeActivation]:
        telemetry = turn_telemetry()
        if (
            telemetry is None
            or not telemetry.settings.advisor_spans
            or isinstance(advisor, _UNTRACED_ADVISORS)
        ):
            return _UNTRACED
        return _AdvisorSpan(telemetry, advisor, stream)

    return scope
