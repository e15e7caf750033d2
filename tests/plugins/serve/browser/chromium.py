"""The system's Chromium, for the page's browser tests and the documentation's screenshot.

Chromium comes from the system packages (``scripts/install-browser``), never from
Playwright's own downloads, and runs headless with its background connections off.
"""

from __future__ import annotations

import os
import shutil
from typing import Final

__all__ = ["CHROMIUM_ARGS", "NO_CHROMIUM", "chromium_path"]

CHROMIUM_ARGS: Final = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

NO_CHROMIUM: Final = (
    "BROWSER TESTS SKIPPED: no Chromium on this machine. Install it with "
    "`scripts/install-browser` (`make test` runs it; it needs root and apt-get), "
    "or point OSTINATO_CHROMIUM at a Chromium binary"
)


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
