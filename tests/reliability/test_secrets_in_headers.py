"""A credential sent anywhere — an ``api-key`` header (Azure OpenAI), ``x-api-key``
(Anthropic), a custom credential header, the password of the URL's userinfo — never
shows, even when the server echoes every header it received.

For every adapter and every placement, a server quotes the credential back as received,
percent-encoded and JSON-escaped, in a JSON error, a plain-text error, a 200 that is not
JSON and a failing stream; the errors' messages, ``repr`` s, attributes and exception
chains, the model's ``repr`` and every log line at DEBUG are searched for it.
"""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest

from ostinato.errors import ModelError
from ostinato.prompt import Prompt
from ostinato.transport import RetryPolicy
from ostinato_anthropic import AnthropicChatModel
from ostinato_ollama import OllamaChatModel
from ostinato_openai import OpenAIChatModel
from tests.reliability.faultserver import Fault, FaultServer, ReceivedRequest, reply

#: Quotes, a slash and an at sign: its escaped and encoded forms differ from it.
KEY = 'sk-LEAKCANARY/7f3a"9c2e@41b8d6'
MARKERS = ("LEAKCANARY", "9c2e", "41b8d6")

ADAPTERS: dict[str, tuple[type[Any], str]] = {
    "openai": (OpenAIChatModel, "/v1"),
    "anthropic": (AnthropicChatModel, ""),
    "ollama": (OllamaChatModel, ""),
}
#: Where the credential travels: the model's keyword arguments for a server URL.
PLACEMENTS: dict[str, Callable[[str], dict[str, Any]]] = {
    "api-key header": lambda url: {"base_url": url, "extra_headers": {"api-key": KEY}},
    "x-api-key header": lambda url: {"base_url": url, "extra_headers": {"X-Api-Key": KEY}},
    "custom credential header": lambda url: {
        "base_url": url,
        "extra_headers": {"X-Gateway-Auth-Token": KEY},
    },
    "api key": lambda url: {"base_url": url, "api_key": KEY},
    "url userinfo": lambda url: {
        "base_url": url.replace("://", f"://gateway-user:{quote(KEY, safe='')}@", 1)
    },
}


def echo(request: ReceivedRequest, kind: str) -> Fault:
    """A failure quoting every header the request carried, in every form."""
    said = "; ".join(
        f"{name}: {value} ({quote(value, safe='')}) {json.dumps(value)}"
        for name, value in request.headers.items()
    )
    said += f" raw {KEY} {quote(KEY, safe='')} {quote(KEY)}"
    if kind == "json":
        return reply(401, {"error": {"message": said, "type": said, "code": KEY}})
    if kind == "text":
        return reply(400, f"bad request: {said}\n", content_type="text/plain")
    return reply(200, f"not json {said}", content_type="application/json")


def everything_about(error: BaseException) -> str:
    parts = ["".join(traceback.format_exception(error))]
    seen: BaseException | None = error
    while seen is not None:
        parts += [str(seen), repr(seen), repr(seen.args), repr(getattr(seen, "__dict__", {}))]
        seen = seen.__cause__ or seen.__context__
    return "\n".join(parts)


def assert_no_key(text: str) -> None:
    for marker in MARKERS:
        assert marker not in text, (
            f"the key leaked:\n{text[max(0, text.find(marker) - 300) :][:600]}"
        )


@pytest.mark.parametrize("placement", list(PLACEMENTS))
@pytest.mark.parametrize("adapter", list(ADAPTERS))
async def test_a_credential_in_any_header_or_the_url_never_shows(
    adapter: str, placement: str, serve: Callable[..., FaultServer], caplog: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    kinds = ["json", "text", "not-json", "json"]
    received: list[ReceivedRequest] = []

    def script(request: ReceivedRequest) -> Fault:
        received.append(request)
        return echo(request, kinds[len(received) - 1])

    server = serve(script)
    cls, suffix = ADAPTERS[adapter]
    model = cls(
        model="m",
        retry_policy=RetryPolicy(max_retries=0),
        **PLACEMENTS[placement](server.base_url.removesuffix("/v1") + suffix),
    )
    captured = [repr(model), str(model.base_url)]
    errors: list[ModelError] = []
    async with model:
        for _ in kinds[:3]:
            with pytest.raises(ModelError) as caught:
                await model.call(Prompt("hi"))
            errors.append(caught.value)
        with pytest.raises(ModelError) as caught:
            async for _ in model.stream(Prompt("hi")):
                pass
        errors.append(caught.value)
    captured += [everything_about(e) for e in errors]
    logging.getLogger("test").error("failed", exc_info=errors[0])
    captured.append(caplog.text)

    sent = " ".join(v for r in received for v in r.headers.values())
    assert "LEAKCANARY" in sent or "Basic " in sent  # the credential was really sent
    assert "HTTP Request: POST" in caplog.text
    assert_no_key("\n".join(captured))
