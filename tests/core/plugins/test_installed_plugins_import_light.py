"""Every installed plugin's entry-point module imports without heavy libraries.

Loading plugins happens on every ``ostinato.chat_client()`` and every ``ostinato`` command,
so a plugin module must hold hook implementations only; httpx and provider SDKs are
imported inside factories. Each module is imported in a fresh interpreter.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys

import pytest

HEAVY = (
    "httpx",
    "httpx2",
    "httpcore",
    "openai",
    "anthropic",
    "ollama",
    "llama_cpp",
    "aiohttp",
    "requests",
    "mcp",
    "anyio",
    "psycopg",
    "psycopg_pool",
    "redis",
)

_PROBE = f"""
import importlib, json, sys
importlib.import_module(sys.argv[1])
heavy = {HEAVY!r}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
"""

INSTALLED = sorted(
    importlib.metadata.entry_points(group="ostinato"), key=lambda ep: (ep.name, ep.value)
)


@pytest.mark.skipif(not INSTALLED, reason="no plugin is installed")
@pytest.mark.parametrize("entry_point", INSTALLED, ids=lambda ep: ep.name)
def test_plugin_module_imports_no_heavy_library(entry_point: importlib.metadata.EntryPoint):
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, entry_point.module],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    dist = entry_point.dist.name if entry_point.dist else "?"
    assert proc.returncode == 0, (
        f"plugin {entry_point.name!r} ({dist}): importing {entry_point.module} failed:\n"
        f"{proc.stderr}"
    )
    assert json.loads(proc.stdout) == [], (
        f"plugin {entry_point.name!r} ({dist}): importing {entry_point.module} imported "
        f"{proc.stdout.strip()}; import them inside the factories instead"
    )
