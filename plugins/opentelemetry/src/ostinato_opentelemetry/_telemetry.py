"""The instrumentation's shared state: tracer, meter, instruments and settings."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from opentelemetry import metrics, trace

from ostinato_opentelemetry._settings import OpenTelemetrySettings

__all__ = ["SCOPE_NAME", "Telemetry", "guarded", "report_once", "start_span"]

#: The instrumentation scope name of every span and metric the plugin makes.
SCOPE_NAME = "ostinato_opentelemetry"

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


@dataclass(frozen=True, slots=True)
class Telemetry:
    """What the advisors and the tool scope share: settings, tracer and instruments."""

    settings: OpenTelemetrySettings
    provider_name: str
    tracer: trace.Tracer
    duration: metrics.Histogram
    token_usage: metrics.Histogram

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
        )


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
