"""From what an adapter read in an error body to the typed :class:`ModelError`.

Reading a provider's error *shape* is the adapter's (its ``read_error`` returns an
:class:`ErrorReport`); making the error of it is the same for everyone
(:func:`model_error`): the message's layout, the class of the status, every field masked,
the wait the server asked for. Imports no HTTP library.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ostinato.errors import ModelError
from ostinato.redaction import Redactor
from ostinato.transport import error_class_for_status, parse_retry_after, redact

__all__ = ["ErrorReport", "json_text", "model_error"]


@dataclass(frozen=True, slots=True)
class ErrorReport:
    """What an adapter read from an error body; :func:`model_error` makes the typed error.

    Attributes:
        message: the server's message (or the reason phrase when it gave none).
        status: the HTTP status (or the one the error stands for inside a stream).
        classification: shown in parentheses after the status (``invalid_request_error``).
        detail: appended to the message (``" [param: model]"``).
        hint: a line saying what to change (``fix: ...``).
        error_type, code, request_id: the error's fields, as the server gave them.
    """

    message: str
    status: int | None
    classification: str = ""
    detail: str = ""
    hint: str | None = None
    error_type: str | None = None
    code: str | None = None
    request_id: str | None = None


def model_error(
    report: ErrorReport,
    *,
    provider: str,
    headers: Mapping[str, str] | None = None,
    secret: str | Redactor | None = None,
) -> ModelError:
    """The :class:`ModelError` subclass of ``report.status`` saying what ``report`` says:
    ``<provider> error <status> (<classification>): <message><detail>`` and the hint on
    a line of its own, with the wait ``headers`` ask for. ``secret`` is masked in the
    message and in every field (an error's repr shows them all)."""
    status = report.status
    label = f"{provider} error {status}" if status is not None else f"{provider} error"
    if report.classification:
        label += f" ({report.classification})"
    text = f"{label}: {report.message}{report.detail}"
    if report.hint:
        text += "\n" + report.hint

    def masked(value: str | None) -> str | None:
        return None if value is None else redact(value, secret)

    return error_class_for_status(status)(
        redact(text, secret),
        provider=provider,
        status=status,
        error_type=masked(report.error_type),
        code=masked(report.code),
        request_id=masked(report.request_id),
        retry_after=parse_retry_after(headers or {}),
    )


def json_text(value: Any) -> str | None:
    """``value`` as text: a string as it is, anything else as JSON (``None`` stays)."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
