"""Fixtures: a stub ``llama-server`` binary, specs scripting it, a clean environment."""

from __future__ import annotations

import json
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ostinato_llamacpp import ServerSpec
from ostinato_llamacpp._shared import _servers
from tests.fakes.distributions import clean_environment

__all__ = ["cache", "clean_environment", "make_spec", "stub_binary"]

STUB = Path(__file__).with_name("stub_llama_server.py")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "llamacpp_e2e: end-to-end test against the real llama-server and bundled model "
        "(needs `ostinato local setup`; SKIP_LLAMACPP_E2E=1 skips it)",
    )


@pytest.fixture
def stub_binary(tmp_path: Path) -> Path:
    """An executable that runs the stub server with this interpreter."""
    path = tmp_path / "bin" / "llama-server"
    path.parent.mkdir()
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{STUB}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def make_spec(tmp_path: Path, stub_binary: Path) -> Callable[..., ServerSpec]:
    """``make_spec(reply="hi", ...)``: a spec whose "model" scripts the stub (see its doc)."""
    counter = iter(range(1_000_000))

    def make(**script: Any) -> ServerSpec:
        script.setdefault("pid_file", str(tmp_path / f"server-{next(counter)}.pid"))
        model = tmp_path / f"model-{next(counter)}.gguf"
        model.write_text(json.dumps(script))
        return ServerSpec(binary=stub_binary, model=model, context=0)

    return make


@pytest.fixture(autouse=True)
def _no_leftover_shared_servers(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if request.node.get_closest_marker("llamacpp_e2e"):
        return  # its server lives for the module, closed by its own fixture
    leftovers = [server for server, _ in _servers.values()]
    running = [server for server in leftovers if server.running]
    for server in leftovers:
        server.stop()
    _servers.clear()
    assert not running, f"a test left shared servers running: {running}"


@pytest.fixture(autouse=True)
def _isolated(clean_environment: Path) -> Path:
    return clean_environment


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stub_binary: Path) -> Path:
    """A cache directory holding a built "server" (the stub) and an assembled "model",
    named by ``OSTINATO_LLAMACPP_CACHE_DIR``."""
    from ostinato_llamacpp import DEFAULT_MODEL

    root = tmp_path / "cache"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "llama-server").symlink_to(stub_binary)
    (root / "models").mkdir()
    (root / "models" / DEFAULT_MODEL.filename).write_text("{}")
    monkeypatch.setenv("OSTINATO_LLAMACPP_CACHE_DIR", str(root))
    return root
