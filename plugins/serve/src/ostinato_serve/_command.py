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

from ostinato.errors import ConfigurationError
from ostinato.settings import load_settings
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
    parser.add_argument(
        "--model", "-m", metavar="PROVIDER:MODEL", help="the model, e.g. openai:gpt-4.1-mini"
    )
    parser.add_argument(
        "--tools",
        "-t",
        action="append",
        default=[],
        metavar="SOURCE",
        help="tools to offer: module:attribute, a module, or a .py file (repeatable)",
    )
    parser.add_argument(
        "--mcp",
        metavar="FILE",
        help="also offer the tools of the MCP servers of an mcpServers JSON file "
        "(needs ostinato-mcp)",
    )
    parser.add_argument("--system", "-s", metavar="TEXT", help="the system message")
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a model option, e.g. -o temperature=0.2 (repeatable; checked against the model)",
    )
    parser.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help="set up the local default model without asking when it is not set up",
    )
    return parser


def _build(args: argparse.Namespace) -> tuple[Any, Any]:
    """The app, and the session whose model must be closed at the end."""
    from ostinato.cli._chat_session import open_session
    from ostinato.cli._context import load_context
    from ostinato.cli._model_choice import choose_model, ensure_local_model
    from ostinato.cli._model_options import model_options
    from ostinato.cli._tool_loading import load_tools
    from ostinato.prompt import ChatOptions
    from ostinato_serve._app import create_app

    settings, manager, registry = load_context().loaded()
    choice = choose_model(args.model, settings.model, registry)
    tools = load_tools(args.tools)
    ensure_local_model(choice, registry, sys.stderr, assume_yes=args.yes, stdin=sys.stdin)
    session = open_session(choice, manager, registry, mcp_config=args.mcp)
    builder = session.client.mutate()
    if args.system is not None:
        builder.default_system(args.system)
    defaults = getattr(session.model, "default_options", None)
    options = model_options(
        args.option,
        defaults if isinstance(defaults, ChatOptions) else ChatOptions(),
        choice.provider,
    )
    if options is not None:
        builder.default_options(options)
    serve_settings = load_settings(ServeSettings)
    app = create_app(builder.build(), tools=tools, settings=serve_settings, model_name=choice.model)
    return app, session


async def _serve(app: Any, session: Any, host: str, port: int) -> None:
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="info", lifespan="off")
    try:
        await uvicorn.Server(config).serve()
    finally:
        await session.aclose()


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
    app, session = _build(args)
    shown = f"[{host}]" if ":" in host else host
    print(f"ostinato serve: http://{shown}:{port}/ (Ctrl-C stops)", file=sys.stderr)
    # uvicorn stops on Ctrl-C, then raises it again: here that is a normal stop.
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(app, session, host, port))
    return 0
