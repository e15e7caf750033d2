"""From an HTTP status to the :class:`~ostinato.errors.ModelError` class adapters raise.

Shared by every adapter so that the same status means the same error everywhere: 400,
413, 415 and 422 are bad requests, 401 authentication, 403 permission, 404 not found, 408
a timeout, 429 a rate limit, every 5xx (Anthropic's 529 "overloaded" too) a server error.
:func:`redact` keeps a secret out of the message a server may have echoed it in;
:func:`excerpt` quotes the start of a reply the same way. Both mask with
:mod:`ostinato.redaction` (one implementation for the whole framework).
"""

from __future__ import annotations

from functools import lru_cache

from ostinato.errors import (
    AuthenticationError,
    BadRequestError,
    ModelError,
    ModelTimeoutError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)
from ostinato.redaction import Redactor

__all__ = ["error_class_for_status", "excerpt", "redact"]

_BY_STATUS: dict[int, type[ModelError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    408: ModelTimeoutError,
    413: BadRequestError,
    415: BadRequestError,
    422: BadRequestError,
    429: RateLimitError,
}


def error_class_for_status(status: int | None) -> type[ModelError]:
    """The :class:`ModelError` subclass for an HTTP status.

    ``None`` (an error reported without a status) and every 5xx give
    :class:`~ostinato.errors.ServerError`; an unlisted 4xx gives :class:`ModelError`.
    """
    if status is None or status >= 500:
        return ServerError
    return _BY_STATUS.get(status, ModelError)


@lru_cache(maxsize=32)
def _redactor(secret: str | None) -> Redactor:
    return Redactor((secret,))


def redact(text: str, secret: str | Redactor | None) -> str:
    """``text`` with ``secret`` masked (``***``) wherever it appears, and whatever looks
    like a credential (``Bearer …``, ``"api-key": "…"``) too.

    ``secret`` is a :class:`~ostinato.redaction.Redactor` holding every credential a
    component sends, or one secret text.
    """
    redactor = secret if isinstance(secret, Redactor) else _redactor(secret or None)
    return redactor.mask(text)


def excerpt(content: bytes | str, secret: str | Redactor | None, limit: int = 200) -> str:
    """The start of a reply for an error message, quoted, with ``secret`` masked *before*
    it is cut (so no part of it survives at the cut)."""
    text = content.decode("utf-8", errors="replace") if isinstance(content, bytes) else content
    return repr(redact(text, secret)[:limit])
