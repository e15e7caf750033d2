"""What an error body says, read for ostinato's typed :class:`ModelError` s.

Anthropic's error body is ``{"type": "error", "error": {"type": ..., "message": ...},
"request_id": ...}``, over HTTP or as an ``error`` event inside a stream (where the status
is inferred from the error type: ``overloaded_error`` is 529, ``rate_limit_error`` 429).
Each becomes the error class of its status, carrying the message, the error type, the
request id and the wait the server asked for. Bodies in other shapes (a proxy's HTML, a
gateway's text) keep their text. The API key never appears: if echoed, it is masked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato.http import ErrorReport, error_object, json_text
from ostinato_anthropic._normalise import request_id, status_for_error_type

__all__ = ["read_error"]

_HINTS = {
    401: "fix: check OSTINATO_ANTHROPIC_API_KEY (or ANTHROPIC_API_KEY)",
    404: "fix: check the model name (OSTINATO_MODEL=anthropic:<model>) and the base URL",
}


def _error_object(payload: Any) -> Mapping[str, Any]:
    found = error_object(payload)
    if found is not None or not isinstance(payload, Mapping):
        return found or {}
    inner = payload.get("error")
    if isinstance(inner, str):
        return {"message": inner, "type": payload.get("type")}
    return payload


def read_error(
    payload: Any, status: int | None, headers: Mapping[str, str], fallback: str | None
) -> ErrorReport:
    """What an error ``payload`` says (a parsed body, or a stream's ``error`` event).

    ``status`` is the HTTP status; for an error event inside a 200 stream pass ``None``
    and the status that error type has over HTTP is used. ``fallback`` is the message
    when the payload has none.
    """
    error = _error_object(payload)
    error_type = json_text(error.get("type"))
    if status is None:
        status = status_for_error_type(error_type)
    found_id = request_id(headers)
    if found_id is None and isinstance(payload, Mapping):
        found_id = json_text(payload.get("request_id"))
    return ErrorReport(
        json_text(error.get("message")) or fallback or "no message",
        status,
        classification=error_type or "",
        hint=_HINTS.get(status) if status is not None else None,
        error_type=error_type,
        request_id=found_id,
    )
