"""Takes the documentation's picture of the web page: ``docs/serve-page.png``.

Serves the scenario's client (``scenario.py``) with the real app on loopback, asks about
the weather (two tool calls run), asks to pay (a call waits for approval), and saves what
the browser shows. Run it from the repository root after changing the page::

    uv run --no-sync python -m tests.plugins.serve.browser.screenshot
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from tests.plugins.serve.browser.chromium import CHROMIUM_ARGS, NO_CHROMIUM, chromium_path
from tests.plugins.serve.browser.scenario import build_app
from tests.uvicorn_loopback import serve_on_loopback

__all__ = ["take_screenshot"]

DEFAULT_PATH = Path(__file__).resolve().parents[4] / "docs" / "serve-page.png"


def take_screenshot(path: Path) -> None:
    """Save the page, mid-conversation, to ``path``."""
    executable = chromium_path()
    if executable is None:
        raise SystemExit(NO_CHROMIUM.replace("BROWSER TESTS SKIPPED: ", ""))
    with (
        serve_on_loopback(build_app()) as url,
        sync_playwright() as playwright,
        tempfile.TemporaryDirectory() as profile,
    ):
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=executable,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1040, "height": 860},
            device_scale_factor=1,
            color_scheme="light",
        )
        page = context.new_page()
        page.goto(url)
        question = page.get_by_test_id("question")
        question.fill("What is the weather in Lisbon and in Paris?")
        question.press("Enter")
        expect(page.get_by_test_id("status")).to_have_attribute("data-state", "idle")
        question.fill("Then pay Ann 50 EUR for the umbrella")
        question.press("Enter")
        expect(page.get_by_test_id("approve")).to_be_visible()
        page.mouse.move(0, 0)
        page.screenshot(path=str(path))
        context.close()


if __name__ == "__main__":
    take_screenshot(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PATH)
    print(f"saved {sys.argv[1] if len(sys.argv) > 1 else DEFAULT_PATH}")
