"""The server's gate, as one ASGI middleware: the bearer token and the body size limit.

Every ``/api/*`` and ``/v1/*`` request but ``/api/info`` needs the token when one is
configured (compared in constant time); the page's files and ``/healthz`` do not. A body
announced larger than the limit is refused before it is read; one that turns out larger
while it is read stops with ``413`` when the endpoint reads it.
"""

from __future__ import annotations

import hmac
from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ostinato_serve._problems import ApiError, error_response

__all__ = ["Guard"]

_PROTECTED: Final = ("/api/", "/v1/")
_OPEN: Final = frozenset({"/api/info"})


def _route_path(scope: Scope) -> str:
    """The path inside this app: mounted under a prefix (``app.mount("/agent", ...)``),
    ``path`` still carries the prefix, which ``root_path`` names."""
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def _too_large(limit: int) -> ApiError:
    return ApiError(
        413,
        "request_too_large",
        f"the request body is over {limit} bytes, the most this server accepts "
        f"(OSTINATO_SERVE_MAX_BODY_BYTES)",
    )


class Guard:
    """Checks the token and limits the body of each HTTP request to ``app``."""

    def __init__(self, app: ASGIApp, *, token: str | None, max_body_bytes: int) -> None:
        self.app = app
        self._token = token.encode() if token else None
        self._limit = max_body_bytes

    def _authorized(self, scope: Scope) -> bool:
        if self._token is None:
            return True
        path = _route_path(scope)
        if path in _OPEN or not path.startswith(_PROTECTED):
            return True
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, given = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(
                    given.strip(), self._token
                )
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem: ApiError | None = None
        if scope["method"] == "OPTIONS":
            pass  # a CORS preflight never carries the token
        elif not self._authorized(scope):
            problem = ApiError(
                401,
                "unauthorized",
                "missing or wrong bearer token; expected 'Authorization: Bearer <token>' "
                "with the server's OSTINATO_SERVE_TOKEN",
                {"WWW-Authenticate": "Bearer"},
            )
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > self._limit:
                problem = problem or _too_large(self._limit)
        if problem is not None:
            await error_response(problem)(scope, receive, send)
            return
        await self.app(scope, self._limited(receive), send)

    def _limited(self, receive: Receive) -> Receive:
        seen = 0
        limit = self._limit

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _too_large(limit)
            return message

        return limited
