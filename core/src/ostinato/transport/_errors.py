"""From a failed exchange, an error body or a redirect to a typed :class:`ModelError`.

What is the same for every provider lives here: a network failure becomes
:class:`~ostinato.errors.ModelTimeoutError`, :class:`~ostinato.errors.ModelConnectionError`
or :class:`~ostinato.errors.MalformedResponseError`; an error body is parsed as JSON
when it is JSON (else kept as text, the key masked before it is cut); a 3xx names where
it points and the setting to change. Reading a provider's error *shape* is the
adapter's. The API key never appears: the HTTP library's message is masked too.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from ostinato.errors import (
    MalformedResponseError,
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
)
from ostinato.redaction import Redactor, mask_url
from ostinato.transport._status import redact

__all__ = [
    "error_from_transport",
    "error_payload",
    "reason_phrase",
    "redirect_error",
]

#: How much of a non-JSON error body an error quotes.
_TEXT_LIMIT = 2000


def reason_phrase(status: int) -> str:
    """The standard reason phrase of ``status`` (``Not Found``), or ``HTTP error``."""
    return httpx.codes.get_reason_phrase(status) or "HTTP error"


def error_payload(content: bytes, secret: str | Redactor | None) -> Any:
    """An error body as the adapter reads it: its JSON value, else its text (``secret``
    masked, then cut), ``None`` when empty."""
    text = content.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return redact(text, secret)[:_TEXT_LIMIT]  # masked before the cut: no part survives


def error_from_transport(
    exc: httpx.RequestError,
    *,
    provider: str,
    url: str,
    secret: str | Redactor | None = None,
    timeout_hint: str = "",
    connect_hint: str = "",
) -> ModelError:
    """A failed exchange as :class:`ModelTimeoutError`, :class:`ModelConnectionError` or
    (for a body that could not be decoded) :class:`MalformedResponseError`.

    ``secret`` is masked should the HTTP library's message quote it; ``timeout_hint`` and
    ``connect_hint`` are appended to the timeout and connection messages.
    """
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    detail = redact(detail, secret)
    error: ModelError
    if isinstance(exc, httpx.TimeoutException):
        error = ModelTimeoutError(
            f"{provider}: no answer from {url} in time ({detail}){timeout_hint}",
            provider=provider,
        )
    elif isinstance(exc, httpx.DecodingError):
        error = MalformedResponseError(
            f"{provider}: the reply from {url} could not be decoded ({detail})", provider=provider
        )
    else:
        error = ModelConnectionError(
            f"{provider}: connection to {url} failed ({detail}){connect_hint}", provider=provider
        )
    error.__cause__ = exc
    return error


def redirect_error(
    response: httpx.Response, *, provider: str, path: str, variable: str
) -> ModelError:
    """The error for a 3xx reply: requests are never redirected (a POST must not move
    silently), so the message names the status, where it points and the setting to fix.

    Args:
        response: the 3xx response.
        provider: named in the error.
        path: what the model appends to it (``/chat/completions``).
        variable: the base URL's setting (``OSTINATO_OPENAI_BASE_URL``).
    """
    status = response.status_code
    location = response.headers.get("location")
    if location:
        target = mask_url(str(response.request.url.join(location)))
        suggested = target.split("?")[0].removesuffix(path) if path else target
        where = f"to {target!r}"
        fix = f"fix: set {variable} to {suggested!r} (where the server points) and retry"
    else:
        where = "without a Location"
        fix = f"fix: check {variable} (the API root the server expects)"
    return ModelError(
        f"{provider}: {mask_url(str(response.request.url))} answered {status} "
        f"{reason_phrase(status)}, a redirect {where}; requests are not redirected\n{fix}",
        provider=provider,
        status=status,
    )
