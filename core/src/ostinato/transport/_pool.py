"""A connection pool whose bookkeeping stays cheap with hundreds of connections.

httpcore's pool (1.0.x) re-examines every connection each time a request starts or
ends: it asks every idle connection whether its socket became readable (a system call
each), and counts the connections once *per idle connection* — so a pool of *n*
connections costs O(n²) per request. With a few hundred concurrent conversations that
bookkeeping costs more than the HTTP exchange itself. That count also includes busy
connections, so a pool of more than ``max_keepalive_connections`` connections closes its
idle ones as soon as they are released, and has to reconnect on the next burst.

:func:`use_linear_pool` switches an ``httpx.AsyncHTTPTransport``'s pool to
:class:`LinearConnectionPool`, which keeps httpcore's behaviour but does one pass per
change, checks a connection's socket only when it is about to be reused (plus a full
sweep at most once a second), and counts idle connections as idle. Anything other than
the plain pool (a proxy pool, an httpcore whose internals differ) is left alone.
"""

from __future__ import annotations

import time
from typing import Any, Final

import httpcore
import httpx

__all__ = ["LinearConnectionPool", "use_linear_pool"]

#: At most this often every idle connection's socket is checked for a server disconnect.
SWEEP_INTERVAL: Final = 1.0

_REQUIRED = ("_connections", "_requests", "_max_connections", "_max_keepalive_connections")


class LinearConnectionPool(httpcore.AsyncConnectionPool):
    """httpcore's ``AsyncConnectionPool`` with request assignment in linear time."""

    _next_sweep: float = 0.0

    def _assign_requests_to_connections(self) -> list[Any]:
        closing: list[Any] = []
        connections = self._connections
        now = time.monotonic()
        sweep = now >= self._next_sweep
        if sweep:
            self._next_sweep = now + SWEEP_INTERVAL
        kept: list[Any] = []
        idle: list[Any] = []
        for connection in connections:
            if connection.is_closed():
                continue
            if connection.is_idle():
                if sweep and connection.has_expired():
                    closing.append(connection)
                    continue
                idle.append(connection)
            kept.append(connection)
        surplus = len(idle) - self._max_keepalive_connections
        if surplus > 0:
            dropped = idle[:surplus]
            idle = idle[surplus:]
            closing.extend(dropped)
            dropped_ids = {id(c) for c in dropped}
            kept = [c for c in kept if id(c) not in dropped_ids]
        connections[:] = kept

        for pool_request in [r for r in self._requests if r.is_queued()]:
            origin = pool_request.request.url.origin
            chosen = None
            expired: list[Any] = []
            for connection in connections:
                if not (connection.can_handle_request(origin) and connection.is_available()):
                    continue
                if connection.is_idle() and connection.has_expired():
                    expired.append(connection)  # checked now, when it would be reused
                    continue
                chosen = connection
                break
            for connection in expired:
                connections.remove(connection)
                closing.append(connection)
            if chosen is None:
                if len(connections) >= self._max_connections:
                    idle_now = [c for c in connections if c.is_idle()]
                    if not idle_now:
                        continue  # stays queued until a connection frees up
                    connections.remove(idle_now[0])
                    closing.append(idle_now[0])
                chosen = self.create_connection(origin)
                connections.append(chosen)
            pool_request.assign_to_connection(chosen)
        return closing


def use_linear_pool(transport: httpx.AsyncHTTPTransport) -> bool:
    """Switch ``transport``'s pool to :class:`LinearConnectionPool`; False when it is not
    httpcore's plain pool (a proxy), or not shaped as this module expects."""
    pool = getattr(transport, "_pool", None)
    if type(pool) is not httpcore.AsyncConnectionPool:
        return False
    if not all(hasattr(pool, name) for name in _REQUIRED):
        return False
    pool.__class__ = LinearConnectionPool  # same state, cheaper bookkeeping
    return True
