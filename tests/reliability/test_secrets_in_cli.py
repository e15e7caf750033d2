"""``ostinato`` never prints a credential: not a base URL's ``user:password@``, not an
``api-key`` extra header, not the API key — on any error path of any command.

A canary password sits in the base URL and in an ``api-key`` header (and the key is a
canary too); every error the command can be driven into is triggered — an unreachable
server, a loopback server answering 401 and quoting every header it received, bad
settings (a malformed URL, a bad number, a header value a request cannot carry) — through
``chat`` (streamed, ``--no-stream``, ``--json``), ``config``, ``models`` and ``plugins``.
Standard output and error are searched for the canary, as sent and percent-encoded.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from urllib.parse import quote

import pytest

from ostinato.cli import main
from tests.reliability.faultserver import Fault, FaultServer, ReceivedRequest, reply

PASSWORD = "pw-LEAKCANARY/url@9c2e"
HEADER_KEY = "hk-LEAKCANARY-header-41b8"
API_KEY = "sk-LEAKCANARY-api-7f3a"
MARKERS = ("LEAKCANARY", "9c2e", "41b8", "7f3a")

CHAT_MODES = {
    "streamed": ["chat", "-m", "openai:gpt-test", "hello"],
    "no-stream": ["chat", "-m", "openai:gpt-test", "--no-stream", "hello"],
    "json": ["chat", "-m", "openai:gpt-test", "--json", "hello"],
}
COMMANDS = {
    **CHAT_MODES,
    "config": ["config"],
    "config --json": ["config", "--json"],
    "models": ["models"],
    "plugins --json": ["plugins", "--json"],
}


def with_password(url: str) -> str:
    return url.replace("://", f"://gateway-user:{quote(PASSWORD, safe='')}@", 1)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def configure(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Set the openai provider's variables: a credential in the URL, a header, the key."""

    def set_up(base_url: str, **more: str) -> None:
        monkeypatch.setenv("OSTINATO_LOAD_PLUGINS", "openai")
        monkeypatch.setenv("OSTINATO_OPENAI_BASE_URL", base_url)
        monkeypatch.setenv("OSTINATO_OPENAI_API_KEY", API_KEY)
        monkeypatch.setenv("OSTINATO_OPENAI_EXTRA_HEADERS", json.dumps({"api-key": HEADER_KEY}))
        monkeypatch.setenv("OSTINATO_OPENAI_MAX_RETRIES", "0")
        for name, value in more.items():
            monkeypatch.setenv(name, value)

    return set_up


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out + err


def assert_no_canary(shown: str) -> None:
    for secret in (PASSWORD, HEADER_KEY, API_KEY):
        for form in (secret, quote(secret, safe=""), json.dumps(secret)):
            assert form not in shown, f"a credential was printed:\n{shown}"
    for marker in MARKERS:
        assert marker not in shown, f"a credential was printed:\n{shown}"


def echo_headers(request: ReceivedRequest) -> Fault:
    """401, quoting every header the request carried, as sent and percent-encoded."""
    said = "; ".join(
        f"{name}: {value} ({quote(value, safe='')})" for name, value in request.headers.items()
    )
    return reply(401, {"error": {"message": f"denied: {said}", "type": "invalid_request"}})


@pytest.mark.parametrize("argv", CHAT_MODES.values(), ids=CHAT_MODES)
def test_an_unreachable_server(configure, capsys, argv):
    configure(with_password(f"http://127.0.0.1:{closed_port()}/v1"))
    code, shown = run(capsys, argv)
    assert code == 1
    assert "cannot reach the openai model server" in shown
    assert_no_canary(shown)


@pytest.mark.parametrize("argv", CHAT_MODES.values(), ids=CHAT_MODES)
def test_a_401_from_a_server_echoing_every_header(configure, capsys, serve, argv):
    server: FaultServer = serve(echo_headers)
    configure(with_password(server.base_url))
    code, shown = run(capsys, argv)
    assert code == 1
    assert "openai refused the credentials (HTTP 401)" in shown
    assert len(server.requests) == 1  # the request carried the credentials
    sent = server.requests[0].headers
    assert sent.get("api-key") == HEADER_KEY
    assert_no_canary(shown)


BAD_SETTINGS = {
    "malformed base URL": {"OSTINATO_OPENAI_BASE_URL": f"gateway-user:{PASSWORD}@no-scheme"},
    "bad number": {"OSTINATO_OPENAI_TIMEOUT": "soon"},
    "header a request cannot carry": {
        "OSTINATO_OPENAI_EXTRA_HEADERS": json.dumps({"api-key": f"{HEADER_KEY}\n"})
    },
}


@pytest.mark.parametrize("argv", COMMANDS.values(), ids=COMMANDS)
@pytest.mark.parametrize("bad", BAD_SETTINGS.values(), ids=BAD_SETTINGS)
def test_bad_settings(configure, capsys, argv, bad):
    configure(with_password(f"http://127.0.0.1:{closed_port()}/v1"), **bad)
    code, shown = run(capsys, argv)
    assert code != 0 or argv[0] != "chat"
    assert_no_canary(shown)


@pytest.mark.parametrize("argv", [["config"], ["config", "--json"]], ids=" ".join)
def test_config_shows_the_url_and_the_header_masked(configure, capsys, argv):
    configure(with_password("http://127.0.0.1:9/v1"))
    code, shown = run(capsys, argv)
    assert code == 0
    assert "127.0.0.1:9/v1" in shown
    assert_no_canary(shown)
