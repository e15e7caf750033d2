"""What a plugin that adds routes to ``ostinato serve`` builds on.

``ostinato serve`` mounts the routes of every distribution that declares an entry point
in the group ``ostinato_serve.routes`` (see :func:`ostinato_serve.create_app`). Such
routes share the server's state and rules; this module is their public surface, so a
route plugin never imports serve's private modules:

- :class:`ServeState`: the served client, its settings, the turns waiting for a decision
  (:class:`PendingTurn`) and the running turns;
- :class:`Guard`: the token check and body limit serve puts in front of every route;
- :class:`ApiError`: a request answered with an error status, rendered like serve's own;
- :func:`parse_decisions`: approval decisions in serve's JSON form, checked against the
  calls a turn waits for;
- :func:`failure_body`: the error body of a failure inside a turn, its message masked.

Starlette is imported with this module: import it from the route factory, not at the
top of a plugin module.
"""

from __future__ import annotations

from ostinato_serve._decisions import parse_decisions
from ostinato_serve._guard import Guard
from ostinato_serve._problems import ApiError
from ostinato_serve._sse import failure_body
from ostinato_serve._state import PendingTurn, ServeState

__all__ = ["ApiError", "Guard", "PendingTurn", "ServeState", "failure_body", "parse_decisions"]
