"""The ``mcpServers`` JSON file: reading it, checking it, and what each server entry says.

The format is the one Claude Desktop, Cursor and VS Code read::

    {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]},
                    "docs": {"url": "https://example.com/mcp",
                             "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}}}

``${VAR}`` in ``command``, ``args``, ``env``, ``cwd``, ``url`` and ``headers`` is replaced
by the environment variable (``${VAR:-default}`` falls back). Every problem is reported
with the file, the server and what to change; the values of ``env`` and ``headers`` never
appear in a message. This module does not import the MCP SDK.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from ostinato.errors import ConfigurationError

__all__ = [
    "PROTOCOLS",
    "SERVER_KEYS",
    "Approval",
    "McpConfig",
    "McpConfigError",
    "McpServerConfig",
    "load_mcp_config",
    "parse_mcp_config",
]

#: The keys a server entry may have: the common ones, then ostinato's own.
SERVER_KEYS: Final = (
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "type",
    "disabled",
    "timeout",
    "toolPrefix",
    "requireApproval",
    "allowedTools",
    "protocol",
    "resourceTools",
)
#: The ``protocol`` values: negotiate (the default), force the handshake, or pin a
#: stateless revision.
PROTOCOLS: Final = ("auto", "legacy", "2026-07-28")
_TYPES: Final = {"stdio": "stdio", "http": "http", "streamable-http": "http", "sse": "sse"}
_REFERENCE: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

#: Which calls of a server need approval: ``"always"``, ``"never"``, or the tool names.
Approval = Literal["always", "never"] | tuple[str, ...]


class McpConfigError(ConfigurationError):
    """An ``mcpServers`` file, or one server in it, is not usable.

    Attributes:
        path: the file (``None`` for configuration given in code).
        server: the server the problem is about (``None`` for the file as a whole).
    """

    def __init__(self, message: str, *, path: Path | None = None, server: str | None = None):
        super().__init__(message)
        self.path = path
        self.server = server


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """One MCP server: a command to run (stdio) or a URL to connect to (HTTP).

    Attributes:
        name: the server's name (its key under ``mcpServers``).
        command: the executable of a stdio server.
        args: its arguments.
        env: environment variables added to the server's (values are secrets).
        cwd: its working directory.
        url: the endpoint of a streamable HTTP (or legacy SSE) server.
        headers: HTTP headers sent to it (values are secrets).
        transport: ``"stdio"``, ``"http"`` or ``"sse"``.
        timeout: seconds one tool call may take.
        tool_prefix: prepended to the server's tool names (``None``: the toolset's rule).
        require_approval: which calls need approval.
        allowed_tools: the only tools of the server offered (``None``: all).
        protocol: how the protocol revision is chosen: ``"auto"`` (``server/discover``,
            falling back to the ``initialize`` handshake), ``"legacy"`` (the handshake:
            2025-11-25 and older) or ``"2026-07-28"`` (that stateless revision, no probe).
        resource_tools: offer the server's resources as the tools
            ``<server>_list_resources`` and ``<server>_read_resource``.
    """

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    transport: Literal["stdio", "http", "sse"] = "stdio"
    timeout: float = 60.0
    tool_prefix: str | None = None
    require_approval: Approval = "never"
    allowed_tools: tuple[str, ...] | None = None
    protocol: str = "auto"
    resource_tools: bool = False

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise McpConfigError(
                f"MCP server {self.name!r}: 'protocol' is {self.protocol!r}\n"
                f"fix: write one of {', '.join(PROTOCOLS)}"
            )
        if (self.command is None) == (self.url is None):
            found = "both" if self.command else "neither"
            raise McpConfigError(
                f"MCP server {self.name!r} has {found} of 'command' and 'url'\n"
                f"fix: give a stdio server a 'command' (and 'args'), an HTTP server a 'url'",
                server=self.name,
            )

    @property
    def target(self) -> str:
        """What the server is, for people: its command line or its URL (no secrets)."""
        from ostinato.redaction import mask_url

        if self.url is not None:
            return mask_url(self.url)
        return " ".join([self.command or "", *self.args])


@dataclass(frozen=True, slots=True)
class McpConfig:
    """What an ``mcpServers`` file holds: the usable servers and the broken ones.

    Attributes:
        path: the file.
        servers: the usable, enabled servers, in file order.
        problems: per broken server, why it cannot be used.
        disabled: the servers marked ``"disabled": true``.
    """

    path: Path | None
    servers: tuple[McpServerConfig, ...]
    problems: Mapping[str, McpConfigError] = field(default_factory=dict)
    disabled: tuple[str, ...] = ()

    def check(self) -> McpConfig:
        """This configuration, or the first problem (every server's, in one error).

        Raises:
            McpConfigError: a server entry is broken.
        """
        if self.problems:
            raise McpConfigError(
                "\n".join(str(problem) for problem in self.problems.values()), path=self.path
            )
        return self


def _where(path: Path | None, server: str | None) -> str:
    place = f"{path}: " if path is not None else ""
    return f"{place}MCP server {server!r}" if server else f"{place}MCP configuration"


def _expand(value: str, key: str, where: str, environ: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        raise McpConfigError(
            f"{where}: {key} refers to ${{{name}}}, which is not set\n"
            f"fix: set the environment variable {name}, or write ${{{name}:-default}}"
        )

    return _REFERENCE.sub(replace, value)


def _strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f'{where}: {key!r} must be a list of strings\nfix: e.g. ["--flag"]')
    return tuple(value)


def _mapping(value: Any, key: str, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise McpConfigError(
            f'{where}: {key!r} must be an object of strings\nfix: e.g. {{"NAME": "value"}}'
        )
    return dict(value)


def _approval(value: Any, where: str) -> Approval:
    if value in ("always", "never"):
        return value  # type: ignore[no-any-return]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise McpConfigError(
        f"{where}: 'requireApproval' is {value!r}\n"
        f'fix: write "always", "never" or a list of the tools that need approval'
    )


def _server(
    name: str, entry: Any, path: Path | None, environ: Mapping[str, str]
) -> McpServerConfig:
    where = _where(path, name)
    if not isinstance(entry, dict):
        raise McpConfigError(f"{where}: the entry must be an object, found {type(entry).__name__}")
    unknown = sorted(set(entry) - set(SERVER_KEYS))
    if unknown:
        raise McpConfigError(
            f"{where}: unknown key {', '.join(map(repr, unknown))}\n"
            f"fix: use only {', '.join(SERVER_KEYS)}",
            path=path,
            server=name,
        )

    def text(key: str) -> str | None:
        value = entry.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise McpConfigError(f"{where}: {key!r} must be a string")
        return _expand(value, key, where, environ)

    command, url = text("command"), text("url")
    if command is None and url is None:
        raise McpConfigError(
            f"{where}: has neither 'command' nor 'url'\n"
            f"fix: give a stdio server a 'command' (and 'args'), an HTTP server a 'url'"
        )
    if command is not None and url is not None:
        raise McpConfigError(f"{where}: has both 'command' and 'url'\nfix: keep one of them")
    kind = entry.get("type", "stdio" if command else "http")
    if kind not in _TYPES or (_TYPES[kind] == "stdio") != (command is not None):
        raise McpConfigError(
            f"{where}: 'type' is {kind!r}, which does not fit its "
            f'{"command" if command else "url"}\nfix: write "stdio" with a command, '
            f'"http" or "sse" with a url, or leave \'type\' out'
        )
    args = tuple(
        _expand(a, "args", where, environ) for a in _strings(entry.get("args", []), "args", where)
    )
    env = {
        k: _expand(v, f"env {k}", where, environ)
        for k, v in _mapping(entry.get("env", {}), "env", where).items()
    }
    headers = {
        k: _expand(v, f"header {k}", where, environ)
        for k, v in _mapping(entry.get("headers", {}), "headers", where).items()
    }
    timeout = entry.get("timeout", 60.0)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise McpConfigError(
            f"{where}: 'timeout' is {timeout!r}\nfix: a number of seconds, e.g. 60"
        )
    prefix = entry.get("toolPrefix")
    if prefix is not None and not isinstance(prefix, str):
        raise McpConfigError(f"{where}: 'toolPrefix' must be a string, e.g. \"{name}_\"")
    return McpServerConfig(
        name=name,
        command=command,
        args=args,
        env=env,
        cwd=text("cwd"),
        url=url,
        headers=headers,
        transport=_TYPES[kind],  # type: ignore[arg-type]
        timeout=float(timeout),
        tool_prefix=prefix,
        require_approval=_approval(entry.get("requireApproval", "never"), where),
        allowed_tools=None
        if entry.get("allowedTools") is None
        else _strings(entry["allowedTools"], "allowedTools", where),
        protocol=_protocol(entry.get("protocol", "auto"), where),
        resource_tools=_flag(entry.get("resourceTools", False), "resourceTools", where),
    )


def _flag(value: Any, key: str, where: str) -> bool:
    if isinstance(value, bool):
        return value
    raise McpConfigError(f"{where}: {key!r} is {value!r}\nfix: write true or false")


def _protocol(value: Any, where: str) -> str:
    if value in PROTOCOLS:
        return str(value)
    raise McpConfigError(
        f"{where}: 'protocol' is {value!r}\nfix: write one of {', '.join(PROTOCOLS)}"
    )


def parse_mcp_config(
    data: Any, *, path: Path | None = None, environ: Mapping[str, str] | None = None
) -> McpConfig:
    """Check the JSON value of an ``mcpServers`` file; a broken server is kept in
    :attr:`McpConfig.problems` and does not stop the others.

    Raises:
        McpConfigError: the value as a whole is not an ``mcpServers`` object.
    """
    environ = os.environ if environ is None else environ
    where = _where(path, None)
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers"), dict):
        raise McpConfigError(
            f"{where}: expected an object with the key 'mcpServers'\n"
            f'fix: write {{"mcpServers": {{"name": {{"command": ...}}}}}}',
            path=path,
        )
    unknown = sorted(set(data) - {"mcpServers"})
    if unknown:
        raise McpConfigError(
            f"{where}: unknown key {', '.join(map(repr, unknown))}\nfix: keep only 'mcpServers'",
            path=path,
        )
    servers: list[McpServerConfig] = []
    problems: dict[str, McpConfigError] = {}
    disabled: list[str] = []
    for name, entry in data["mcpServers"].items():
        if isinstance(entry, dict) and entry.get("disabled") is True:
            disabled.append(name)
            continue
        try:
            servers.append(_server(name, entry, path, environ))
        except McpConfigError as exc:
            exc.path, exc.server = path, name
            problems[name] = exc
    return McpConfig(path, tuple(servers), problems, tuple(disabled))


def load_mcp_config(path: str | Path, *, environ: Mapping[str, str] | None = None) -> McpConfig:
    """Read and check the ``mcpServers`` file at ``path`` (see :func:`parse_mcp_config`).

    Raises:
        McpConfigError: the file is missing, unreadable, not JSON, or not an
            ``mcpServers`` object.
    """
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise McpConfigError(
            f"{file}: no such MCP configuration file\n"
            f"fix: create it (see examples/mcp.json) or point OSTINATO_MCP_CONFIG / --mcp at it",
            path=file,
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise McpConfigError(f"{file}: cannot be read: {exc}", path=file) from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise McpConfigError(
            f"{file}: not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}\n"
            f"fix: correct the JSON (no comments or trailing commas)",
            path=file,
        ) from None
    return parse_mcp_config(data, path=file, environ=environ)
