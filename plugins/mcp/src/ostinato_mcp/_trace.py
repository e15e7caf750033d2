"""W3C trace context in a request's ``_meta``: the current span's ``traceparent`` (and
``tracestate``) travel with each tool call when OpenTelemetry is installed and a span
is current (the ``ostinato-otel`` plugin makes one per tool call), so the server's spans
join the client's trace. Without OpenTelemetry, or without a span, nothing is sent."""

from __future__ import annotations

from typing import Any

__all__ = ["trace_meta"]


def trace_meta() -> dict[str, Any] | None:
    """The ``_meta`` entries of the current trace context, or ``None``."""
    try:
        from opentelemetry import propagate
    except ImportError:
        return None
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    found: dict[str, Any] = {k: carrier[k] for k in ("traceparent", "tracestate") if k in carrier}
    return found or None
