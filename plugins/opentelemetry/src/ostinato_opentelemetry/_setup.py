"""Setting up the OpenTelemetry SDK from the standard ``OTEL_*`` variables, when the
application set no provider itself.

``OTEL_TRACES_EXPORTER`` and ``OTEL_METRICS_EXPORTER`` are comma-separated lists, as the
OpenTelemetry specification has them: ``otlp`` (OTLP over HTTP/protobuf), ``console``
(JSON on stderr, no collector needed) and ``none``. Another value is logged once and
ignored; nothing here raises into the application.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import Any, Final

from opentelemetry import metrics, trace

from ostinato_opentelemetry._telemetry import SCOPE_NAME, report_once

__all__ = ["chosen_exporters", "configure_from_environment", "export_requested"]

_lock = threading.Lock()
_log = logging.getLogger(SCOPE_NAME)
_ENDPOINTS = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
)
#: The exporters the plugin sets up itself.
_SUPPORTED: Final = ("otlp", "console", "none")
#: Standard values it does not set up (the application can, with its own provider).
_OTHER_STANDARD: Final = frozenset({"zipkin", "jaeger", "prometheus", "logging"})
_warned: set[tuple[str, str]] = set()
_warned_lock = threading.Lock()


def _values(name: str) -> list[str]:
    raw = os.environ.get(name, "")
    return [value.strip().lower() for value in raw.split(",") if value.strip()]


def _warn_once(name: str, value: str) -> None:
    with _warned_lock:  # not _lock: this runs while _configure holds it
        if (name, value) in _warned:
            return
        _warned.add((name, value))
    shown = os.environ.get(name, "")
    if value in _OTHER_STANDARD:
        found = (
            f"{name}={shown!r} names {value!r}, a standard exporter ostinato-opentelemetry "
            "does not set up; it is ignored"
        )
        fix = (
            f"set up the SDK yourself with that exporter (trace.set_tracer_provider(...) "
            f"before the first client), or set {name} to otlp or console"
        )
    else:
        found = f"{name}={shown!r}: unknown exporter {value!r}, ignored"
        fix = (
            f"set {name} to a comma-separated list of {', '.join(_SUPPORTED)} "
            "(console prints each span as JSON on stderr, no collector needed)"
        )
    _log.warning("%s; expected %s\nfix: %s", found, " / ".join(_SUPPORTED), fix)


def _otlp_asked() -> bool:
    if any(os.environ.get(name) for name in _ENDPOINTS):
        return True
    return any("otlp" in _values(f"OTEL_{s}_EXPORTER") for s in ("TRACES", "METRICS"))


def chosen_exporters(signal: str) -> tuple[str, ...]:
    """The exporters ``OTEL_{signal}_EXPORTER`` chooses for ``signal`` (``TRACES`` or
    ``METRICS``), in order, ``otlp`` and ``console`` only.

    Unset, a signal is exported over OTLP when OTLP is asked for at all (an
    ``OTEL_EXPORTER_OTLP_*ENDPOINT``, or either variable naming ``otlp``), else not at
    all. ``none`` chooses nothing; any other value is logged once and ignored.
    """
    name = f"OTEL_{signal}_EXPORTER"
    if not os.environ.get(name, "").strip():
        return ("otlp",) if _otlp_asked() else ()
    chosen: list[str] = []
    for value in _values(name):
        if value in ("otlp", "console"):
            if value not in chosen:
                chosen.append(value)
        elif value != "none":
            _warn_once(name, value)
    return tuple(chosen)


def export_requested() -> bool:
    """Whether the ``OTEL_*`` variables ask for export: an OTLP endpoint is set, or
    ``OTEL_TRACES_EXPORTER`` / ``OTEL_METRICS_EXPORTER`` names ``otlp`` or ``console``
    (``OTEL_SDK_DISABLED=true`` says no)."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if not any(
        os.environ.get(name)
        for name in (*_ENDPOINTS, "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER")
    ):
        return False
    return bool(chosen_exporters("TRACES") or chosen_exporters("METRICS"))


def configure_from_environment() -> bool:
    """Install an SDK tracer (and meter) provider exporting what ``OTEL_*`` chooses
    (OTLP/HTTP, or the console) in batches, when export is requested and the application
    set no provider. Returns whether it installed one. Never raises: a failure is logged
    once and the turn goes on."""
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


def _span_exporter(name: str) -> Any:
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        # stderr: a command's own output (an answer on stdout) stays readable
        return ConsoleSpanExporter(out=sys.stderr)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def _metric_exporter(name: str) -> Any:
    if name == "console":
        from opentelemetry.sdk.metrics.export import ConsoleMetricExporter

        return ConsoleMetricExporter(out=sys.stderr)
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

    return OTLPMetricExporter()


def _configure() -> bool:
    from opentelemetry.sdk.resources import Resource

    resource = Resource.create()  # OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
    _quiet_repeats()
    installed = False
    traces = chosen_exporters("TRACES")
    if traces and not _sdk_tracer_provider():
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        tracer_provider = TracerProvider(resource=resource)
        for name in traces:
            tracer_provider.add_span_processor(BatchSpanProcessor(_span_exporter(name)))
        trace.set_tracer_provider(tracer_provider)
        installed = True
    chosen = chosen_exporters("METRICS")
    if chosen and not _sdk_meter_provider():
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        readers = [PeriodicExportingMetricReader(_metric_exporter(name)) for name in chosen]
        metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=readers))
        installed = True
    return installed


def _sdk_tracer_provider() -> bool:
    from opentelemetry.sdk.trace import TracerProvider

    return isinstance(trace.get_tracer_provider(), TracerProvider)


def _sdk_meter_provider() -> bool:
    from opentelemetry.sdk.metrics import MeterProvider

    return isinstance(metrics.get_meter_provider(), MeterProvider)
