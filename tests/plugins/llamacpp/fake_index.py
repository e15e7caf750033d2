"""``FakeIndex``: a package index on loopback (PEP 691 JSON or PEP 503 HTML) whose file
downloads honour ``Range`` requests, recording every request."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ostinato_llamacpp import DistributionFile

__all__ = ["FakeIndex", "pinned"]


def pinned(project: str, filename: str, content: bytes, version: str = "1.0") -> DistributionFile:
    """The pin of ``content`` published as ``filename`` of ``project``."""
    return DistributionFile(
        project, version, filename, hashlib.sha256(content).hexdigest(), len(content)
    )


@dataclass
class FakeIndex:
    """Serves ``files`` ({project: {filename: bytes}}) under ``/simple/``."""

    files: dict[str, dict[str, bytes]] = field(default_factory=dict)
    html: bool = False
    honour_range: bool = True
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    def publish(self, project: str, filename: str, content: bytes) -> DistributionFile:
        """Add a file; return its pin."""
        self.files.setdefault(project, {})[filename] = content
        return pinned(project, filename, content)

    @property
    def url(self) -> str:
        """The index root (``.../simple``)."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/simple"

    def downloads(self) -> list[str]:
        """Paths of file downloads requested so far."""
        return [path for path, _ in self.requests if path.startswith("/files/")]

    def __enter__(self) -> FakeIndex:
        index = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                index.requests.append((self.path, self.headers.get("range")))
                parts = self.path.strip("/").split("/")
                if parts[0] == "simple" and len(parts) == 2 and parts[1] in index.files:
                    self._page(parts[1])
                elif parts[0] == "files" and len(parts) == 3:
                    self._file(index.files.get(parts[1], {}).get(parts[2]))
                else:
                    self.send_error(404)

            def _page(self, project: str) -> None:
                names = sorted(index.files[project])
                if index.html:
                    links = "".join(
                        f'<a href="../../files/{project}/{n}#sha256=x">{n}</a><br/>' for n in names
                    )
                    body = f"<html><body>{links}</body></html>".encode()
                    kind = "text/html"
                else:
                    entries = [{"filename": n, "url": f"/files/{project}/{n}"} for n in names]
                    body = json.dumps({"files": entries}).encode()
                    kind = "application/vnd.pypi.simple.v1+json"
                self._send(200, body, kind)

            def _file(self, content: bytes | None) -> None:
                if content is None:
                    self.send_error(404)
                    return
                wanted = self.headers.get("range")
                if wanted and index.honour_range:
                    start = int(wanted.removeprefix("bytes=").split("-")[0])
                    self._send(206, content[start:], "application/octet-stream")
                else:
                    self._send(200, content, "application/octet-stream")

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
