"""An OTLP/HTTP receiver on loopback that decodes the protobuf payloads it is sent, and a
server that accepts connections and never answers."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

__all__ = ["OtlpReceiver", "SilentServer"]


class OtlpReceiver:
    """Collects the spans (``(service name, span name)``) and metric names sent to it."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, str, dict[str, Any]]] = []
        self.metrics: list[str] = []
        self.changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver._receive(self.path, body)
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The endpoint to put in ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

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

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    return (
        getattr(value, kind)
        if kind in ("string_value", "int_value", "bool_value", "double_value")
        else kind
    )


class SilentServer:
    """Accepts TCP connections and reads, but never answers."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        self._open: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        """The endpoint to put in ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
        return f"http://127.0.0.1:{self._socket.getsockname()[1]}"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self._open.append(connection)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._socket.close()
        for connection in self._open:
            connection.close()
