"""The auto-configured client of an ``ostinato`` command, set up from its options.

``ostinato chat`` and the commands plugins add (``ostinato serve``...) take the same
client options and build the client the same way: :func:`add_client_options` declares
``--model``, ``--tools``, ``--mcp``, ``--system``, ``--option`` and ``--yes`` on a
parser; :func:`open_client` turns the parsed options into a :class:`ConfiguredClient`
(the model chosen, the local model set up when it is the one and is not ready, the tools
loaded, the MCP servers enabled, the system message and model options made the client's
defaults).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Self, TextIO

from ostinato.cli._chat_session import ChatSession, open_session
from ostinato.cli._model_choice import ModelChoice, choose_model, ensure_local_model
from ostinato.cli._model_options import model_options
from ostinato.prompt import ChatOptions
from ostinato.tools._loading import load_tools

if TYPE_CHECKING:
    from ostinato.cli._context import CliContext
    from ostinato.client import ChatClient
    from ostinato.model import ChatModel
    from ostinato.tools import ToolCallback

__all__ = [
    "CLIENT_OPTIONS",
    "ConfiguredClient",
    "add_client_options",
    "open_client",
    "open_configured_session",
]

#: The attributes :func:`add_client_options` sets on the parsed namespace.
CLIENT_OPTIONS: Final = ("model", "tools", "mcp", "system", "option", "yes")


def add_client_options(parser: argparse.ArgumentParser) -> None:
    """Declare the client options of ``ostinato chat`` on ``parser``.

    ``--model``/``-m``, ``--tools``/``-t`` (repeatable), ``--mcp``, ``--system``/``-s``,
    ``--option``/``-o`` (repeatable) and ``--yes``/``-y``, with ``ostinato chat``'s help.
    Pass the parsed namespace to :func:`open_client`.
    """
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
        help="a model option, e.g. -o temperature=0.2 -o max_tokens=200 (repeatable; "
        "checked against the model's options)",
    )
    parser.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help="set up the local default model (build + 1.1 GB download) without asking "
        "when it is not set up",
    )


def _check_namespace(args: argparse.Namespace) -> None:
    missing = [name for name in CLIENT_OPTIONS if not hasattr(args, name)]
    if missing:
        raise TypeError(
            f"the parsed options lack {', '.join(missing)}: expected the namespace of a "
            "parser the client options were added to\n"
            "fix: call ostinato.cli.add_client_options(parser) before parser.parse_args()"
        )


def open_configured_session(
    args: argparse.Namespace,
    context: CliContext,
    choice: ModelChoice,
    *,
    conversation_id: str | None = None,
    stream: bool = True,
    approve: bool = False,
    rag: bool = False,
    err: TextIO | None = None,
    stdin: TextIO | None = None,
) -> ChatSession:
    """The session of the client options in ``args`` for ``choice``: tools loaded, the
    local model set up if needed (asking on ``stdin``/``err`` unless ``--yes``), the client
    auto-configured (with retrieval on the ``ostinato index`` store for ``rag``), the
    model options checked.

    Raises:
        ConfigurationError: an option or setting is wrong, or a plugin an option needs
            is missing.
        PluginError: a plugin is broken.
    """
    _check_namespace(args)
    _, manager, registry = context.loaded()
    tools = load_tools(args.tools)
    ensure_local_model(
        choice,
        registry,
        err if err is not None else sys.stderr,
        assume_yes=args.yes,
        stdin=stdin if stdin is not None else sys.stdin,
    )
    session = open_session(
        choice,
        manager,
        registry,
        tools=tools,
        system=args.system,
        conversation_id=conversation_id,
        stream=stream,
        approve=approve,
        mcp_config=args.mcp,
        rag=rag,
    )
    defaults = getattr(session.model, "default_options", None)
    session.options = model_options(
        args.option,
        defaults if isinstance(defaults, ChatOptions) else ChatOptions(),
        choice.provider,
    )
    return session


@dataclass(frozen=True, slots=True)
class ConfiguredClient:
    """The client a command built from its client options; close it when done: ``with``
    or :meth:`close` in sync code, ``async with`` or :meth:`aclose` in async code.

    Attributes:
        client: the auto-configured client; ``--system`` and ``-o`` are its defaults.
        model: its chat model (closing the configured client closes it).
        model_name: the chosen model, ``provider:model``.
        provider: the provider part of ``model_name``, lower-cased.
        tools: the tools of ``--tools``; the client does not offer them by itself, give
            them to each request (``client.prompt(...).tools(*tools)``).
    """

    client: ChatClient
    model: ChatModel
    model_name: str
    provider: str
    tools: tuple[ToolCallback, ...] = ()
    # Set by the first close, so that a second one (or the block's end) does nothing.
    _closed: bool = field(default=False, init=False, repr=False, compare=False)

    async def aclose(self) -> None:
        """Close the model (its HTTP clients, a local server it started); closing again
        does nothing."""
        if self._closed:
            return
        object.__setattr__(self, "_closed", True)  # frozen: the one state it changes
        aclose: Any = getattr(self.model, "aclose", None)
        if callable(aclose):
            await aclose()

    def close(self) -> None:
        """Blocking twin of :meth:`aclose` (runs it on ostinato's private loop, where the
        sync faces of :attr:`client` made the model's HTTP clients).

        Raises:
            SyncFromLoopError: called from ostinato's private loop (a sync tool); use
                ``await configured.aclose()`` there.
        """
        from ostinato.runtime import run_sync

        run_sync(self.aclose, async_name="aclose")

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()


def open_client(
    args: argparse.Namespace,
    *,
    err: TextIO | None = None,
    stdin: TextIO | None = None,
) -> ConfiguredClient:
    """The client of the options :func:`add_client_options` declared, built exactly as
    ``ostinato chat`` builds it: the model of ``--model`` (else ``OSTINATO_MODEL``, else
    the local default, set up after asking on ``stdin``/``err`` unless ``--yes``), the
    tools of ``--tools``, the MCP servers of ``--mcp``, and ``--system`` and ``-o`` as
    the client's defaults.

    Raises:
        ConfigurationError: an option or setting is wrong, or a plugin an option needs
            is missing (``ostinato`` reports it with exit code 2).
        PluginError: a plugin is broken.
        TypeError: ``args`` does not come from a parser with the client options.
    """
    from ostinato.cli._context import load_context

    _check_namespace(args)
    context = load_context()
    settings, _, registry = context.loaded()
    choice = choose_model(args.model, settings.model, registry)
    session = open_configured_session(args, context, choice, err=err, stdin=stdin)
    builder = session.client.mutate()
    if session.system is not None:
        builder.default_system(session.system)
    if session.options is not None:
        builder.default_options(session.options)
    return ConfiguredClient(
        builder.build(),
        session.model,
        choice.model,
        choice.provider,
        tuple(session.tools),
    )
