"""The aiohttp engine and the environment: proxies and ``.netrc``, looked for once.

aiohttp, trusting the environment, looks for a proxy and a ``.netrc`` entry on worker
threads for every request; the engine asks it to only where the environment has one of
them, and a proxy named there still carries the requests.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from ostinato.prompt import Prompt
from ostinato.transport._engine import DeferredAiohttpTransport, _environment_configures_aiohttp
from ostinato_openai import OpenAIChatModel
from tests.reliability.faultserver import FaultServer

pytestmark = pytest.mark.usefixtures("bare_environment")


def session_trusts_env() -> bool:
    async def build() -> bool:
        transport = DeferredAiohttpTransport(httpx.Limits(), trust_env=True)
        session = transport._build().get_client()  # type: ignore[attr-defined]
        trusted: bool = session.trust_env
        await session.close()
        return trusted

    return asyncio.run(build())


def test_a_bare_environment_leaves_aiohttp_nothing_to_look_for() -> None:
    assert not _environment_configures_aiohttp()
    assert not session_trusts_env()


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "https_proxy"])
def test_a_proxy_variable_makes_aiohttp_trust_the_environment(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(variable, "http://127.0.0.1:9")
    assert _environment_configures_aiohttp()
    assert session_trusts_env()


def test_a_netrc_file_makes_aiohttp_trust_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine models.example login user password secret\n")
    monkeypatch.setenv("NETRC", str(netrc))
    assert _environment_configures_aiohttp()
    assert session_trusts_env()


def test_a_proxy_from_the_environment_carries_the_requests(
    loopback_proxy: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{loopback_proxy.port}")

    async def ask() -> str | None:
        model = OpenAIChatModel(
            model="m", base_url="http://models.example/v1", http_engine="aiohttp"
        )
        try:
            return (await model.call(Prompt("hi"))).result.output.text
        finally:
            await model.aclose()

    assert asyncio.run(ask()) == "answer to hi"
    # An HTTP proxy is sent the whole URL (absolute form), not just the path.
    assert [r.target for r in loopback_proxy.requests] == [
        "http://models.example/v1/chat/completions"
    ]
