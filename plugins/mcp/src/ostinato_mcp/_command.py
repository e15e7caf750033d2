"""``ostinato mcp list [--config FILE]``: each configured server, whether it starts, and
its tools — or why it does not. A broken server never hides the others; ``env`` and
``headers`` values are never shown. Like building a client, it warns when
``OSTINATO_MCP_CONFIG`` is set and ``OSTINATO_TOOLS__ENABLED`` does not list ``mcp``."""

from __future__ import annotations

import argparse
import asyncio
import sys
import warnings
from typing import TextIO

from ostinato.errors import ConfigurationError
from ostinato.redaction import mask_credentials
from ostinato_mcp._config import load_mcp_config
from ostinato_mcp._server import McpServer

__all__ = ["list_servers", "main"]


def _config_path(given: str | None) -> str:
    if given:
        return given
    from ostinato_mcp._settings import McpSettings

    path = McpSettings().config
    if path is None:
        raise ConfigurationError(
            "ostinato mcp list: no mcpServers file\n"
            "fix: pass --config path/to/mcp.json or set OSTINATO_MCP_CONFIG"
        )
    return str(path)


async def _describe(server: McpServer) -> tuple[bool, list[str]]:
    try:
        tools = await server.list_tools()
    except Exception as exc:
        return False, [mask_credentials(str(exc))]
    finally:
        await server.aclose()
    return True, [f"{t.tool_definition.name}: {t.tool_definition.description}" for t in tools]


async def list_servers(path: str, out: TextIO) -> int:
    """Print every server of the file at ``path``; 0 when all started, else 1."""
    config = load_mcp_config(path)
    servers = [McpServer(s, startup_timeout=30.0) for s in config.servers]
    results = await asyncio.gather(*(_describe(s) for s in servers))
    print(f"MCP servers of {config.path}", file=out)
    ok = True
    for server, (started, lines) in zip(servers, results):
        print(f"\n{server.name}  ({server.config.transport}: {server.config.target})", file=out)
        ok &= started
        prefix = "  " if started else "  FAILED: "
        for text in lines or ["(no tools)"]:
            first, *rest = text.splitlines() or [""]
            print(f"{prefix}{first}", file=out)
            for line in rest:  # a failure's fix, indented under it
                print(f"    {line}", file=out)
    for name, problem in config.problems.items():
        ok = False
        print(f"\n{name}  (not started: its configuration is broken)", file=out)
        for line in str(problem).splitlines():
            print(f"  {line}", file=out)
    for name in config.disabled:
        print(f"\n{name}  (disabled)", file=out)
    return 0 if ok else 1


def warn_when_not_enabled() -> None:
    """The warning building a client gives when the tool set ``mcp`` is configured but not
    enabled (nothing when core's settings or the plugins cannot be read: other commands
    report those)."""
    from ostinato.config import create_plugin_manager, load_core_settings, tool_sets_not_enabled
    from ostinato.errors import OstinatoError
    from ostinato.plugins import ToolSetNotEnabledWarning, collect_registry

    try:
        settings = load_core_settings()
        registry = collect_registry(create_plugin_manager(settings))
    except OstinatoError:
        return
    for note in tool_sets_not_enabled(settings, registry):
        warnings.warn(note, ToolSetNotEnabledWarning, stacklevel=2)


def main(argv: list[str]) -> int:
    """Run ``ostinato mcp``; the exit code (2 for a usage error).

    Raises:
        ConfigurationError: no ``mcpServers`` file is configured, or it is broken.
    """
    parser = argparse.ArgumentParser(
        prog="ostinato mcp", description="MCP servers and their tools."
    )
    commands = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = commands.add_parser("list", help="each server, whether it starts, and its tools")
    listing.add_argument(
        "--config", "-c", metavar="FILE", help="the mcpServers file (default: OSTINATO_MCP_CONFIG)"
    )
    args = parser.parse_args(argv)
    warn_when_not_enabled()
    # A broken file or setting (McpConfigError is a ConfigurationError) reaches the
    # ostinato command, which prints it as every command's errors: error, then fix.
    return asyncio.run(list_servers(_config_path(args.config), sys.stdout))
