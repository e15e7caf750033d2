"""``error_class_for_status``, ``redact`` and ``excerpt``: one status, one error class, no secret."""

from __future__ import annotations

import pytest

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
from ostinato.transport import error_class_for_status, excerpt, redact


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (408, ModelTimeoutError),
        (409, ModelError),
        (413, BadRequestError),
        (415, BadRequestError),
        (422, BadRequestError),
        (429, RateLimitError),
        (500, ServerError),
        (503, ServerError),
        (529, ServerError),  # Anthropic's overloaded_error
        (None, ServerError),
    ],
)
def test_error_class_for_status(status: int | None, cls: type[ModelError]):
    assert error_class_for_status(status) is cls


def test_redact():
    assert redact("bad key sk-123 (sk-123)", "sk-123") == "bad key *** (***)"
    assert redact("nothing here", "sk-123") == "nothing here"
    assert redact("no secret", None) == "no secret"
    assert redact("empty secret", "") == "empty secret"


def test_excerpt_masks_the_secret_before_cutting():
    key = "sk-0123456789"
    # Cut at 12 characters, a key starting at 6 would leave "sk-012" behind unmasked.
    assert excerpt("x" * 6 + key, key, limit=12) == repr("xxxxxx***")
    assert excerpt(b"\xff" + key.encode(), key) == repr("\ufffd***")
    assert excerpt("plain", None) == "'plain'"
