"""From what the server said to ostinato's typed :class:`ModelError` s.

Error bodies come in several shapes: OpenAI's ``{"error": {"message", "type", "code",
"param"}}``, a bare ``{"error": "text"}``, FastAPI's ``{"detail": ...}`` (Mistral),
``{"message": ...}``, a list holding one of these, or plain text. Each becomes the error
class of its HTTP status, carrying the server's message, type, code and request id, and
the wait it asked for. The API key never appears: if a server echoes it, it is masked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ostinato.errors import ModelError
from ostinato.redaction import Redactor
from ostinato.transport import error_class_for_status, parse_retry_after, redact

__all__ = ["REQUEST_ID_HEADERS", "error_from_payload"]

#: Response headers that carry the provider's request id, most specific first.
REQUEST_ID_HEADERS = ("x-request-id", "request-id", "apim-request-id", "x-ms-request-id")


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _error_object(payload: Any) -> Mapping[str, Any]:
    """The mapping describing the error inside ``payload``, whatever its shape."""
    if isinstance(payload, list) and payload:
        payload = payload[0]
    if not isinstance(payload, Mapping):
        return {"message": _text(payload)} if payload is not None else {}
    inner = payload.get("error")
    if isinstance(inner, Mapping):
        return inner
    if isinstance(inner, str):
        return {"message": inner, "type": payload.get("type"), "code": payload.get("code")}
    if "detail" in payload:
        return {"message": _text(payload["detail"])}
    return payload


def _details(error: Mapping[str, Any]) -> str:
    """The extra facts servers add: the offending parameter, upstream provider, raw text."""
    parts = []
    param = error.get("param")
    if param:
        parts.append(f"param: {param}")
    metadata = error.get("metadata")
    if isinstance(metadata, Mapping):
        provider = metadata.get("provider_name")
        raw = metadata.get("raw")
        if raw:
            parts.append(f"{provider}: {_text(raw)}" if provider else f"upstream: {_text(raw)}")
    failed = error.get("failed_generation")
    if failed:
        parts.append(f"failed generation: {_text(failed)}")
    return f" [{'; '.join(parts)}]" if parts else ""


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

    ``status`` is the HTTP status; for errors inside a 200 stream pass ``None`` and the
    payload's own ``status_code`` (Groq) or numeric ``code`` (OpenRouter) is used.
    """
    error = _error_object(payload)
    code = error.get("code")
    if status is None:
        status_hint = error.get("status_code", error.get("status"))
        if isinstance(status_hint, int):
            status = status_hint
        elif isinstance(code, int) and 400 <= code <= 599:
            status = code
    message = _text(error.get("message")) or fallback_message or "no message"
    error_type = _text(error.get("type"))
    headers = headers or {}
    request_id = next((headers[h] for h in REQUEST_ID_HEADERS if headers.get(h)), None)
    if request_id is None and isinstance(payload, Mapping):
        request_id = _text(payload.get("request_id"))
    retry_after = parse_retry_after(headers)
    label = f"{provider} error {status}" if status is not None else f"{provider} error"
    shown_code = None if code is None or code == status else code  # OpenRouter repeats it
    classification = "/".join(str(x) for x in (error_type, shown_code) if x is not None)
    if classification:
        label += f" ({classification})"
    text = redact(f"{label}: {message}{_details(error)}", secret)
    cls = error_class_for_status(status)
    # Every field a server filled is masked too: an error's repr shows them all.
    return cls(
        text,
        provider=provider,
        status=status,
        error_type=None if error_type is None else redact(error_type, secret),
        code=None if code is None else redact(str(code), secret),
        request_id=None if request_id is None else redact(request_id, secret),
        retry_after=retry_after,
    )
