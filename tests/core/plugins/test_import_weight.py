"""``ostinato.plugins`` (what every plugin module imports) stays light, and ``import
ostinato`` does not import the plugin system or auto-configuration at all."""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, sys
import {module}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r} or m in {own!r})))
"""

HEAVY = ("httpx", "dependency_injector", "pydantic_settings")
OWN = ("ostinato.plugins", "ostinato.config", "ostinato.cli")


def imported_by(module: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE.format(module=module, heavy=HEAVY, own=OWN)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found: list[str] = json.loads(proc.stdout)
    return found


def test_import_ostinato_loads_neither_plugins_nor_config():
    assert imported_by("ostinato") == []


def test_the_plugin_api_does_not_import_auto_configuration():
    assert imported_by("ostinato.plugins") == ["ostinato.plugins"]
