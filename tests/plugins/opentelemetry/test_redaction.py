"""With content capture on, credentials never reach a span: known secrets (credential
environment variables) and whatever looks like one are masked in content attributes
and in error descriptions; every content attribute stays bounded."""

from __future__ import annotations

import json

import pytest

from ostinato import ChatClient, tool
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato_opentelemetry import OpenTelemetrySettings, instrument
from tests.plugins.opentelemetry.conftest import Recorded
from tests.plugins.opentelemetry.spans import by_name

_ENV_SECRET = "sk-proj-EnvironmentSecret0123456789"
_BEARER = "eyJhbGciOiJIUzI1NiJ9.payload.signature"


@tool
def login(user: str, password: str) -> str:
    """Log a user in."""
    return f"logged in; session token={_BEARER}"


@tool
def fetch(url: str) -> str:
    """Fetch a page."""
    raise PermissionError(f"denied for {url} with key {_ENV_SECRET}")


def _everything(recorded: Recorded) -> str:
    return " ".join(
        f"{dict(span.attributes or {})} {span.status.description}" for span in recorded.spans()
    )


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", _ENV_SECRET)


def test_credentials_never_reach_captured_content(recorded: Recorded, secret_env: None) -> None:
    model = ScriptedChatModel(
        [
            tool_call_response(
                tool_call("login", {"user": "ann", "password": "hunter2-secret"}, id="l"),
                tool_call("fetch", {"url": "https://u:pa55word@example.test/"}, id="f"),
            ),
            "Done.",
        ]
    )
    settings = OpenTelemetrySettings(capture_content=True)
    client = instrument(
        ChatClient.builder(model).default_tools(login, fetch), settings=settings
    ).build()

    answer = (
        client.prompt(f"My key is {_ENV_SECRET}, header Authorization: Bearer {_BEARER}")
        .system(f"api_key={_ENV_SECRET}")
        .call()
        .content()
    )

    assert answer == "Done."
    recorded_text = _everything(recorded)
    for secret in (_ENV_SECRET, _BEARER, "hunter2-secret", "pa55word"):
        assert secret not in recorded_text, secret
    [login_span] = by_name(recorded.spans(), "execute_tool login")
    arguments = str((login_span.attributes or {})["gen_ai.tool.call.arguments"])
    assert '"user": "ann"' in arguments and '"password": "***"' in arguments
    [first_chat, _] = by_name(recorded.spans(), "chat")
    definitions = json.loads(str((first_chat.attributes or {})["gen_ai.tool.definitions"]))
    assert [(d["type"], d["name"]) for d in definitions] == [
        ("function", "login"),
        ("function", "fetch"),
    ]
    assert definitions[0]["parameters"]["required"] == ["user", "password"]
    [fetch_span] = by_name(recorded.spans(), "execute_tool fetch")
    assert (fetch_span.attributes or {})["error.type"] == "PermissionError"
    assert "***" in str(fetch_span.status.description)


def test_a_huge_tool_argument_makes_a_bounded_attribute(recorded: Recorded) -> None:
    big = "x" * 5_000_000
    model = ScriptedChatModel(
        [tool_call_response(tool_call("login", {"user": big, "password": "p"})), "ok"]
    )
    settings = OpenTelemetrySettings(capture_content=True, max_attribute_length=4096)
    client = instrument(ChatClient.builder(model).default_tools(login), settings=settings).build()

    client.prompt("Log in").call().content()

    for span in recorded.spans():
        for key, value in (span.attributes or {}).items():
            assert len(str(value)) <= 4096, key
    [tool_span] = by_name(recorded.spans(), "execute_tool login")
    arguments = str((tool_span.attributes or {})["gen_ai.tool.call.arguments"])
    assert arguments.startswith('{"user": "xxx') and arguments.endswith(" chars]")
    dropped = int(arguments.rsplit("truncated ", 1)[1].split()[0])
    kept = len(arguments) - len(f"…[truncated {dropped} chars]")
    assert kept + dropped == len('{"user": "", "password": "p"}') + len(big)
