"""The API key never shows: not in logs, reprs, exception messages, tracebacks, nor in what
``ostinato config`` and ``ostinato chat`` print — even when the server echoes it back.

A failing run is driven end to end (settings from the environment, the auto-configured
client, ``SimpleLoggerAdvisor`` and every library logger at DEBUG) against a server that
quotes the key in every way it can fail: JSON error bodies, plain-text and HTML pages, a
stream's error event, a malformed event. All of the output is captured and searched —
including a child process whose traceback goes unhandled to stderr.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from ostinato import chat_client
from ostinato.advisors import SimpleLoggerAdvisor
from ostinato.cli import main
from ostinato.errors import ConfigurationError, ModelError
from ostinato_openai import OpenAIChatModel
from ostinato_openai._settings import OpenAISettings
from tests.reliability.faultserver import (
    Fault,
    FaultServer,
    ReceivedRequest,
    reply,
    reset,
    sse,
    text_chunks,
)

KEY = "sk-proj-LEAKCANARY-7f3a9c2e41b8d6"
#: Any of these in the output is a leak (the parts catch a key cut short).
MARKERS = (KEY, "LEAKCANARY", "7f3a9c2e41b8d6")
ROOT = Path(__file__).resolve().parents[2]


def echoing(kind: str) -> Fault:
    """A failure quoting the key (and the Authorization header it was sent)."""
    said = f"Incorrect API key provided: {KEY} (Authorization: Bearer {KEY})"
    error = {"error": {"message": said, "type": "invalid_request_error", "code": KEY}}
    if kind == "500":
        return reply(500, error, headers={"retry-after": "0"})
    if kind == "429":
        return reply(429, error, headers={"retry-after": "0"})
    if kind == "401":
        return reply(401, error)
    if kind == "400-text":
        return reply(400, f"Bad request from {KEY}\n" * 300, content_type="text/plain")
    if kind == "html":
        page = f"<html><body><pre>Authorization: Bearer {KEY}</pre></body></html>"
        return reply(200, page, content_type="text/html")
    if kind == "not-json":
        # An excerpt of 200 characters would cut the key after "sk-proj-LEAKCANARY-7".
        return reply(200, "x" * 180 + KEY, content_type="application/json")
    if kind == "error-event":
        return sse([*text_chunks("Hel")[:1], f"event: error\ndata: {json.dumps(error)}\n\n"])
    if kind == "bad-event":
        return sse([*text_chunks("Hel")[:1], f"data: {{oops {KEY}\n\n"])
    if kind == "reset":
        return reset()
    raise AssertionError(kind)


#: Each turn of the failing run, and the faults its attempts get (one retry allowed).
TURNS = [
    ("call", ["500", "401"]),
    ("stream", ["429", "401"]),
    ("stream", ["error-event"]),
    ("call", ["html"]),
    ("stream", ["html"]),
    ("stream", ["bad-event"]),
    ("call", ["not-json"]),
    ("call", ["400-text"]),
    ("call", ["reset", "reset"]),
]


class Echo:
    """Serves the faults of :data:`TURNS` in order; checks the key was really sent."""

    def __init__(self, faults: list[str]) -> None:
        self.faults = list(faults)
        self.authorizations: set[str] = set()

    def __call__(self, request: ReceivedRequest) -> Fault:
        self.authorizations.add(request.headers.get("authorization", ""))
        return echoing(self.faults.pop(0) if self.faults else "401")


@pytest.fixture
def echo_server(serve: Callable[..., FaultServer]) -> tuple[FaultServer, Echo]:
    script = Echo([fault for _, faults in TURNS for fault in faults])
    return serve(script), script


@pytest.fixture
def environment(echo_server, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The key, the server and one retry, in the environment (as a user would set them)."""
    server, _ = echo_server
    variables = {
        "OSTINATO_MODEL": "openai:gpt-test",
        "OSTINATO_OPENAI_API_KEY": KEY + "\n",  # as read from a secret file
        "OSTINATO_OPENAI_BASE_URL": server.base_url,
        "OSTINATO_OPENAI_MAX_RETRIES": "1",
        "OSTINATO_LOAD_PLUGINS": "openai",
        "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR": "default",
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    return variables


def everything_about(error: BaseException) -> str:
    """Message, repr, arguments and attributes of ``error`` and of every exception its
    traceback shows (causes, and contexts not suppressed), and that whole traceback."""
    parts = ["".join(traceback.format_exception(error))]
    seen: BaseException | None = error
    while seen is not None:
        parts += [str(seen), repr(seen), repr(seen.args), repr(getattr(seen, "__dict__", {}))]
        seen = seen.__cause__ or (None if seen.__suppress_context__ else seen.__context__)
    return "\n".join(parts)


def assert_no_key(text: str) -> None:
    for marker in MARKERS:
        assert marker not in text, (
            f"the key leaked:\n{text[max(0, text.find(marker) - 300) :][:600]}"
        )


async def test_a_failing_run_never_shows_the_key(environment, echo_server, caplog, capsys):
    _, script = echo_server
    caplog.set_level(logging.DEBUG)  # every logger: ostinato's, httpx's, httpcore's
    client = chat_client()
    captured = [repr(client), repr(OpenAISettings()), str(OpenAISettings())]
    errors: list[ModelError] = []
    for mode, _ in TURNS:
        spec = client.prompt("what is my key?").advisors(SimpleLoggerAdvisor())
        with pytest.raises(ModelError) as caught:
            if mode == "call":
                await spec.call().acontent()
            else:
                async for _ in spec.stream().acontent():
                    pass
        errors.append(caught.value)
        captured.append(everything_about(caught.value))
    logging.getLogger("test").exception("a failed turn", exc_info=errors[0])
    out, err = capsys.readouterr()
    captured += [out, err, caplog.text]
    everything = "\n".join(captured)

    assert script.authorizations == {f"Bearer {KEY}"}  # the key was sent, stripped
    assert len(errors) == len(TURNS)
    # The run really logged and failed in all those ways, with the server's words kept.
    assert "request:" in caplog.text and "HTTP Request: POST" in caplog.text
    assert "Incorrect API key provided: ***" in everything
    assert {type(e).__name__ for e in errors} >= {
        "AuthenticationError",
        "MalformedResponseError",
        "BadRequestError",
        "ModelConnectionError",
    }
    assert_no_key(everything)


def test_ostinato_config_and_chat_never_show_the_key(environment, capsys, monkeypatch):
    monkeypatch.setenv("OSTINATO_OPENAI_EXTRA_HEADERS", json.dumps({"api-key": KEY}))
    outputs = []
    for argv in (["config"], ["config", "--json"], ["chat", "hi"], ["chat", "--no-stream", "hi"]):
        code = main(argv)
        out, err = capsys.readouterr()
        outputs.append(f"$ ostinato {' '.join(argv)} -> {code}\n{out}\n{err}")
    everything = "\n".join(outputs)
    assert "OSTINATO_OPENAI_API_KEY" in everything and "***" in everything
    assert "Incorrect API key provided: ***" in everything
    assert_no_key(everything)


def test_an_unhandled_failure_in_a_child_process_never_shows_the_key(environment):
    program = textwrap.dedent(
        """
        import logging
        import ostinato
        from ostinato.advisors import SimpleLoggerAdvisor

        logging.basicConfig(level=logging.DEBUG, format="%(name)s %(levelname)s %(message)s")
        client = ostinato.chat_client()
        print(repr(client))
        for _ in client.prompt("hi").advisors(SimpleLoggerAdvisor()).stream().content():
            pass
        client.prompt("hi").advisors(SimpleLoggerAdvisor()).call().content()
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    everything = result.stdout + result.stderr
    assert result.returncode == 1
    assert "Traceback (most recent call last)" in everything
    assert "ostinato.errors." in everything
    assert_no_key(everything)


@pytest.mark.parametrize(
    "key", ["sk-proj-LEAKCANARY\n-7f3a9c2e41b8d6", f"{KEY[:10]}\u00a0{KEY[10:]}"]
)
def test_a_key_a_header_cannot_carry_is_refused_without_showing_it(key):
    with pytest.raises(ConfigurationError) as caught:
        OpenAIChatModel(model="m", api_key=key)
    assert "the openai API key holds" in str(caught.value)
    assert_no_key(everything_about(caught.value))


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama"])
def test_an_extra_header_a_header_cannot_carry_is_refused_without_showing_it(provider):
    # Azure's key travels in the ``api-key`` header; any adapter's extra headers may hold one.
    from ostinato_anthropic import AnthropicChatModel
    from ostinato_ollama import OllamaChatModel

    model_class = {
        "openai": OpenAIChatModel,
        "anthropic": AnthropicChatModel,
        "ollama": OllamaChatModel,
    }[provider]
    with pytest.raises(ConfigurationError) as caught:
        model_class(model="m", extra_headers={"api-key": KEY[:10] + "\r\n" + KEY[10:]})
    assert f"the {provider} extra header 'api-key' holds a control character" in str(caught.value)
    assert_no_key(everything_about(caught.value))
