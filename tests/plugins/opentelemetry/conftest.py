"""One SDK tracer and meter provider for the process, with in-memory exporters; each
test gets them empty, and tool call tracing removed afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ostinato_opentelemetry import uninstrument_tools
from tests.fakes.distributions import clean_environment, fake_distributions

__all__ = ["Recorded", "clean_environment", "fake_distributions", "recorded"]

_EXPORTER = InMemorySpanExporter()
_READER = InMemoryMetricReader()
_TRACER_PROVIDER = TracerProvider()
_TRACER_PROVIDER.add_span_processor(SimpleSpanProcessor(_EXPORTER))


@dataclass(frozen=True)
class Recorded:
    """The finished spans and the metric reader of one test."""

    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader

    def spans(self) -> list[ReadableSpan]:
        """Finished spans, in the order they ended."""
        return list(self.exporter.get_finished_spans())


@pytest.fixture
def recorded() -> Iterator[Recorded]:
    """The process's SDK providers, installed once; empty for this test."""
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        trace.set_tracer_provider(_TRACER_PROVIDER)
    if not isinstance(metrics.get_meter_provider(), MeterProvider):
        metrics.set_meter_provider(MeterProvider(metric_readers=[_READER]))
    _EXPORTER.clear()
    yield Recorded(_EXPORTER, _READER)
    uninstrument_tools()
    _EXPORTER.clear()
