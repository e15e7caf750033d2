"""``ostinato serve``: refusing to listen beyond loopback without a token, and a real run
serving the auto-configured client (a scripted provider, ``examples/weather.py``)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ostinato.cli import main
from ostinato.errors import ConfigurationError
from ostinato_serve import check_bind_address, is_loopback
from tests.fakes import scripted_provider
from tests.fakes.distributions import FakeDistributions, fake_distributions
from tests.servers import free_port

__all__ = ["fake_distributions"]

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
def test_loopback_addresses_need_no_token(host: str) -> None:
    assert is_loopback(host)
    check_bind_address(host, None)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "example.com"])
def test_other_addresses_need_a_token(host: str) -> None:
    assert not is_loopback(host)
    with pytest.raises(ConfigurationError, match="OSTINATO_SERVE_TOKEN"):
        check_bind_address(host, None)
    check_bind_address(host, "a-long-random-token")


def test_the_command_refuses_a_public_address_without_a_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OSTINATO_SERVE_TOKEN", raising=False)
    monkeypatch.setenv("OSTINATO_SERVE_HOST", "0.0.0.0")
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert "refusing to listen on '0.0.0.0' without a token" in err
    assert "OSTINATO_SERVE_TOKEN" in err


def test_the_command_is_listed_with_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    for option in ("--host", "--port", "--model", "--tools", "--mcp", "--system", "--option"):
        assert option in out


def test_serve_runs_the_configured_client(fake_distributions: FakeDistributions) -> None:
    scripted_provider.install(fake_distributions)
    port = free_port()
    env = {
        "PYTHONPATH": f"{fake_distributions.root}:{ROOT}",
        "OSTINATO_LOAD_PLUGINS": "scripted,serve",
        "PATH": "/usr/bin:/bin",
    }
    command = [
        sys.executable,
        "-m",
        "ostinato.cli",
        "serve",
        "--model",
        "scripted:weather",
        "--tools",
        "examples/weather.py",
        "--port",
        str(port),
        "-o",
        "temperature=0.5",
    ]
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL
    )
    try:
        assert process.stderr is not None
        seen = []
        for line in process.stderr:  # uvicorn says so once it listens
            seen.append(line)
            if "Uvicorn running on" in line:
                break
        assert any(f"http://127.0.0.1:{port}/" in line for line in seen), seen
        # A server runs on aiohttp when it is installed (the workspace has it) and nothing
        # names an engine: it pays aiohttp's start-up once, and less on every request.
        assert any("(HTTP engine: aiohttp; Ctrl-C stops)" in line for line in seen), seen
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            info = http.get("/api/info").json()
            answer = http.post(
                "/v1/chat/completions",
                json={"messages": [{"role": "user", "content": "Weather in Paris and Tokyo?"}]},
            ).json()
        assert info["model"] == "scripted:weather"
        assert [t["name"] for t in info["tools"]] == ["get_weather"]
        assert answer["choices"][0]["message"]["content"] == scripted_provider.WEATHER_ANSWER
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(15)
    assert code == 0
