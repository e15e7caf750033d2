"""Server-sent events: framing, and the response that streams them.

The response is Starlette's ``StreamingResponse`` (no SSE library is needed for a stream
that only goes one way and ends): on ASGI 2.3 servers such as uvicorn it watches for the
client disconnecting while it streams and cancels the body iterator, which closes the
turn's event iterator and so cancels the turn. Its ``on_close`` gives the turn's slot
back however the response ends. Nothing here knows about turns.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, Final, TypeVar

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from ostinato.errors import ModelError, OstinatoError
from ostinato.redaction import mask_credentials
from ostinato_serve._problems import error_body

__all__ = [
    "SSE_HEADERS",
    "closing",
    "error_event",
    "event_stream_response",
    "failure_body",
    "sse",
]

T = TypeVar("T")

#: Headers of every event stream: never cached, never buffered by a proxy.
SSE_HEADERS: Final = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def sse(data: Mapping[str, Any] | str, event: str | None = None, id: int | None = None) -> bytes:
    """One SSE message: ``id: <id>`` and ``event: <event>`` (when given) and
    ``data: <JSON or text>``."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event is not None else ""
    if id is not None:
        head = f"id: {id}\n{head}"
    return f"{head}data: {text}\n\n".encode()


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def failure_body(exc: BaseException) -> dict[str, Any]:
    """The error body for a failure inside a turn: ostinato's errors by their class (the
    message masked), anything else as ``internal_error`` without its text (it may carry
    what the server must not show)."""
    if isinstance(exc, OstinatoError):
        kind = "model_error" if isinstance(exc, ModelError) else _snake(type(exc).__name__)
        return error_body(kind, mask_credentials(str(exc)))
    return error_body(
        "internal_error", f"the turn failed on the server ({type(exc).__name__}); see its log"
    )


def error_event(exc: BaseException) -> bytes:
    """The ``event: error`` message for ``exc``."""
    return sse(failure_body(exc), event="error")


class _EventStream(StreamingResponse):
    """A streaming response that calls ``on_close`` once it is over, however it ends —
    also when the client left before the body was started (its ``finally`` never runs)."""

    def __init__(self, body: AsyncIterator[bytes], on_close: Callable[[], None]) -> None:
        super().__init__(body, media_type="text/event-stream", headers=SSE_HEADERS)
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._on_close()


def event_stream_response(
    body: AsyncIterator[bytes], on_close: Callable[[], None] = lambda: None
) -> StreamingResponse:
    """A ``200 text/event-stream`` response streaming ``body``; ``on_close`` is called
    once when the response is over (finished, failed or abandoned)."""
    return _EventStream(body, on_close)


@asynccontextmanager
async def closing(iterator: AsyncIterator[T]) -> AsyncIterator[AsyncIterator[T]]:
    """``iterator``, closed (``aclose()``) when the block exits however it exits: a turn's
    iterator closed early cancels the turn at once, not at garbage collection."""
    try:
        yield iterator
    finally:
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            await aclose()
