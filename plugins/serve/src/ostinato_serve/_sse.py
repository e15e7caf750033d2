"""Server-sent events: framing, and the response that streams them.

A plain :class:`starlette.responses.StreamingResponse` carries the stream: Starlette
already watches for the client disconnecting while it streams (on ASGI 2.3 servers such as
uvicorn) and cancels the body iterator, which closes the turn's event iterator and so
cancels the turn. Nothing here knows about turns.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, Final, TypeVar

from starlette.responses import StreamingResponse

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


def sse(data: Mapping[str, Any] | str, event: str | None = None) -> bytes:
    """One SSE message: ``event: <event>`` (when given) and ``data: <JSON or text>``."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event is not None else ""
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


def event_stream_response(body: AsyncIterator[bytes]) -> StreamingResponse:
    """A ``200 text/event-stream`` response streaming ``body``."""
    return StreamingResponse(body, media_type="text/event-stream", headers=SSE_HEADERS)


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
