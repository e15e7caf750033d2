"""Reuse: models asking for the same :class:`ServerSpec` share one ``llama-server``.

Each auto-configured client builds its own chat model; loading the same 1 GB model into
a second process would double memory and start-up time for nothing. So servers are
counted out per spec: :func:`acquire_server` hands out the existing server (or a new,
not yet started one) and :func:`release_server` stops it when its last user lets go.
Servers nobody released are stopped at interpreter exit by :mod:`._server`.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ostinato_llamacpp._server import LlamaServer, ServerSpec

__all__ = ["acquire_server", "release_server", "shared_servers"]

_lock = threading.Lock()
_servers: dict[tuple[ServerSpec, Path | None], tuple[LlamaServer, int]] = {}


def acquire_server(
    spec: ServerSpec, *, startup_timeout: float = 120.0, log_dir: Path | None = None
) -> LlamaServer:
    """The shared server for ``spec`` (created if there is none), counted as one more user.

    The server may not be started yet: call :meth:`LlamaServer.start` (a no-op while it
    runs). The first caller's ``startup_timeout`` applies.
    """
    key = (spec, log_dir)
    with _lock:
        server, users = _servers.get(key, (None, 0))
        if server is None:
            server = LlamaServer(spec, startup_timeout=startup_timeout, log_dir=log_dir)
        _servers[key] = (server, users + 1)
        return server


def release_server(server: LlamaServer) -> None:
    """One user fewer for ``server``; the last one's release stops it."""
    with _lock:
        for key, (shared, users) in _servers.items():
            if shared is server:
                if users > 1:
                    _servers[key] = (shared, users - 1)
                    return
                del _servers[key]
                break
        else:
            return
    server.stop()


def shared_servers() -> dict[LlamaServer, int]:
    """Each shared server and how many users hold it (a snapshot, for diagnostics)."""
    with _lock:
        return dict(_servers.values())


def _after_fork_in_child() -> None:
    global _lock
    _lock = threading.Lock()  # a lock held by another thread at fork time stays held


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
