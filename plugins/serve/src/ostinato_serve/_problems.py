"""Errors as HTTP answers: one body shape for every endpoint, OpenAI's.

``{"error": {"type": "<snake_case>", "message": "..."}}`` with a 4xx/5xx status. A
handler raises :class:`ApiError`; the app turns it into that answer. Messages never
carry a credential: they are masked on the way out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.responses import JSONResponse

from ostinato.redaction import mask_credentials

__all__ = ["ApiError", "error_body", "error_response"]


class ApiError(Exception):
    """A request the server answers with an error status.

    Attributes:
        status: the HTTP status.
        type: the error's ``type`` (snake_case).
        message: what was found and what was expected.
        headers: extra response headers (``Retry-After``, ``WWW-Authenticate``).
        details: extra fields of the error object (``turn_id`` of a busy conversation).
    """

    def __init__(
        self,
        status: int,
        type: str,
        message: str,
        headers: Mapping[str, str] | None = None,
        *,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.type = type
        self.message = message
        self.headers = dict(headers or {})
        self.details = dict(details or {})


def error_body(type: str, message: str) -> dict[str, Any]:
    """The JSON body of an error (the credential-like parts of ``message`` masked)."""
    return {"error": {"type": type, "message": mask_credentials(message)}}


def error_response(error: ApiError) -> JSONResponse:
    """The response for ``error``."""
    body = error_body(error.type, error.message)
    body["error"].update(error.details)
    return JSONResponse(body, status_code=error.status, headers=error.headers)
