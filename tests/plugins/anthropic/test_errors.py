"""Typed errors: every error type of the API, in a response or in a stream, and the network.

The 429, 529, 5xx and in-stream ``error`` bodies have no recording (see the corpus
README); they follow Anthropic's documented error shape, which the recorded 401 and 404
share.
"""

from __future__ import annotations

import httpx
import pytest

from ostinato.errors import (
    AuthenticationError,
    BadRequestError,
    MalformedResponseError,
    ModelError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)
from ostinato.prompt import Prompt
from tests.plugins.anthropic.fakes import (
    API_KEY,
    message,
    model_for,
    sse_body,
    start,
    stream_chunks,
    text_events,
)


def error(
    status: int, error_type: str, message: str = "it failed", **headers: str
) -> httpx.Response:
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return httpx.Response(status, json=body, headers=headers)


@pytest.mark.parametrize(
    ("status", "error_type", "cls"),
    [
        (400, "invalid_request_error", BadRequestError),
        (401, "authentication_error", AuthenticationError),
        (402, "billing_error", ModelError),
        (403, "permission_error", PermissionDeniedError),
        (404, "not_found_error", NotFoundError),
        (413, "request_too_large", BadRequestError),
        (429, "rate_limit_error", RateLimitError),
        (500, "api_error", ServerError),
        (504, "timeout_error", ServerError),
        (529, "overloaded_error", ServerError),
    ],
)
async def test_http_errors_are_typed(status: int, error_type: str, cls: type[ModelError]):
    model, _ = model_for(error(status, error_type, **{"request-id": "req_9"}))
    with pytest.raises(cls) as caught:
        await model.call(Prompt("hi"))
    found = caught.value
    assert type(found) is cls
    assert (found.provider, found.status, found.error_type, found.request_id) == (
        "anthropic",
        status,
        error_type,
        "req_9",
    )
    assert str(found).startswith(f"anthropic error {status} ({error_type}): it failed")


@pytest.mark.parametrize(
    ("error_type", "cls", "status"),
    [
        ("overloaded_error", ServerError, 529),
        ("api_error", ServerError, 500),
        ("rate_limit_error", RateLimitError, 429),
        ("invalid_request_error", BadRequestError, 400),
        ("something_new", ServerError, None),
    ],
)
async def test_an_error_event_raises_the_error_of_its_type(
    error_type: str, cls: type[ModelError], status: int | None
):
    event = {"type": "error", "error": {"type": error_type, "message": "Overloaded"}}
    model, _ = model_for(sse_body(start(), *text_events("Hel"), event, stop=False))
    with pytest.raises(cls) as caught:
        await stream_chunks(model)
    assert caught.value.status == status
    assert caught.value.error_type == error_type
    assert "Overloaded" in str(caught.value)


async def test_retry_after_is_read_from_the_headers():
    model, _ = model_for(error(429, "rate_limit_error", **{"retry-after": "12"}))
    with pytest.raises(RateLimitError) as caught:
        await model.call(Prompt("hi"))
    assert caught.value.retry_after == 12.0


async def test_the_key_never_shows():
    model, _ = model_for(error(401, "authentication_error", f"invalid x-api-key {API_KEY}"))
    with pytest.raises(AuthenticationError) as caught:
        await model.call(Prompt("hi"))
    for text in (str(caught.value), repr(caught.value)):
        assert API_KEY not in text
        assert "invalid x-api-key ***" in text


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"<html>Bad Gateway</html>", "anthropic error 502: <html>Bad Gateway</html>"),
        (b"", "anthropic error 502: Bad Gateway"),
        (b'{"error": "upstream down"}', "anthropic error 502: upstream down"),
    ],
)
async def test_bodies_in_other_shapes_keep_their_text(content: bytes, expected: str):
    model, _ = model_for(httpx.Response(502, content=content))
    with pytest.raises(ServerError) as caught:
        await model.call(Prompt("hi"))
    assert str(caught.value) == expected


async def test_an_error_body_with_a_success_status():
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    model, _ = model_for(httpx.Response(200, json=body))
    with pytest.raises(ServerError) as caught:
        await model.call(Prompt("hi"))
    assert (caught.value.status, caught.value.error_type) == (529, "overloaded_error")


# -- replies larger than max_response_bytes ---------------------------------------------


async def _pieces(*parts: bytes):
    for part in parts:
        yield part


async def test_a_call_reply_over_the_limit_is_refused():
    big = message({"type": "text", "text": "x" * 500})
    model, _ = model_for(big, max_response_bytes=200)
    assert model.max_response_bytes == 200
    with pytest.raises(MalformedResponseError, match="larger than max_response_bytes=200"):
        await model.call(Prompt("hi"))


async def test_a_chunked_call_reply_over_the_limit_is_refused():
    chunked = httpx.Response(
        200, headers={"content-type": "application/json"}, content=_pieces(b"{" * 150, b"}" * 150)
    )
    model, _ = model_for(chunked, max_response_bytes=200)
    with pytest.raises(MalformedResponseError, match="stopped reading after 300 bytes"):
        await model.call(Prompt("hi"))


async def test_a_stream_over_the_limit_is_refused():
    model, _ = model_for(sse_body(start(), *text_events("x" * 400)), max_response_bytes=300)
    with pytest.raises(MalformedResponseError, match="larger than max_response_bytes=300"):
        await stream_chunks(model)
