"""One HTTP CLIENT span per HTTP attempt of a model call, under its ``chat`` span.

The ``chat`` span is the logical model call, retries included (its duration is what the
caller waited); each attempt on the wire is an HTTP client span, as the HTTP
conventions ask for every request sent: named after the method (``POST``), with
``http.request.method``, ``server.address``, ``server.port``, ``url.full``,
``http.response.status_code``, ``http.request.resend_count`` on a retry and
``error.type`` (the status code, or the exception's class) on failure. Opened through a
model attempt scope (:mod:`ostinato.instrumentation`), only under a ``chat`` span; the
first attempt also tells the ``chat`` span its ``server.address`` and ``server.port``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any
from urllib.parse import urlsplit

from opentelemetry import context as otel_context
from opentelemetry.trace import INVALID_SPAN, Span, SpanKind

from ostinato.instrumentation import ModelAttempt, ModelAttemptScope, ModelAttemptStatusReport
from ostinato.transport import AttemptFailed
from ostinato_opentelemetry._model_span import MODEL_CALL_KEY
from ostinato_opentelemetry._telemetry import guarded, mark_failed, report_once, start_span

__all__ = ["http_attempt_scope"]

_UNTRACED: AbstractContextManager[ModelAttemptStatusReport] = nullcontext(lambda status: None)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _where(url: str) -> tuple[str, int | None]:
    parts = urlsplit(url)
    return parts.hostname or "", parts.port or _DEFAULT_PORTS.get(parts.scheme)


class _HttpSpan:
    """One attempt's span."""

    __slots__ = ("_attempt", "_call", "_span", "_status")

    def __init__(self, call: Any, attempt: ModelAttempt) -> None:
        self._call = call
        self._attempt = attempt
        self._span: Span = INVALID_SPAN
        self._status: int | None = None

    def __enter__(self) -> ModelAttemptStatusReport:
        call, attempt = self._call, self._attempt
        telemetry = call.telemetry

        def compute() -> dict[str, Any]:
            address, port = _where(attempt.url)
            call.server(address, port)
            if not telemetry.settings.http_spans:
                return {}
            attributes: dict[str, Any] = {
                "http.request.method": attempt.method,
                "server.address": address,
                "url.full": attempt.url,
            }
            if port is not None:
                attributes["server.port"] = port
            if attempt.resend_count:
                attributes["http.request.resend_count"] = attempt.resend_count
            if telemetry.http_dup:  # OTEL_SEMCONV_STABILITY_OPT_IN=http/dup
                attributes.update({"http.method": attempt.method, "http.url": attempt.url})
                attributes["net.peer.name"] = address
                if port is not None:
                    attributes["net.peer.port"] = port
            return attributes

        attributes = guarded("recording an HTTP attempt", compute)
        if telemetry.settings.http_spans:
            self._span = start_span(telemetry.tracer, attempt.method, SpanKind.CLIENT, attributes)
        return self._told

    def _told(self, status: int) -> None:
        self._status = status
        try:
            self._span.set_attribute("http.response.status_code", status)
            if self._call.telemetry.http_dup:
                self._span.set_attribute("http.status_code", status)
        except Exception as failure:
            report_once("recording an HTTP status", failure)

    def __exit__(self, kind: object, error: BaseException | None, tb: object) -> None:
        if error is not None and not isinstance(error, GeneratorExit):
            cause = error.error if isinstance(error, AttemptFailed) else error
            status = self._status
            kind_of = str(status) if status is not None and status >= 400 else None
            mark_failed(
                self._call.telemetry, self._span, cause, kind_of or type(cause).__qualname__
            )
        try:
            self._span.end()
        except Exception as failure:
            report_once("ending an HTTP span", failure)


def http_attempt_scope() -> ModelAttemptScope:
    """The model attempt scope opening an HTTP span per attempt under a ``chat`` span."""

    def scope(attempt: ModelAttempt) -> AbstractContextManager[ModelAttemptStatusReport]:
        call = otel_context.get_value(MODEL_CALL_KEY)
        if call is None:
            return _UNTRACED
        return _HttpSpan(call, attempt)

    return scope
