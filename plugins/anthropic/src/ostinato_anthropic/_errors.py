"""From what the API said to ostinato's typed :class:`ModelError` s.

Anthropic's error body is ``{"type": "error", "error": {"type": ..., "message": ...},
"request_id": ...}``, over HTTP or as an ``error`` event inside a stream (where the status
is inferred from the error type: ``overloaded_error`` is 529, ``rate_limit_error`` 429).
Each becomes the error class of its status, carrying the message, the error type, the
request id and the wait the server asked for. Bodies in other shapes (a proxy's HTML, a
gateway's text) keep their text. The API key never appears: if echoed, it is masked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ostinato.errors import ModelError
from ostinato.redaction import Redactor
from ostinato.transport import error_class_for_status, parse_retry_after, redact
from ostinato_anthropic._normalise import request_id, status_for_error_type

__all__ = ["error_from_payload"]

_HINTS = {
    401: "fix: check OSTINATO_ANTHROPIC_API_KEY (or ANTHROPIC_API_KEY)",
    404: "fix: check the model name (OSTINATO_MODEL=anthropic:<model>) and the base URL",
}


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _error_object(payload: Any) -> Mapping[str, Any]:
    if not isinstance(payload, Mapping):
        return {"message": _text(payload)} if payload is not None else {}
    inner = payload.get("error")
    if isinstance(inner, Mapping):
        return inner
    if isinstance(inner, str):
        return {"message": inner, "type": payload.get("type")}
    return payload


def error_from_payload(
    payload: Any,
    *,
    status: int | None,
    provider: str,
    headers: Mapping[str, str] | None = None,
    secret: str | Redactor | None = None,
    fallback_message: str | None = None,
) -> ModelError:
    """The typed error for an error ``payload`` (a parsed body or a stream's error event).

    ``status`` is the HTTP status; for an error event inside a 200 stream pass ``None``
    and the status that error type has over HTTP is used.
    """
    error = _error_object(payload)
    error_type = _text(error.get("type"))
    if status is None:
        status = status_for_error_type(error_type)
    message = _text(error.get("message")) or fallback_message or "no message"
    headers = headers or {}
    found_id = request_id(headers)
    if found_id is None and isinstance(payload, Mapping):
        found_id = _text(payload.get("request_id"))
    label = f"{provider} error {status}" if status is not None else f"{provider} error"
    if error_type:
        label += f" ({error_type})"
    text = f"{label}: {message}"
    if status in _HINTS:
        text += "\n" + _HINTS[status]
    cls = error_class_for_status(status)
    # Every field a server filled is masked too: an error's repr shows them all.
    return cls(
        redact(text, secret),
        provider=provider,
        status=status,
        error_type=None if error_type is None else redact(error_type, secret),
        request_id=None if found_id is None else redact(found_id, secret),
        retry_after=parse_retry_after(headers),
    )
