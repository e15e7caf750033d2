"""The web page in a real browser: Chromium from the system packages, driven by Playwright.

The browser is the machine's own Chromium (``scripts/install-browser`` installs it with
apt-get; ``make test`` runs that first), launched headless with Chromium's background
connections off. Playwright never downloads a browser here. Without a Chromium the tests
skip, saying why and how to get one.

Each test serves a real app (``ostinato_serve.create_app``) with a real uvicorn on a
loopback socket the fixture binds and listens on itself, so the browser can connect at
once (the kernel queues the connection until uvicorn accepts it); the server stops when
the test ends. When a test fails, a screenshot of the page and its console go to
``test-artifacts/browser/`` (gitignored).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "ARTIFACTS",
    "CHROMIUM_ARGS",
    "ServedPage",
    "browser",
    "chromium_path",
    "open_page",
    "serve",
]

ROOT = Path(__file__).resolve().parents[4]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Each expectation waits at most this long for the page to reach the state it expects.
EXPECT_TIMEOUT_MS = 10_000


def chromium_path() -> str | None:
    """The system's Chromium: ``OSTINATO_CHROMIUM``, else the Debian package's binary."""
    for candidate in (os.environ.get("OSTINATO_CHROMIUM"), "/usr/bin/chromium"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session (a fresh profile of its own)."""
    executable = chromium_path()
    if executable is None:
        pytest.skip(
            "BROWSER TESTS SKIPPED: no Chromium on this machine. Install it with "
            "`scripts/install-browser` (`make test` runs it; it needs root and apt-get), "
            "or point OSTINATO_CHROMIUM at a Chromium binary"
        )
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class ServedPage:
    """A page open on a served app, and what the browser logged."""

    page: Any
    url: str
    console: list[str]


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the item, so fixtures know whether the test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def _save_artifacts(request: pytest.FixtureRequest, pages: list[ServedPage]) -> None:
    report = getattr(request.node, "report_call", None)
    if report is None or not report.failed:
        return
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    stem = request.node.name.replace("/", "_").replace("[", "-").replace("]", "")
    for n, served in enumerate(pages):
        name = f"{stem}-{n}" if len(pages) > 1 else stem
        try:
            served.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        except Exception as error:  # a crashed page still gets its console saved
            served.console.append(f"(no screenshot: {error})")
        (ARTIFACTS / f"{name}.console.txt").write_text("\n".join(served.console) + "\n")


class _LoopbackServer:
    """uvicorn serving ``app`` on a socket of 127.0.0.1 that already listens."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port: int = self.socket.getsockname()[1]
        config = uvicorn.Config(
            app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )
        self.thread.start()

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.socket.close()
        if self.thread.is_alive():
            raise RuntimeError("the test's uvicorn did not stop within 10 s")


@pytest.fixture
def serve() -> Iterator[Callable[[Any], str]]:
    """``serve(app)`` runs ``app`` on loopback for this test and returns its base URL."""
    servers: list[_LoopbackServer] = []

    def start(app: Any) -> str:
        server = _LoopbackServer(app)
        servers.append(server)
        return f"http://127.0.0.1:{server.port}/"

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def open_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Callable[..., ServedPage]]:
    """``open_page(url)`` opens ``url`` in a fresh browser context (its own storage)."""
    opened: list[ServedPage] = []
    contexts: list[Any] = []

    def open_(url: str, *, width: int = 1000, height: int = 760) -> ServedPage:
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        console: list[str] = []
        page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
        page.on("pageerror", lambda error: console.append(f"pageerror: {error}"))
        served = ServedPage(page, url, console)
        opened.append(served)
        page.goto(url)
        return served

    yield open_
    _save_artifacts(request, opened)
    for context in contexts:
        context.close()
