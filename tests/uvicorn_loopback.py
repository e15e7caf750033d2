"""An ASGI app served by a real uvicorn on a loopback port, in a thread of the test process.

The socket is bound to a free port of 127.0.0.1 and listens before uvicorn starts, so a
client may connect at once (the kernel queues the connection until uvicorn accepts it):
nothing waits for the server to start. Used by the served-agent tests, the page's browser
tests and the documentation's screenshot, and the MCP demo server over streamable HTTP.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

__all__ = ["serve_on_loopback"]


@contextmanager
def serve_on_loopback(app: Any, *, lifespan: Literal["on", "off"] = "off") -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free loopback port; yields its base URL
    (``http://127.0.0.1:PORT``, no trailing slash). On exit open streams get 2 s, and a
    uvicorn still running 10 s later is an error."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(256)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", lifespan=lifespan, timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        if thread.is_alive():
            raise RuntimeError("the loopback uvicorn did not stop within 10 s")
