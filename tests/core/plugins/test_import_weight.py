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


def test_settings_do_not_import_the_container():
    found = imported_by("ostinato.settings")
    assert "dependency_injector" not in found
    assert "ostinato.config" not in found


def test_the_old_settings_spellings_do_not_import_the_container_either():
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from ostinato.config import Settings, load_settings, PluginSettings\n"
            "from ostinato.settings import load_settings as new\n"
            "assert load_settings is new\n"
            "print('dependency_injector' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip() == "False"


def test_the_container_is_imported_on_first_use():
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "import ostinato.config as config\n"
            "before = 'dependency_injector' in sys.modules\n"
            "config.AutoConfiguration\n"
            "print(before, 'dependency_injector' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.split() == ["False", "True"]
