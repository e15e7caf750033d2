"""Setting up the OpenTelemetry SDK from the standard ``OTEL_*`` variables, when the
application set no provider itself."""

from __future__ import annotations

import logging
import os
import threading

from opentelemetry import metrics, trace

from ostinato_opentelemetry._telemetry import report_once

__all__ = ["configure_from_environment", "export_requested"]

_lock = threading.Lock()
_ENDPOINTS = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
)


def export_requested() -> bool:
    """Whether the ``OTEL_*`` variables ask for OTLP export: an OTLP endpoint is set, or
    ``OTEL_TRACES_EXPORTER`` names ``otlp`` (``OTEL_SDK_DISABLED=true`` says no)."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if any(os.environ.get(name) for name in _ENDPOINTS):
        return True
    return "otlp" in os.environ.get("OTEL_TRACES_EXPORTER", "").lower()


def _wanted(signal: str) -> bool:
    chosen = os.environ.get(f"OTEL_{signal}_EXPORTER", "otlp").lower()
    return "otlp" in chosen


def configure_from_environment() -> bool:
    """Install an SDK tracer (and meter) provider exporting over OTLP/HTTP in batches,
    when export is requested and the application set no provider. Returns whether it
    installed one. Never raises: a failure is logged once and the turn goes on."""
    if not export_requested():
        return False
    with _lock:
        try:
            return _configure()
        except Exception as error:
            report_once("setting up the OpenTelemetry SDK from OTEL_* variables", error)
            return False


#: The loggers of the OTLP/HTTP exporters and of the SDK's batch processors, which log
#: every failed batch (an exporter that raises, a full queue).
EXPORTER_LOGGERS = (
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.proto.http.metric_exporter",
    "opentelemetry.exporter.otlp.common.http",
    "opentelemetry.sdk._shared_internal",
    "opentelemetry.sdk.trace.export",
)


class _OncePerMessage(logging.Filter):
    """Lets each message of an exporter through once; the first one says so."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[tuple[str, object]] = set()
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        key = (record.name, record.msg)
        with self._lock:
            if key in self._seen:
                return False
            self._seen.add(key)
        record.msg = f"{record.msg} (OpenTelemetry export; repeats of this are not logged)"
        return True


def _quiet_repeats() -> None:
    once = _OncePerMessage()
    for name in EXPORTER_LOGGERS:
        logging.getLogger(name).addFilter(once)


def _configure() -> bool:
    from opentelemetry.sdk.resources import Resource

    resource = Resource.create()  # OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
    _quiet_repeats()
    installed = False
    if _wanted("TRACES") and not _sdk_tracer_provider():
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        tracer_provider = TracerProvider(resource=resource)
        tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        trace.set_tracer_provider(tracer_provider)
        installed = True
    if _wanted("METRICS") and not _sdk_meter_provider():
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        reader = PeriodicExportingMetricReader(OTLPMetricExporter())
        metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=[reader]))
        installed = True
    return installed


def _sdk_tracer_provider() -> bool:
    from opentelemetry.sdk.trace import TracerProvider

    return isinstance(trace.get_tracer_provider(), TracerProvider)


def _sdk_meter_provider() -> bool:
    from opentelemetry.sdk.metrics import MeterProvider

    return isinstance(metrics.get_meter_provider(), MeterProvider)
