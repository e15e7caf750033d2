"""``ostinato mcp list [--config FILE]``: each configured server, whether it starts, and
its tools — or why it does not. ``ostinato mcp serve``: the configured client's tools
(``--tools``, ``--mcp``...; ``--agent`` adds the agent as one tool) as an MCP server, on
stdio or, with ``--http HOST:PORT``, over streamable HTTP at ``/mcp``. A broken server
never hides the others; ``env`` and ``headers`` values are never shown. Like building a
client, it warns when ``OSTINATO_MCP_CONFIG`` is set and ``OSTINATO_TOOLS__ENABLED``
does not list ``mcp``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import warnings
from typing import TextIO

from ostinato.errors import ConfigurationError
from ostinato.redaction import mask_credentials
from ostinato_mcp._config import load_mcp_config
from ostinato_mcp._server import McpServer

__all__ = ["list_servers", "main", "serve"]


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


def serve(args: argparse.Namespace) -> int:
    """``ostinato mcp serve`` with the parsed ``args``; 0 when it stopped.

    Raises:
        ConfigurationError: an option is wrong, or the client cannot be built.
    """
    from ostinato.cli import open_client
    from ostinato_mcp._serve import build_mcp_server, http_app, serve_stdio

    host, port = "", 0
    if args.http:
        host, _, given = args.http.rpartition(":")
        if not host or not given.isdigit():
            raise ConfigurationError(
                f"--http {args.http!r}: expected HOST:PORT\nfix: e.g. --http 127.0.0.1:8765"
            )
        port = int(given)
    configured = open_client(args)
    server = build_mcp_server(
        list(configured.tools), agent=configured.client if args.agent else None
    )

    async def run() -> None:
        async with configured:
            if not args.http:
                await serve_stdio(server)
                return
            import uvicorn

            config = uvicorn.Config(http_app(server, host=host), host=host, port=port)
            await uvicorn.Server(config).serve()

    if args.http:
        print(f"ostinato mcp serve: http://{host}:{port}/mcp (Ctrl-C stops)", file=sys.stderr)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())
    return 0


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
    serving = commands.add_parser("serve", help="offer the configured tools as an MCP server")
    serving.add_argument(
        "--agent", action="store_true", help="also offer the agent itself as the tool ask_agent"
    )
    serving.add_argument(
        "--http", metavar="HOST:PORT", help="serve streamable HTTP at /mcp (default: stdio)"
    )
    from ostinato.cli import add_client_options

    add_client_options(serving)
    args = parser.parse_args(argv)
    if args.action == "serve":
        return serve(args)
    warn_when_not_enabled()
    # A broken file or setting (McpConfigError is a ConfigurationError) reaches the
    # ostinato command, which prints it as every command's errors: error, then fix.
    return asyncio.run(list_servers(_config_path(args.config), sys.stdout))
