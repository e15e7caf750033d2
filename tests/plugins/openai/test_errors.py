"""Error bodies of every shape, statuses, transport failures: typed, informative, no secret."""

from __future__ import annotations

import json

import httpx
import pytest

from ostinato.errors import (
    BadRequestError,
    MalformedResponseError,
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from ostinato.http import model_error
from ostinato.prompt import Prompt
from ostinato.transport import error_from_transport, error_payload, reason_phrase
from ostinato_openai._errors import read_error
from tests.plugins.openai.fakes import model_for


def from_body(
    status: int, body: object, headers: dict[str, str] | None = None, secret: str | None = None
) -> ModelError:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    report = read_error(
        error_payload(content, secret), status, headers or {}, reason_phrase(status)
    )
    return model_error(report, provider="openai", headers=headers, secret=secret)


def in_stream(payload: object) -> ModelError:
    """The error of an error event inside a 200 stream (no HTTP status)."""
    return model_error(read_error(payload, None, {}, None), provider="openai")


def test_openai_error_object():
    error = from_body(
        400,
        {
            "error": {
                "message": "Bad value",
                "type": "invalid_request_error",
                "code": "x",
                "param": "p",
            }
        },
        {"x-request-id": "req_9"},
    )
    assert isinstance(error, BadRequestError)
    assert str(error) == "openai error 400 (invalid_request_error/x): Bad value [param: p]"
    assert (error.status, error.error_type, error.code, error.request_id) == (
        400,
        "invalid_request_error",
        "x",
        "req_9",
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"error": "plain string"}, "plain string"),
        ({"detail": "Invalid API Key"}, "Invalid API Key"),
        (
            {"detail": [{"loc": ["body"], "msg": "field required"}]},
            '[{"loc": ["body"], "msg": "field required"}]',
        ),
        ({"message": "flat"}, "flat"),
        ([{"error": {"message": "in a list"}}], "in a list"),
        (b"<html>Bad Gateway</html>", "<html>Bad Gateway</html>"),
        (b"", "Bad Gateway"),
    ],
)
def test_every_body_shape_shows_the_servers_message(body: object, message: str):
    error = from_body(502, body)
    assert isinstance(error, ServerError)
    assert str(error) == f"openai error 502: {message}"


def test_the_api_key_is_masked_wherever_it_appears():
    error = from_body(
        401,
        {"error": {"message": "Incorrect API key provided: sk-secret-key-123."}},
        secret="sk-secret-key-123",
    )
    assert "sk-secret-key-123" not in str(error)
    assert "sk-secret-key-123" not in repr(error)
    assert "Incorrect API key provided: ***." in str(error)


def test_in_stream_error_payloads_carry_their_status():
    groq = in_stream({"error": {"message": "m", "status_code": 400}})
    assert isinstance(groq, BadRequestError)
    openrouter = in_stream({"error": {"code": 429, "message": "slow down"}})
    assert isinstance(openrouter, RateLimitError)
    unknown = in_stream({"error": {"message": "?"}})
    assert isinstance(unknown, ServerError)
    assert unknown.status is None


def test_the_wait_a_server_asked_for_is_on_the_error():
    # (The header forms are parsed by ostinato.transport.parse_retry_after, tested there.)
    assert from_body(429, {"error": {"message": "x"}}, {"retry-after": "3"}).retry_after == 3.0
    ms = {"retry-after-ms": "250", "retry-after": "9"}
    assert from_body(429, {"error": {"message": "x"}}, ms).retry_after == 0.25


@pytest.mark.parametrize(
    ("exception", "cls"),
    [
        (httpx.ConnectError("refused"), ModelConnectionError),
        (httpx.RemoteProtocolError("reset"), ModelConnectionError),
        (httpx.ReadTimeout("slow"), ModelTimeoutError),
        (httpx.PoolTimeout("busy"), ModelTimeoutError),
        (httpx.DecodingError("gzip"), MalformedResponseError),
    ],
)
def test_transport_failures(exception: httpx.RequestError, cls: type[ModelError]):
    error = error_from_transport(exception, provider="openai", url="https://x/v1/chat/completions")
    assert type(error) is cls
    assert error.__cause__ is exception
    assert "https://x/v1/chat/completions" in str(error)
    assert error.status is None


async def test_a_broken_stream_after_data_is_interrupted_with_its_cause():
    class Breaks(httpx.AsyncByteStream):
        async def __aiter__(self):
            yield b'data: {"id":"r","choices":[{"index":0,"delta":{"content":"x"}}]}\n\n'
            raise httpx.ReadError("connection reset")

    model, sent = model_for(
        httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Breaks()),
        max_retries=3,
    )
    chunks = []
    with pytest.raises(StreamInterruptedError) as caught:
        async for chunk in model.stream(Prompt("hi")):
            chunks.append(chunk)
    assert isinstance(caught.value.__cause__, httpx.ReadError)
    assert [c.text for c in chunks] == ["x"]
    assert len(sent) == 1
