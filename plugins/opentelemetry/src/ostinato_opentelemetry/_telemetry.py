"""The instrumentation's shared state: tracer, meter, instruments and settings."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import Span, Status, StatusCode

from ostinato.redaction import Redactor, is_credential_name
from ostinato_opentelemetry._content import bounded
from ostinato_opentelemetry._settings import OpenTelemetrySettings

__all__ = [
    "CONVERSATION_KEY",
    "SCOPE_NAME",
    "TELEMETRY_KEY",
    "Telemetry",
    "end_span",
    "environment_redactor",
    "guarded",
    "mark_failed",
    "report_once",
    "start_span",
    "turn_conversation",
    "turn_telemetry",
]

#: The instrumentation scope name of every span and metric the plugin makes.
SCOPE_NAME = "ostinato_opentelemetry"
#: The context key under which a turn span keeps its client's :class:`Telemetry`.
TELEMETRY_KEY = otel_context.create_key("ostinato_opentelemetry.telemetry")
#: The context key under which a turn span keeps its request's conversation id (for the
#: ``chat`` spans of its model rounds, which see the prompt but not the request).
CONVERSATION_KEY = otel_context.create_key("ostinato_opentelemetry.conversation")
#: The most characters of a span status description (an error's message).
_STATUS_LENGTH = 1024
#: Masked past the bound, so a credential the bound cuts is masked whole first.
_MASK_MARGIN = 512

_log = logging.getLogger(SCOPE_NAME)
_reported: set[str] = set()
_reported_lock = threading.Lock()

# The conventions' advisory bucket boundaries.
_DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48,
                     40.96, 81.92)  # fmt: skip
_TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
                  16777216, 67108864)  # fmt: skip


def report_once(what: str, error: BaseException) -> None:
    """Log a failure of the instrumentation itself once per kind, never raising."""
    key = f"{what}:{type(error).__qualname__}"
    with _reported_lock:
        if key in _reported:
            return
        _reported.add(key)
    _log.warning(
        "OpenTelemetry instrumentation failed while %s (%s: %s); the turn goes on, "
        "and further failures of this kind are not logged",
        what,
        type(error).__qualname__,
        error,
    )


def guarded(what: str, attributes: Any) -> Mapping[str, Any]:
    """``attributes()`` or, when computing them failed, no attributes (reported once)."""
    try:
        result: Mapping[str, Any] = attributes()
    except Exception as error:
        report_once(what, error)
        return {}
    return result


def start_span(
    tracer: trace.Tracer, name: str, kind: trace.SpanKind, attributes: Mapping[str, Any]
) -> trace.Span:
    """A new span, or a non-recording one when the SDK failed to start it (reported once)."""
    try:
        return tracer.start_span(name, kind=kind, attributes=attributes)
    except Exception as error:
        report_once("starting a span", error)
        return trace.INVALID_SPAN


def environment_redactor() -> Redactor:
    """Masks the value of every credential-named environment variable
    (``OPENAI_API_KEY``, ``AWS_SECRET_ACCESS_KEY``…) and whatever looks like a credential."""
    return Redactor(value for name, value in os.environ.items() if is_credential_name(name))


def _http_dup() -> bool:
    opted = os.environ.get("OTEL_SEMCONV_STABILITY_OPT_IN", "")
    return "http/dup" in (v.strip().lower() for v in opted.split(","))


@dataclass(frozen=True, slots=True)
class Telemetry:
    """What the advisors and the scopes share: settings, tracer, instruments, redactor.

    Attributes:
        http_dup: ``OTEL_SEMCONV_STABILITY_OPT_IN`` holds ``http/dup``: HTTP spans carry
            the old HTTP attribute names as well as the stable ones.
    """

    settings: OpenTelemetrySettings
    provider_name: str
    tracer: trace.Tracer
    duration: metrics.Histogram
    token_usage: metrics.Histogram
    redactor: Redactor = field(default_factory=Redactor)
    http_dup: bool = False

    def captured(self, text: str) -> str:
        """``text`` fit for a content attribute: credentials masked, then bounded."""
        limit = self.settings.max_attribute_length
        # Mask a little more than is kept, so a credential cut at the limit is masked whole.
        head = self.redactor.mask(text[: limit + _MASK_MARGIN])
        return bounded(head, limit, dropped=max(len(text) - limit - _MASK_MARGIN, 0))

    def masked(self, text: str) -> str:
        """A piece of ``text`` to be shaped into a content attribute: credentials masked;
        what lies far past the attribute's bound is cut (it could never be kept)."""
        cut = self.settings.max_attribute_length + _MASK_MARGIN
        if len(text) <= cut:
            return self.redactor.mask(text)
        return f"{self.redactor.mask(text[:cut])}…[truncated {len(text) - cut} chars]"

    def describe(self, error: BaseException) -> str:
        """An error's message for a span status: credentials masked, bounded."""
        text = str(error) or type(error).__qualname__
        head = self.redactor.mask(text[: _STATUS_LENGTH + _MASK_MARGIN])
        return bounded(head, _STATUS_LENGTH)

    @classmethod
    def create(cls, settings: OpenTelemetrySettings, provider_name: str | None) -> Telemetry:
        """Tracer and instruments from the global providers (proxies until one is set)."""
        with _instruments_lock:
            if not _instruments:
                _instruments.append(_create_instruments())
            tracer, duration, token_usage = _instruments[0]
        return cls(
            settings=settings,
            provider_name=provider_name or settings.provider_name or "ostinato",
            tracer=tracer,
            duration=duration,
            token_usage=token_usage,
            redactor=environment_redactor(),
            http_dup=_http_dup(),
        )


def turn_telemetry() -> Telemetry | None:
    """The :class:`Telemetry` of the instrumented turn running here, if any."""
    value = otel_context.get_value(TELEMETRY_KEY)
    return value if isinstance(value, Telemetry) else None


def turn_conversation() -> str | None:
    """The conversation id of the instrumented turn running here, if it has one."""
    value = otel_context.get_value(CONVERSATION_KEY)
    return value if isinstance(value, str) else None


def mark_failed(telemetry: Telemetry, span: Span, error: BaseException, kind: str) -> None:
    """Set ``error.type`` to ``kind`` and the span's status to ``ERROR`` (never raises)."""
    try:
        span.set_attribute("error.type", kind)
        span.set_status(Status(StatusCode.ERROR, telemetry.describe(error)))
    except Exception as failure:
        report_once("recording a failure", failure)


def end_span(telemetry: Telemetry, span: Span, error: BaseException | None, what: str) -> None:
    """End ``span``, after marking it failed (``error.type``, ``ERROR`` status) when it
    ends with ``error``. Never raises: a failure is reported once, as ``what``."""
    try:
        if error is not None:
            mark_failed(telemetry, span, error, type(error).__qualname__)
        span.end()
    except Exception as failure:
        report_once(what, failure)


_instruments_lock = threading.Lock()
_instruments: list[tuple[trace.Tracer, metrics.Histogram, metrics.Histogram]] = []


def _create_instruments() -> tuple[trace.Tracer, metrics.Histogram, metrics.Histogram]:
    from ostinato_opentelemetry import __version__

    meter = metrics.get_meter(SCOPE_NAME, __version__)
    return (
        trace.get_tracer(SCOPE_NAME, __version__),
        meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="GenAI operation duration",
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
        ),
        meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used",
            explicit_bucket_boundaries_advisory=_TOKEN_BUCKETS,
        ),
    )
