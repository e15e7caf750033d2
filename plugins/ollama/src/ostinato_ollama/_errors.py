"""What Ollama's error body says, read for ostinato's typed :class:`ModelError` s.

Ollama's error body is ``{"error": "<message>"}``, a plain string, over HTTP or as a line
of a stream; a wrong path gets plain text (``404 page not found``). Each becomes the
error class of its status, with a hint where the cause is common: a model not pulled, a
model that cannot use tools (or think), a missing key for ollama.com, a server that is
not running. The API key never appears: if echoed, it is masked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ostinato.http import ErrorReport

__all__ = ["read_error"]

_REQUEST_ID_HEADERS = ("x-request-id", "request-id")


def _message(payload: Any) -> str | None:
    if isinstance(payload, Mapping):
        inner = payload.get("error")
        if isinstance(inner, Mapping):
            inner = inner.get("message")
        if inner is not None:
            return inner if isinstance(inner, str) else json.dumps(inner, ensure_ascii=False)
        return None
    if isinstance(payload, str):
        return payload or None
    return None if payload is None else json.dumps(payload, ensure_ascii=False)


def _hint(status: int | None, message: str, model: str | None) -> str | None:
    shown = repr(model) if model else "the model"
    lower = message.lower()
    if "does not support tools" in lower:
        return (
            f"fix: {shown} cannot call tools; pick a model with tool support "
            "(https://ollama.com/search?c=tools) or send the request without tools"
        )
    if "does not support thinking" in lower:
        return f"fix: {shown} cannot think; leave OllamaChatOptions.think unset for it"
    if status == 404 and "model" in lower:
        return f"fix: pull it first (ollama pull {model or '<model>'}) or check its name"
    if status == 404:
        return "fix: check OSTINATO_OLLAMA_BASE_URL (the server's root, without /api)"
    if status == 401:
        return "fix: set OSTINATO_OLLAMA_API_KEY (or OLLAMA_API_KEY) for ollama.com"
    return None


def read_error(
    payload: Any,
    status: int | None,
    headers: Mapping[str, str],
    fallback: str | None,
    model: str | None = None,
) -> ErrorReport:
    """What an error ``payload`` says (a parsed body, or a stream's error line), with a
    hint about ``model`` where the cause is common.

    ``status`` is ``None`` for an error inside a 200 stream (a server-side failure).
    """
    message = _message(payload) or fallback or "no message"
    return ErrorReport(
        message,
        status,
        hint=_hint(status, message, model),
        request_id=next((headers[h] for h in _REQUEST_ID_HEADERS if headers.get(h)), None),
    )
