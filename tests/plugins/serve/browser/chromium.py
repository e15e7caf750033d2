"""The system's Chromium and a real uvicorn on loopback, for the page's browser tests and
the documentation's screenshot.

Chromium comes from the system packages (``scripts/install-browser``), never from
Playwright's own downloads, and runs headless with its background connections off.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
from typing import Any, Final

__all__ = ["CHROMIUM_ARGS", "NO_CHROMIUM", "LoopbackServer", "chromium_path"]

CHROMIUM_ARGS: Final = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

NO_CHROMIUM: Final = (
    "BROWSER TESTS SKIPPED: no Chromium on this machine. Install it with "
    "`scripts/install-browser` (`make test` runs it; it needs root and apt-get), "
    "or point OSTINATO_CHROMIUM at a Chromium binary"
)


def chromium_path() -> str | None:
    """The system's Chromium: ``OSTINATO_CHROMIUM``, else the Debian package's binary."""
    for candidate in (os.environ.get("OSTINATO_CHROMIUM"), "/usr/bin/chromium"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class LoopbackServer:
    """uvicorn serving ``app`` in a thread, on a socket of 127.0.0.1 that already listens:
    a browser may connect at once (the kernel queues the connection until uvicorn
    accepts it), so nothing waits for the server to start."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port: int = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        config = uvicorn.Config(
            app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )
        self.thread.start()

    def stop(self) -> None:
        """Stop serving (open streams get 2 s) and close the socket."""
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.socket.close()
        if self.thread.is_alive():
            raise RuntimeError("the loopback uvicorn did not stop within 10 s")
