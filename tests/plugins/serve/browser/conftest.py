"""The web page in a real browser: Chromium from the system packages, driven by Playwright.

The browser is the machine's own Chromium (``scripts/install-browser`` installs it with
apt-get; ``make test`` runs that first), launched headless with Chromium's background
connections off. Playwright never downloads a browser here. Without a Chromium the tests
skip, saying why and how to get one.

Each test serves a real app (``ostinato_serve.create_app``) with a real uvicorn on a
loopback socket that listens before uvicorn starts, so the browser can connect at once
(``tests.uvicorn_loopback``); the server stops when the test ends. When a test fails, a screenshot of the page and its console go to
``test-artifacts/browser/`` (gitignored). A page whose script threw, or that fetched
anything from elsewhere than its server, fails its test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.plugins.serve.browser.chromium import CHROMIUM_ARGS, NO_CHROMIUM, chromium_path
from tests.plugins.serve.browser.scenario import RELEASE
from tests.uvicorn_loopback import serve_on_loopback

__all__ = ["ARTIFACTS", "ServedPage", "browser", "open_page", "serve"]

ROOT = Path(__file__).resolve().parents[4]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
# Each expectation waits at most this long for the page to reach the state it expects.
EXPECT_TIMEOUT_MS = 10_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (a fresh profile of its own).

    Module scope, not session: while Playwright's sync API is open the main thread has a
    running event loop, which the async tests of later modules could not start theirs in.
    """
    executable = chromium_path()
    if executable is None:
        pytest.skip(NO_CHROMIUM)
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


@pytest.fixture
def serve() -> Iterator[Callable[[Any], str]]:
    """``serve(app)`` runs ``app`` on loopback for this test and returns its base URL
    (ending in ``/``)."""
    with ExitStack() as servers:
        try:
            yield lambda app: servers.enter_context(serve_on_loopback(app)) + "/"
        finally:
            RELEASE.set()  # before the servers stop: no running ``wait`` tool holds one


@pytest.fixture
def open_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Callable[..., ServedPage]]:
    """``open_page(url)`` opens ``url`` in a fresh browser context (its own storage)."""
    opened: list[ServedPage] = []
    contexts: list[Any] = []
    requested: list[str] = []

    def open_(url: str, *, width: int = 1000, height: int = 760) -> ServedPage:
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        console: list[str] = []
        page.on("request", lambda sent: requested.append(sent.url))
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
    thrown = [line for served in opened for line in served.console if line.startswith("pageerror")]
    assert not thrown, f"the page's script threw: {thrown}"
    assert requested or not opened, "no request of the page was seen"
    origins = {urlsplit(served.url).netloc for served in opened}
    elsewhere = [
        url
        for url in requested
        if urlsplit(url).scheme != "data" and urlsplit(url).netloc not in origins
    ]
    assert not elsewhere, f"the page fetched from elsewhere than its server: {elsewhere}"
