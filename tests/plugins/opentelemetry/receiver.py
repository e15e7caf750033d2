"""An OTLP/HTTP receiver on loopback that decodes the protobuf payloads it is sent, and a
server that accepts connections and never answers (both on the tests' threaded loopback
server, which drops open connections when it stops)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from tests.fakes.loopback import ThreadedServer, http_head, read_request

__all__ = ["OtlpReceiver", "SilentServer"]


class OtlpReceiver(ThreadedServer):
    """Collects the spans (``(service name, span name)``) and metric names sent to it."""

    def __init__(self) -> None:
        super().__init__(api_root="", name="otlp-receiver")
        self.spans: list[tuple[str, str, dict[str, Any]]] = []
        self.metrics: list[str] = []
        self.changed = threading.Condition()

    @property
    def url(self) -> str:
        """The endpoint to put in ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
        return self.base_url

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (request := await read_request(reader)) is not None:
            self._receive(request.target, request.body)
            reply = ExportTraceServiceResponse().SerializeToString()
            headers = {"content-type": "application/x-protobuf", "content-length": str(len(reply))}
            writer.write(http_head(200, headers) + reply)
            await writer.drain()

    def _receive(self, path: str, body: bytes) -> None:
        with self.changed:
            if path == "/v1/traces":
                request = ExportTraceServiceRequest.FromString(body)
                for resource_spans in request.resource_spans:
                    service = next(
                        (
                            a.value.string_value
                            for a in resource_spans.resource.attributes
                            if a.key == "service.name"
                        ),
                        "",
                    )
                    for scope_spans in resource_spans.scope_spans:
                        for span in scope_spans.spans:
                            attributes = {a.key: _value(a.value) for a in span.attributes}
                            self.spans.append((service, span.name, attributes))
            elif path == "/v1/metrics":
                metrics = ExportMetricsServiceRequest.FromString(body)
                for resource_metrics in metrics.resource_metrics:
                    for scope_metrics in resource_metrics.scope_metrics:
                        self.metrics.extend(m.name for m in scope_metrics.metrics)
            self.changed.notify_all()


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    return (
        getattr(value, kind)
        if kind in ("string_value", "int_value", "bool_value", "double_value")
        else kind
    )


class SilentServer(ThreadedServer):
    """Accepts TCP connections and reads, but never answers."""

    def __init__(self) -> None:
        super().__init__(api_root="", name="silent-server")

    @property
    def url(self) -> str:
        """The endpoint to put in ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
        return self.base_url

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await reader.read(65536):
            pass
