"""A model provider's failures (see :mod:`ostinato.errors`)."""

from __future__ import annotations

from ostinato.errors._base import OstinatoError

__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "MalformedResponseError",
    "ModelConnectionError",
    "ModelError",
    "ModelTimeoutError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "StreamInterruptedError",
]


class ModelError(OstinatoError):
    """A model provider failed.

    Attributes:
        provider: the adapter's provider name (``"openai"``...), if known.
        status: the HTTP status code, if there was a response.
        error_type: the provider's error type (e.g. ``"rate_limit_error"``).
        code: the provider's error code.
        request_id: the provider's request id, for support tickets.
        retry_after: seconds the provider asked us to wait, if it said.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        error_type: str | None = None,
        code: str | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status
        self.error_type = error_type
        self.code = code
        self.request_id = request_id
        self.retry_after = retry_after

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{name}={value!r}"
            for name in ("provider", "status", "error_type", "code", "request_id", "retry_after")
            if (value := getattr(self, name)) is not None
        )
        return f"{type(self).__name__}({str(self)!r}{', ' if fields else ''}{fields})"


class AuthenticationError(ModelError):
    """The provider rejected the credentials (HTTP 401)."""


class PermissionDeniedError(ModelError):
    """The credentials may not use this resource (HTTP 403)."""


class NotFoundError(ModelError):
    """The model or endpoint does not exist (HTTP 404)."""


class BadRequestError(ModelError):
    """The provider rejected the request as malformed (HTTP 400 or 422)."""


class RateLimitError(ModelError):
    """Too many requests (HTTP 429); ``retry_after`` says how long to wait, when known."""


class ServerError(ModelError):
    """The provider failed on its side (HTTP 5xx)."""


class ModelTimeoutError(ModelError):
    """The provider did not answer within the configured timeout."""


class ModelConnectionError(ModelError):
    """The provider could not be reached (refused, reset, DNS...)."""


class StreamInterruptedError(ModelError):
    """A stream broke after it had started delivering data; it is never retried silently."""


class MalformedResponseError(ModelError):
    """The provider answered, but not in a shape the adapter understands."""
