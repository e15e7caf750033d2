"""The HTTP provider walkthrough of docs/plugins.md, built from its code blocks and run.

The blocks of "An HTTP provider plugin on ``ostinato.http``" whose first line names a
file are written to a package in an empty directory and imported; the model then answers
through ``call()`` and ``stream()`` against an ``httpx.MockTransport``, reports an error
body and a redirect as the base promises, and the plugin's factory builds it from its
settings. The source stays small: a provider is its wire format.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from ostinato.errors import ConfigurationError, ModelError, NotFoundError, StreamInterruptedError
from ostinato.plugins import FactoryContext, PluginInfo, PluginManager, collect_registry
from ostinato.prompt import Prompt
from ostinato.settings import Settings
from tests.docs.test_plugin_walkthrough import BLOCK, FILE_COMMENT
from tests.fakes.mock_model import aggregate, mock_model, stream_chunks

PAGE = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"
SECTION = "## An HTTP provider plugin on `ostinato.http`"


def walkthrough_files() -> dict[str, str]:
    """The files of the section: path -> contents."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    files = {}
    for block in BLOCK.finditer(text[start:end]):
        body = block.group("body")
        named = FILE_COMMENT.fullmatch(body.splitlines()[0]) if body.strip() else None
        if named:
            files[named.group("path")] = body
    return files


@pytest.fixture(scope="module")
def acme(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ModuleType]]:
    root = tmp_path_factory.mktemp("acme-plugin")
    (root / "acme").mkdir()
    (root / "acme" / "__init__.py").write_text("")
    for path, body in walkthrough_files().items():
        (root / path).write_text(body)
    sys.path.insert(0, str(root))
    try:
        yield {name: importlib.import_module(f"acme.{name}") for name in ("_model", "plugin")}
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == "acme" or n.startswith("acme.")]:
            del sys.modules[name]


def sse(*events: dict[str, Any]) -> httpx.Response:
    text = "".join(f"data: {json.dumps(e)}\n\n" for e in events)
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=text)


def model(acme: dict[str, ModuleType], *replies: Any, **kwargs: Any) -> tuple[Any, list[Any]]:
    cls = acme["_model"].AcmeChatModel
    return mock_model(cls, *replies, model="acme-1", api_key="sk-acme-secret", **kwargs)


def test_the_walkthrough_names_its_three_files_and_stays_small() -> None:
    files = walkthrough_files()
    assert set(files) == {"acme/settings.py", "acme/_model.py", "acme/plugin.py"}
    assert sum(len(body.splitlines()) for body in files.values()) < 300


async def test_call_sends_the_body_and_reads_the_answer(acme: dict[str, ModuleType]) -> None:
    acme_model, sent = model(acme, httpx.Response(200, json={"answer": "hello"}))
    response = await acme_model.call(Prompt("hi"))
    assert response.text == "hello"
    (request,) = sent
    assert request.url == "https://api.acme.example/v1/chat"
    assert request.headers["authorization"] == "Bearer sk-acme-secret"
    assert request.headers["user-agent"] == "ostinato-acme/0.1.0"
    assert json.loads(request.content) == {
        "model": "acme-1",
        "messages": [{"role": "user", "text": "hi"}],
        "stream": False,
    }


async def test_stream_reads_the_events_until_the_stop(acme: dict[str, ModuleType]) -> None:
    reply = sse({"delta": "Hel"}, {"delta": "lo"}, {"stop": True})
    acme_model, sent = model(acme, reply)
    assert [c.text for c in await stream_chunks(acme_model)] == ["Hel", "lo"]
    assert json.loads(sent[0].content)["stream"] is True
    cut, _ = model(acme, sse({"delta": "Hel"}))
    with pytest.raises(StreamInterruptedError, match="ended without its stop event"):
        await aggregate(cut)


async def test_errors_come_typed_from_the_base(acme: dict[str, ModuleType]) -> None:
    missing = httpx.Response(404, json={"error": {"kind": "no_model", "message": "unknown"}})
    acme_model, _ = model(acme, missing)
    with pytest.raises(NotFoundError) as caught:
        await acme_model.call(Prompt("hi"))
    assert str(caught.value) == "acme error 404 (no_model): unknown"
    moved = httpx.Response(308, headers={"location": "https://v2.acme.example/v1/chat"})
    acme_model, _ = model(acme, moved)
    with pytest.raises(ModelError, match="fix: set OSTINATO_ACME_BASE_URL"):
        await acme_model.call(Prompt("hi"))
    in_stream, _ = model(acme, sse({"error": {"kind": "overloaded", "message": "busy"}}))
    with pytest.raises(ModelError, match="acme error \\(overloaded\\): busy"):
        await aggregate(in_stream)


def test_the_plugin_builds_the_model_from_its_settings(
    acme: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = PluginManager(strict=True)
    manager.add_plugin(acme["plugin"], PluginInfo("acme", value="acme.plugin"))
    registry = collect_registry(manager)
    context = FactoryContext(registry=registry, settings=Settings())
    factory = registry.chat_models["acme"].value
    monkeypatch.delenv("OSTINATO_ACME_API_KEY", raising=False)
    monkeypatch.delenv("ACME_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="set OSTINATO_ACME_API_KEY \\(or ACME_API_KEY\\)"):
        factory(context, "")
    monkeypatch.setenv("ACME_API_KEY", "k")
    monkeypatch.setenv("OSTINATO_ACME_CALL_DEADLINE", "30")
    built = factory(context, "")
    assert built.default_options.model == "acme-1"
    assert built._call_deadline == 30.0
