"""Choosing the HTTP engine under httpx's API (``ostinato.transport._engine``).

What each engine does on the wire (timeouts, deadlines, cancellation, size limits,
retries, connections) is checked by the reliability suite, which runs on both.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import httpx
import pytest

from ostinato.errors import ConfigurationError
from ostinato.transport._engine import (
    DEFAULT_ENGINE,
    ENGINE_VARIABLE,
    DeferredAiohttpTransport,
    check_engine,
    prefer_server_engine,
)
from ostinato_openai import OpenAIChatModel


@pytest.fixture(autouse=True)
def no_engine_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENGINE_VARIABLE, raising=False)


def transport_of(model: OpenAIChatModel) -> object:
    async def client() -> httpx.AsyncClient:
        made: httpx.AsyncClient = model._clients.get()
        await model.aclose()
        return made

    return asyncio.run(client())._transport


def test_httpx_is_the_default() -> None:
    assert DEFAULT_ENGINE == "httpx"
    assert check_engine(None) == "httpx"
    assert isinstance(transport_of(OpenAIChatModel(model="m")), httpx.AsyncHTTPTransport)


def test_the_variable_chooses_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENGINE_VARIABLE, "aiohttp")
    assert check_engine(None) == "aiohttp"
    assert isinstance(transport_of(OpenAIChatModel(model="m")), DeferredAiohttpTransport)


def test_the_variable_may_come_from_dotenv(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    tmp_path.joinpath(".env").write_text(f"{ENGINE_VARIABLE}=aiohttp\n", "utf-8")
    assert check_engine(None) == "aiohttp"


def test_the_environment_wins_over_dotenv(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    tmp_path.joinpath(".env").write_text(f"{ENGINE_VARIABLE}=aiohttp\n", "utf-8")
    monkeypatch.setenv(ENGINE_VARIABLE, "httpx")
    assert check_engine(None) == "httpx"


def test_a_wrong_value_is_refused_when_the_settings_load(tmp_path, monkeypatch) -> None:
    from ostinato.errors import ConfigurationError as Refused
    from ostinato.settings import Settings, load_settings

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(ENGINE_VARIABLE, "curl")
    with pytest.raises(Refused, match="OSTINATO_HTTP_ENGINE"):
        load_settings(Settings)


def test_the_argument_wins_over_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENGINE_VARIABLE, "aiohttp")
    model = OpenAIChatModel(model="m", http_engine="httpx")
    assert isinstance(transport_of(model), httpx.AsyncHTTPTransport)


def test_a_client_factory_makes_the_engine_irrelevant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENGINE_VARIABLE, "no-such-engine")  # not even read
    transport = httpx.MockTransport(lambda request: httpx.Response(200))
    model = OpenAIChatModel(
        model="m", http_client_factory=lambda: httpx.AsyncClient(transport=transport)
    )
    assert transport_of(model) is transport


@pytest.mark.parametrize(
    ("argument", "variable", "named"),
    [("curl", None, "http_engine"), (None, "curl", ENGINE_VARIABLE)],
)
def test_an_unknown_engine_is_a_configuration_error(
    argument: str | None, variable: str | None, named: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if variable is not None:
        monkeypatch.setenv(ENGINE_VARIABLE, variable)
    with pytest.raises(ConfigurationError) as caught:
        OpenAIChatModel(model="m", http_engine=argument)
    message = str(caught.value)
    assert f"{named} must be one of httpx, aiohttp, got 'curl'" in message
    assert "fix:" in message


def test_aiohttp_without_its_package_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("ostinato.transport._engine.find_spec", lambda name: None)
    with pytest.raises(ConfigurationError) as caught:
        check_engine("aiohttp")
    assert "needs the httpx-aiohttp package" in str(caught.value)
    assert "pip install 'ostinato[aiohttp]'" in str(caught.value)


_LAZY_PROBE = """
import asyncio, json, sys
from tests.reliability.faultserver import FaultServer, model_reply
from ostinato.prompt import Prompt
from ostinato_openai import OpenAIChatModel

server = FaultServer(model_reply).start()
seen = {}

async def main():
    model = OpenAIChatModel(model="m", base_url=server.base_url, http_engine="aiohttp")
    model._clients.get()
    seen["client"] = "aiohttp" in sys.modules
    seen["answer"] = (await model.call(Prompt("hi"))).result.output.text
    seen["request"] = "aiohttp" in sys.modules
    await model.aclose()

asyncio.run(main())
server.stop()
print(json.dumps(seen))
"""


def test_aiohttp_is_imported_by_the_first_request_not_by_the_client() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LAZY_PROBE], capture_output=True, text=True, check=True
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"client": False, "answer": "answer to hi", "request": True}


def test_a_server_prefers_aiohttp_within_its_block_when_nothing_names_an_engine(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env
    with prefer_server_engine() as engine:
        assert engine == "aiohttp"
        assert check_engine(None) == "aiohttp"
        assert isinstance(transport_of(OpenAIChatModel(model="m")), DeferredAiohttpTransport)
        assert check_engine("httpx") == "httpx"  # a model's own choice still wins
    assert check_engine(None) == "httpx"  # restored on the way out


def test_a_server_keeps_the_engine_the_variable_or_dotenv_names(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(ENGINE_VARIABLE, "httpx")
    with prefer_server_engine() as engine:
        assert engine == "httpx"
    monkeypatch.delenv(ENGINE_VARIABLE)
    tmp_path.joinpath(".env").write_text(f"{ENGINE_VARIABLE}=httpx\n", "utf-8")
    with prefer_server_engine() as engine:
        assert engine == "httpx"
        assert check_engine(None) == "httpx"
