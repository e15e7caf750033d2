"""The warm server: models use it while it runs, requests keep it up, idleness stops it."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from ostinato.config import load_settings
from ostinato.messages import UserMessage
from ostinato.prompt import Prompt
from ostinato_llamacpp import CacheLayout, LlamaCppSettings, create_chat_model
from ostinato_llamacpp._factory import server_spec
from ostinato_llamacpp._warm import find_warm_server, serve_warm, warm_record_path


@pytest.fixture
def layout(cache: Path) -> CacheLayout:
    """The layout of a cache holding a "built" stub server and a "model"."""
    return CacheLayout(cache)


class Warm:
    """``serve_warm`` in a thread; ``url`` once it is up."""

    def __init__(self, layout: CacheLayout, idle: float) -> None:
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.url = ""
        spec = server_spec("default", load_settings(LlamaCppSettings))

        def on_ready(url: str) -> None:
            self.url = url
            self.ready.set()

        self.thread = threading.Thread(
            target=serve_warm,
            args=(spec, layout),
            kwargs={"idle": idle, "poll": 0.1, "on_ready": on_ready, "stop": self.stop},
            daemon=True,
        )
        self.thread.start()
        assert self.ready.wait(30), "the warm server did not start"


@pytest.fixture
def warm(layout: CacheLayout) -> Iterator[Warm]:
    server = Warm(layout, idle=60)
    yield server
    server.stop.set()
    server.thread.join(15)


async def test_a_model_built_while_the_warm_server_runs_uses_it(
    warm: Warm, layout: CacheLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = create_chat_model("default")
    try:
        assert model.base_url == warm.url and model.server is None  # started nothing
        response = await model.call(Prompt([UserMessage("hi")]))
        assert response.text == "hello from the stub"
    finally:
        await model.aclose()
    assert find_warm_server(layout, server_spec("default", load_settings(LlamaCppSettings)))
    # another configuration is another server: not the warm one
    monkeypatch.setenv("OSTINATO_LLAMACPP_CONTEXT", "1024")
    other = create_chat_model("default")
    assert other.base_url is None and other.spec_of_server.context == 1024
    warm.stop.set()
    warm.thread.join(15)
    assert not warm.thread.is_alive() and not warm_record_path(layout).exists()
    monkeypatch.delenv("OSTINATO_LLAMACPP_CONTEXT")
    assert create_chat_model("default").base_url is None  # gone: models start their own


def test_requests_keep_it_warm_and_idleness_stops_it(layout: CacheLayout) -> None:
    warm = Warm(layout, idle=3.0)
    record = json.loads(warm_record_path(layout).read_text())
    port = int(record["port"])
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode()
    busy_until = time.monotonic() + 4.5  # longer than the idle time
    while time.monotonic() < busy_until:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            data=body,
            headers={"content-type": "application/json"},
        )
        urllib.request.urlopen(request, timeout=10).close()
        time.sleep(0.2)
    assert warm.thread.is_alive() and warm_record_path(layout).exists()
    warm.thread.join(3.0 + 10)  # idle from now on: it stops by itself
    assert not warm.thread.is_alive() and not warm_record_path(layout).exists()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2)


def test_the_serve_command_says_where_and_then_that_it_stopped(
    layout: CacheLayout, capsys: pytest.CaptureFixture[str]
) -> None:
    from ostinato_llamacpp._cli import main

    assert main(["serve", "--idle", "0.5"]) == 0
    out = capsys.readouterr().err
    assert "llama-server for llamacpp:default warm at http://127.0.0.1:" in out
    assert "stops after 0.5 s without a request" in out and "llama-server stopped" in out
    assert not warm_record_path(layout).exists()


def test_a_stale_record_is_ignored(layout: CacheLayout) -> None:
    warm_record_path(layout).write_text(json.dumps({"pid": 999_999_999, "port": 1, "key": "x"}))
    assert create_chat_model("default").base_url is None
