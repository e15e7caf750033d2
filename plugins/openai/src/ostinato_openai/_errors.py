"""What an error body says, read for ostinato's typed :class:`ModelError` s.

Error bodies come in several shapes: OpenAI's ``{"error": {"message", "type", "code",
"param"}}``, a bare ``{"error": "text"}``, FastAPI's ``{"detail": ...}`` (Mistral),
``{"message": ...}``, a list holding one of these, or plain text. Each becomes the error
class of its HTTP status, carrying the server's message, type, code and request id, and
the wait it asked for. The API key never appears: if a server echoes it, it is masked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato.http import ErrorReport, error_object, json_text

__all__ = ["REQUEST_ID_HEADERS", "read_error"]

#: Response headers that carry the provider's request id, most specific first.
REQUEST_ID_HEADERS = ("x-request-id", "request-id", "apim-request-id", "x-ms-request-id")


def _error_object(payload: Any) -> Mapping[str, Any]:
    """The mapping describing the error inside ``payload``, whatever its shape."""
    if isinstance(payload, list) and payload:
        payload = payload[0]
    found = error_object(payload)
    if found is not None or not isinstance(payload, Mapping):
        return found or {}
    inner = payload.get("error")
    if isinstance(inner, str):
        return {"message": inner, "type": payload.get("type"), "code": payload.get("code")}
    if "detail" in payload:
        return {"message": json_text(payload["detail"])}
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
            parts.append(
                f"{provider}: {json_text(raw)}" if provider else f"upstream: {json_text(raw)}"
            )
    failed = error.get("failed_generation")
    if failed:
        parts.append(f"failed generation: {json_text(failed)}")
    return f" [{'; '.join(parts)}]" if parts else ""


def read_error(
    payload: Any, status: int | None, headers: Mapping[str, str], fallback: str | None
) -> ErrorReport:
    """What an error ``payload`` says (a parsed body, or a stream's error event).

    ``status`` is the HTTP status; for errors inside a 200 stream pass ``None`` and the
    payload's own ``status_code`` (Groq) or numeric ``code`` (OpenRouter) is used.
    ``fallback`` is the message when the payload has none.
    """
    error = _error_object(payload)
    code = error.get("code")
    if status is None:
        status_hint = error.get("status_code", error.get("status"))
        if isinstance(status_hint, int):
            status = status_hint
        elif isinstance(code, int) and 400 <= code <= 599:
            status = code
    error_type = json_text(error.get("type"))
    request_id = next((headers[h] for h in REQUEST_ID_HEADERS if headers.get(h)), None)
    if request_id is None and isinstance(payload, Mapping):
        request_id = json_text(payload.get("request_id"))
    shown_code = None if code is None or code == status else code  # OpenRouter repeats it
    return ErrorReport(
        json_text(error.get("message")) or fallback or "no message",
        status,
        classification="/".join(str(x) for x in (error_type, shown_code) if x is not None),
        detail=_details(error),
        error_type=error_type,
        code=None if code is None else str(code),
        request_id=request_id,
    )
