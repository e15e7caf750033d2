"""``ostinato serve``: the auto-configured client as an HTTP service.

The client is built exactly as ``ostinato chat`` builds it (``--model``, ``--tools``,
``--mcp``, ``--system``, ``-o key=value``, through auto-configuration), then served with
uvicorn on ``--host`` / ``--port`` (else ``OSTINATO_SERVE_HOST`` / ``_PORT``; loopback
by default). The token is read from ``OSTINATO_SERVE_TOKEN`` only, never from the command
line, where other users of the machine could read it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from typing import Any

from ostinato.cli import ConfiguredClient, add_client_options, open_client
from ostinato.errors import ConfigurationError
from ostinato.settings import load_settings
from ostinato.transport import prefer_server_engine
from ostinato_serve._settings import ServeSettings, check_bind_address

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``ostinato serve``."""
    parser = argparse.ArgumentParser(
        prog="ostinato serve",
        description=(
            "Serve the configured client over HTTP: an OpenAI-compatible /v1/chat/completions, "
            "the tool loop's events (/api/turns), approvals, conversations and a web page at /. "
            "Listens on 127.0.0.1 unless told otherwise; any other address needs "
            "OSTINATO_SERVE_TOKEN."
        ),
    )
    parser.add_argument("--host", help="the address to listen on (default: OSTINATO_SERVE_HOST)")
    parser.add_argument("--port", "-p", type=int, help="the port (default: OSTINATO_SERVE_PORT)")
    add_client_options(parser)
    return parser


def _build(args: argparse.Namespace) -> tuple[Any, ConfiguredClient]:
    """The app, and the client whose model must be closed at the end."""
    from ostinato_serve._app import create_app

    configured = open_client(args)
    serve_settings = load_settings(ServeSettings)
    if serve_settings.turns == "durable" and not serve_settings.durable_tools and args.tools:
        serve_settings = serve_settings.model_copy(update={"durable_tools": ",".join(args.tools)})
    app = create_app(
        configured.client,
        tools=list(configured.tools),
        settings=serve_settings,
        model_name=configured.model_name,
    )
    return app, configured


async def _serve(app: Any, configured: ConfiguredClient, host: str, port: int) -> None:
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="info", lifespan="off")
    async with configured:
        await uvicorn.Server(config).serve()


def main(argv: list[str]) -> int:
    """Run ``ostinato serve``; the exit code (2 for a usage or configuration error).

    Raises:
        ConfigurationError: a setting or option is wrong, or the address is beyond
            loopback and no token is set.
    """
    args = build_parser().parse_args(argv)
    settings = load_settings(ServeSettings)
    host = args.host if args.host is not None else settings.host
    port = args.port if args.port is not None else settings.port
    if not 0 <= port <= 65535:
        raise ConfigurationError(f"--port {port}: expected a port from 0 to 65535")
    check_bind_address(host, settings.token_value)
    # A server runs for long: aiohttp's start-up cost is soon paid back.
    with prefer_server_engine() as engine:
        app, configured = _build(args)
        shown = f"[{host}]" if ":" in host else host
        print(
            f"ostinato serve: http://{shown}:{port}/ (HTTP engine: {engine}; Ctrl-C stops)",
            file=sys.stderr,
        )
        # uvicorn stops on Ctrl-C, then raises it again: here that is a normal stop.
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_serve(app, configured, host, port))
    return 0
